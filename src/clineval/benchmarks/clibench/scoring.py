"""CliBench scoring: answers -> codes (recorded per item) -> hierarchical micro P/R/F1.

The summary holds fractions in [0, 1]: per level the micro precision, recall and F1 with their
pooled counts and the per-admission macro F1; the plain mean over levels; how many admissions
were scored and dropped; how items were mapped; the ontology versions; the cache key of the
title embeddings used (``None`` when no item needed them).

An answer is read whole (the paper's parsing: every line is an item), except under a prompt
that asks for a "Final answer:" line (``reasoning``: the chain-of-thought prompt), where only
what follows the last such line is read. An item naming a title that several codes share
predicts one of them: the one that agrees with the admission's gold codes at the most levels
(ties: the first in code order), so any code with that name counts as a match.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from clineval.benchmarks.base import literal_rows
from clineval.benchmarks.base.settings import read
from clineval.io import Record
from clineval.metrics import aggregate, hierarchical
from clineval.metrics.code_mapping import Item, Mapper, codes_of
from clineval.metrics.embedding import encoder_name
from clineval.metrics.ontologies import icd10cm

from . import abbreviations, kinds, pools
from .decisions import Shown, judge
from .opposites import opposite

#: The micro scores a level reports (its headline numbers).
MICRO = ("precision", "recall", "f1")
#: The files a task's scoring may read, by role (the title embeddings: derived from the others
#: by :func:`write_title_embeddings`).
FILE_ROLES = ("d_icd_diagnoses", "d_icd_procedures", "loinc_hierarchy", "lab_loinc_map",
              "d_labitems", "atc_titles", pools.EMBEDDINGS)
#: The roles each task's scoring reads.
ROLES = {"diagnoses": ("d_icd_diagnoses",), "procedures": ("d_icd_procedures",),
         "labs": ("loinc_hierarchy", "lab_loinc_map", "d_labitems"),
         "prescriptions": ("atc_titles",)}
_FINAL = re.compile(r"^\s*\**\s*final answer\s*:?\**", re.I | re.M)


def answer_text(output: str, reasoning: bool) -> str:
    """Under ``reasoning`` (a prompt that asks for a "Final answer:" line), the part of an
    answer after its last such line, else all of it; without ``reasoning``, all of it."""
    matches = list(_FINAL.finditer(output)) if reasoning else []
    return output[matches[-1].end():] if matches else output


def scoring_files(kind: str, scoring: Record, demo_dir: Path) -> dict[str, Path]:
    """The files the task's scoring reads, by role: the demo's copies (``source: demo``) under
    ``demo_dir``, else MIMIC-IV's ``hosp`` dictionaries and the configured code-system files."""
    from clineval.mimic.mimic4 import table_path
    from clineval.mimic.synthetic_mimic4 import Layout

    files: dict[str, Path] = {}
    if scoring.get("source") == "demo":
        layout = Layout(demo_dir)
        located = {"d_icd_diagnoses": layout.table("d_icd_diagnoses"),
                   "d_icd_procedures": layout.table("d_icd_procedures"),
                   "d_labitems": layout.table("d_labitems"),
                   "loinc_hierarchy": layout.loinc_hierarchy,
                   "lab_loinc_map": layout.lab_loinc_map, "atc_titles": layout.atc_titles}
        return {role: located[role] for role in ROLES[kind]}
    hosp = scoring.get("hosp")
    for role in ROLES[kind]:
        if role in ("d_icd_diagnoses", "d_icd_procedures", "d_labitems"):
            if hosp:
                files[role] = table_path(Path(hosp), role)
        elif scoring.get(role):
            files[role] = Path(scoring[role])
    return files


def write_title_embeddings(kind: str, encoder: str, itemids: bool, files: dict[str, Path],
                           out: Path) -> Record:
    """Embed the task's candidate titles (from its scoring ``files``; ``itemids``: MIMIC's lab
    items, the public code's pool) once and store them as ``out``
    (:func:`clineval.metrics.embedding.write_vectors`); what identifies the vectors."""
    from clineval.metrics.embedding import write_vectors

    sources = tuple(sorted((role, path) for role, path in files.items()
                           if role in FILE_ROLES and role != pools.EMBEDDINGS))
    return write_vectors(out, pools.candidates(kind, sources, encoder, itemids).titles, encoder)


@dataclass(frozen=True)
class Scorer:
    kind: str
    settings: Record
    files: dict[str, Path]
    #: The answers come from a prompt that asks for a "Final answer:" line.
    reasoning: bool = False

    def mapper(self) -> Mapper:
        encoder = self.settings["encoder"]
        files = tuple(sorted((role, path) for role, path in self.files.items()))
        itemids = self.kind == "labs" and self.settings["lab_codes"] == "itemid"
        # every item gets its nearest title (the literal reading); the floor applies after
        return Mapper(kinds.system(self.kind, self.settings),
                      pools.candidates(self.kind, files, encoder, itemids),
                      None, self.settings["parsing"])

    @cached_property
    def titles(self) -> dict[tuple[str, ...], str]:
        """The candidates' titles by their codes (once per scorer)."""
        candidates = self.mapper().candidates
        return dict(zip(candidates.codes, candidates.titles, strict=True)) if candidates else {}

    def expansions(self, items: Sequence[Item]) -> dict[str, str]:
        """The texts of the items that the careful reading matches with their abbreviations
        written out (labs, ``abbreviations``: items matched by embedding or to nothing) -> the
        written-out text."""
        if self.kind != "labs" or not self.settings["abbreviations"]:
            return {}
        table = abbreviations.table(tuple(self.titles.values()))
        return abbreviations.expansions(
            (item.text for item in items if item.how in ("embedding", "none")), table)

    def read_as(self, mapper: Mapper, rows: Sequence[Sequence[Item]]) -> dict[str, Item]:
        """The items whose text :meth:`expansions` writes out -> the mapping of the written-out
        text (each text once)."""
        written = self.expansions([item for items in rows for item in items])
        if not written:
            return {}
        queries = list(dict.fromkeys(written.values()))
        found = dict(zip(queries, mapper.map_items([queries])[0], strict=True))
        return {text: found[query] for text, query in written.items()}

    def levels(self) -> list[tuple[str, Any]]:
        return kinds.levels(self.kind, self.settings, self.files.get("loinc_hierarchy"))

    def canonical_gold(self, codes: Sequence[str]) -> list[str]:
        """Gold codes in canonical form; a code the system does not know is a ``ValueError``
        naming it."""
        system = kinds.system(self.kind, self.settings)
        found = []
        for code in codes:
            canonical = system.canonical(code)
            if canonical is None:
                raise ValueError(f"gold code {code!r} is not a valid {system.name} code")
            found.append(canonical)
        return list(dict.fromkeys(found))

    def score(self, ids: Sequence[str], gold: Sequence[Sequence[str]],
              outputs: Sequence[str | None], seen: Sequence[Shown | None] | None = None
              ) -> tuple[list[Record], Record]:
        """Rows and summary under the careful reading: items that are no decision
        (:mod:`.decisions`, with what the prompt showed each row: ``seen``) and items whose
        nearest title is below the floor (``threshold``) map to no code. A row where the
        paper's literal reading (every item mapped to its nearest code) differs keeps it as
        ``literal`` (its ``codes``, ``counts`` and ``items``, each as that reading mapped it);
        the summary then holds ``literal``."""
        mapper = self.mapper()
        texts = [answer_text(text, self.reasoning) if text else "" for text in outputs]
        literal_items = mapper.map_all(texts)
        read = self.read_as(mapper, literal_items)
        shown_rows = list(seen) if seen is not None else [None] * len(texts)
        careful_items = [self.careful(items, text, shown_row, read) for items, text, shown_row
                         in zip(literal_items, texts, shown_rows, strict=True)]
        golds = [self.canonical_gold(g) for g in gold]
        levels = self.levels()
        readings = {}
        for name, mapped in (("careful", [[i for i, _ in row] for row in careful_items]),
                             ("literal", literal_items)):
            predicted = [codes_of(items, best_alternative(gold_codes, levels))
                         for items, gold_codes in zip(mapped, golds, strict=True)]
            readings[name] = (predicted, *hierarchical.score(golds, predicted, levels,
                                                               self.settings["empty"]))
        predicted, counts, scores = readings["careful"]
        literal_predicted, literal_counts, literal_scores = readings["literal"]
        rows = []
        for index, (id_, items, codes, gold_codes, count) in enumerate(zip(
                ids, careful_items, predicted, golds, counts, strict=True)):
            row = {
                "id": id_, "codes": codes, "gold": gold_codes,
                "items": [item.record() | extra for item, extra in items],
                "counts": _counts(count),
            }
            if (literal_predicted[index], _counts(literal_counts[index])) != (codes,
                                                                             row["counts"]):
                row["literal"] = {"codes": literal_predicted[index],
                                  "counts": _counts(literal_counts[index]),
                                  "items": [item.record() for item in literal_items[index]]}
            rows.append(row)
        how = Counter(item.how for items in careful_items for item, _ in items)
        result = summary(scores, self, dict(sorted(how.items())), mapper.embeddings_key)
        if any("literal" in row for row in rows):
            literal_how = Counter(item.how for items in literal_items for item in items)
            result["literal"] = summary(literal_scores, self, dict(sorted(literal_how.items())),
                                        mapper.embeddings_key)
        return rows, result

    def careful(self, items: Sequence[Item], text: str, seen: Shown | None,
                read: Mapping[str, Item] | None = None) -> list[tuple[Item, Record]]:
        """The items under the careful reading, each with what its record adds. An item that
        is no decision (``how: no_decision``, ``rule`` and ``why``) keeps no code; one that
        ``read`` holds (:meth:`read_as`) is matched as its written-out text (``read_as``); then
        one whose nearest title is below the floor, or names the opposite of the item
        (:func:`.opposites.opposite`), keeps no code (``how: none``, ``why``).
        ``literal_codes``: the codes the literal reading maps it to, where they differ."""
        verdicts = judge([item.text for item in items], text, seen or Shown(),
                         [item.how == "code" for item in items])
        floor = self.settings["threshold"]
        out: list[tuple[Item, Record]] = []
        for literal, verdict in zip(items, verdicts, strict=True):
            item = literal
            extra: Record = {}
            if verdict is not None:
                item = Item(item.text, (), "no_decision", item.similarity, item.invalid)
                extra = {"rule": verdict[0], "why": verdict[1]}
            else:
                if read and literal.text in read:
                    found = read[literal.text]
                    item = Item(literal.text, found.codes, found.how, found.similarity,
                                literal.invalid)
                    extra = {"read_as": found.text}
                why = self.no_code(item, floor)
                if why is not None:
                    item = Item(item.text, (), "none", item.similarity, item.invalid)
                    extra |= {"why": why}
            if item.codes != literal.codes or extra:
                extra["literal_codes"] = list(literal.codes)
            out.append((item, extra))
        return out

    def no_code(self, item: Item, floor: float | None) -> str | None:
        """Why an item matched by embedding keeps no code under the careful reading: its
        nearest title is below the floor, or names the item's opposite; else ``None``."""
        if item.how != "embedding":
            return None
        if floor is not None and item.similarity is not None and item.similarity < floor:
            return (f"the nearest title's similarity {item.similarity:.3f} is below the floor "
                    f"{floor:g}")
        pair = opposite(item.text, self.titles.get(item.codes, ""))
        if pair is not None:
            return f"names {pair[0]}; its nearest title names the opposite, {pair[1]}"
        return None


def _counts(count: Sequence[hierarchical.Counts] | None) -> list[list[int]] | None:
    return None if count is None else [[c.tp, c.predicted, c.gold] for c in count]


def best_alternative(gold: Sequence[str], levels: Sequence[tuple[str, Any]]):
    """``pick`` for :func:`codes_of`: of codes sharing a title, the one whose nodes agree with
    the gold codes' at the most levels (ties: the first given, the codes being sorted)."""
    gold_nodes = [{node for code in gold for node in function(code)} for _, function in levels]

    def pick(alternatives: tuple[str, ...]) -> str:
        def agreement(code: str) -> int:
            return sum(bool(set(function(code)) & nodes)
                       for (_, function), nodes in zip(levels, gold_nodes, strict=True))

        return max(alternatives, key=agreement)

    return pick


def level_record(level: hierarchical.LevelScore) -> Record:
    return {"name": level.name, "precision": level.micro.precision,
            "recall": level.micro.recall, "f1": level.micro.f1, "macro_f1": level.macro_f1,
            "tp": level.tp, "predicted": level.predicted, "gold": level.gold}


def scores_record(kind: str, scores: hierarchical.Scores) -> Record:
    """The row-derived part of a cell's summary: per-level and average scores, counts."""
    average = scores.average
    return {
        "task": kind,
        "levels": [level_record(level) for level in scores.levels],
        "average": {"precision": average.precision, "recall": average.recall,
                    "f1": average.f1},
        "macro_f1": scores.macro_f1,
        "n": scores.n_scored,
        "n_dropped": scores.n_dropped,
    }


def summarize_rows(kind: str, rows: Sequence[Record]) -> Record:
    """:func:`scores_record` pooled again from the rows' per-level ``counts`` (``None``: an
    admission dropped under ``empty: drop``); where some row reads otherwise under the paper's
    literal reading, that reading's record too (``literal``)."""
    found = _pooled(kind, rows)
    literal = literal_rows(list(rows))
    if literal is not None:
        found["literal"] = _pooled(kind, literal)
    return found


def _pooled(kind: str, rows: Sequence[Record]) -> Record:
    names = _checked_levels(kind, rows)
    kept = [[hierarchical.Counts(*count) for count in row["counts"]] for row in rows
            if row["counts"] is not None]
    return scores_record(kind, hierarchical.pooled(names, kept, len(rows) - len(kept)))


def _checked_levels(kind: str, rows: Sequence[Record]) -> tuple[str, ...]:
    """The task's level names, after checking each kept row has counts for every level."""
    names = tuple(kinds.kind(kind).level_names)
    for row in rows:
        if row["counts"] is not None and len(row["counts"]) != len(names):
            raise ValueError(f"row {row['id']!r}: {len(row['counts'])} level counts, the "
                             f"{kind} task has {len(names)} levels")
    return names


def headline_aggregates(kind: str, rows: Sequence[Record]) -> aggregate.Headline:
    """Per level and on average, micro precision, recall and F1: each level's counts summed
    over the rows, finished as :func:`hierarchical.pooled` finishes them."""
    names = _checked_levels(kind, rows)
    levels = [aggregate.combine(_micro, aggregate.Sums(
        lambda row, i=i: (0, 0, 0) if row["counts"] is None else row["counts"][i], 3))
        for i in range(len(names))]
    average = aggregate.combine(lambda *micro: hierarchical.mean_over_levels(micro), *levels)
    return {f"{name}.{metric}": aggregate.Shown(aggregate.combine(
        lambda found, metric=metric: getattr(found, metric), part))
        for name, part in (*zip(names, levels, strict=True), ("average", average))
        for metric in MICRO}


def _micro(sums: Sequence[int]) -> hierarchical.PRF:
    """A level's micro precision, recall and F1 from its summed (tp, predicted, gold)."""
    tp, predicted, gold = sums
    precision, recall = hierarchical.ratio(tp, predicted), hierarchical.ratio(tp, gold)
    return hierarchical.PRF(precision, recall, hierarchical.f1(precision, recall))


def summary(scores: hierarchical.Scores, scorer: Scorer, mapping: dict[str, int],
            embeddings: str | None = None) -> Record:
    return {
        **scores_record(scorer.kind, scores),
        "mapping": mapping,
        "title_embeddings": embeddings,
        "final_answer": scorer.reasoning,
        "settings": {k: scorer.settings[k] for k in sorted(scorer.settings)} | {
            "encoder": encoder_name(scorer.settings["encoder"])},
        "ontology": icd10cm.version() if scorer.kind == "diagnoses" else None,
    }


def settings(scoring: Record | None) -> Record:
    """The task's scoring rules (``Rules``' keys of ``scoring``, each default the schema's;
    settings.py); ConfigError names a setting the schema refuses."""
    from .settings import Rules, Scoring

    typed = read(Scoring, scoring, "scoring")
    return {f.name: getattr(typed, f.name) for f in dataclasses.fields(Rules)}
