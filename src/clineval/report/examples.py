"""The per-example explorer's data: each example of a cell with its gold, the model's output,
how the scorer read it (:meth:`clineval.benchmarks.base.Benchmark.reading`), the copy flag, the
finish reason and, where allowed, the prompt as sent; and the examples where two models'
outcomes differ (the discordant pairs of McNemar's test, docs/statistics.md).

A cell's document (:func:`cell_document`) is what its page embeds as JSON: ``views`` (the
readings a filter may follow), ``texts`` (each distinct prompt message once) and ``examples``,
each with ``tags`` per view (its verdict, ``cut``, ``copied``) that the page filters on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clineval.benchmarks import get_benchmark
from clineval.benchmarks.base import scored_rows
from clineval.benchmarks.base.reading import VERDICTS, Reading
from clineval.inference.base import UNKNOWN_FINISH
from clineval.io import DataError, Record, read_jsonl
from clineval.metrics.paired import mcnemar_exact, shared_ids

#: Flags an example may carry besides its verdict.
FLAGS = ("cut", "loop", "copied")
#: The flags read from the finish reason, and what their count shows where no example's
#: finish reason is known (recorded outputs, :data:`clineval.inference.base.UNKNOWN_FINISH`).
FINISH_FLAGS = ("cut", "loop")
NOT_KNOWN = "not known"

#: Score row fields a table's value may cover part of a cell by (a link's ``where``): each
#: example carries those its row holds as ``keys``, which the page filters on; so does each
#: entry of its row's ``groups`` (CliBench's subgroups: ``chapter``, ``gender``, ...) whose
#: name is none of the page's own state (:data:`STATE`).
KEYS = ("category", "group", "domain", "aspect")
#: The names the page's address uses for its own state (docs/report.md, Addresses).
STATE = ("view", "measure", "level", "of", "by", "verdict", "only", "q", "prefix", "page", "id")


def keys(row: Record) -> dict[str, str]:
    """The parts of a cell an example belongs to (:data:`KEYS`, its row's ``groups``)."""
    found = {k: str(row[k]) for k in KEYS if row.get(k) not in (None, "")}
    groups = row.get("groups")
    if isinstance(groups, Mapping):
        found.update({str(k): str(v) for k, v in groups.items()
                      if v not in (None, "") and k not in STATE and k not in found})
    return found


@dataclass(frozen=True)
class CellFiles:
    """One cell's files: its examples (derived data), requests, generations and score rows."""

    examples: Path
    requests: Path
    generations: Path
    rows: Path


@dataclass
class Cell:
    """A cell's rows joined by example id: what its page and its pairs read."""

    path: str
    benchmark: str
    task: Record
    rows: list[Record]
    examples: dict[str, Record]
    generations: dict[str, Record]
    requests: dict[str, Record]
    #: Rows the cell's summary leaves out (MedEval's validation rows, unchosen draws).
    left_out: int = 0


def _by_id(records: list[Record], path: Path) -> dict[str, Record]:
    found: dict[str, Record] = {}
    for number, record in enumerate(records, start=1):
        if record["id"] in found:
            raise DataError(path, number, "id", f"example id {record['id']!r} occurs twice")
        found[record["id"]] = record
    return found


def read_cell(path: str, benchmark: str, task: Record, files: CellFiles,
              prompts: bool) -> Cell:
    """The cell's scored rows with the example, generation and (``prompts``) request of each;
    a row without its example or generation names the file that lacks it."""
    rows = read_jsonl(files.rows, ("id",))
    scored = scored_rows(rows)
    examples = _by_id(read_jsonl(files.examples, ("id",)), files.examples)
    generations = _by_id(read_jsonl(files.generations, ("id", "output")), files.generations)
    requests = (_by_id(read_jsonl(files.requests, ("id", "messages")), files.requests)
                if prompts else {})
    for where, found in ((files.examples, examples), (files.generations, generations),
                         *(((files.requests, requests),) if prompts else ())):
        missing = [r["id"] for r in scored if r["id"] not in found]
        if missing:
            raise DataError(where, None, "id", f"no record for scored example(s) {missing[:5]} "
                            f"of {files.rows}")
    return Cell(path, benchmark, task, scored, examples, generations, requests,
                len(rows) - len(scored))


class Texts:
    """Each distinct prompt message once (a page's ``texts``): a cell's examples share their
    system message and exemplars."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self._index: dict[str, int] = {}

    def __call__(self, content: str) -> int:
        if content not in self._index:
            self._index[content] = len(self.items)
            self.items.append(content)
        return self._index[content]


def _side(cell: Cell, row: Record, reading: Reading, texts: Texts | None) -> Record:
    """One model's part of an example: its output, finish reason, copy flag, judgements and
    (``texts``: prompts are embedded) its prompt's messages as (role, text index)."""
    generation = cell.generations[row["id"]]
    finish = generation.get("finish_reason")
    side: Record = {
        "output": str(generation["output"]),
        "finish": NOT_KNOWN if finish in UNKNOWN_FINISH else finish,
        "tokens": generation.get("completion_tokens"),
        "copied": row.get("copied"),
        "judgements": [j.as_dict() for j in reading.judgements],
    }
    if texts is not None and row["id"] in cell.requests:
        side["prompt"] = [[m["role"], texts(str(m["content"]))]
                          for m in cell.requests[row["id"]]["messages"]]
    return side


def _tags(side: Record, views: Sequence[str]) -> dict[str, list[str]]:
    """Per view (a judgement's name): the example's verdict under it (its first judgement's
    where it has none of that name) and its flags."""
    flags = [flag for flag, on in (("cut", side["finish"] == "length"),
                                   ("loop", side["finish"] == "loop"),
                                   ("copied", bool(side["copied"]))) if on]
    by_name = {j["name"]: j["verdict"] for j in side["judgements"]}
    first = side["judgements"][0]["verdict"]
    return {view: [by_name.get(view, first), *flags] for view in views}


def _views(readings: Sequence[Reading]) -> list[str]:
    """The judgement names of a cell's rows, in order of first appearance."""
    return list(dict.fromkeys(j.name for r in readings for j in r.judgements))


def cell_document(cell: Cell, prompts: bool) -> Record:
    """A cell page's data: its views, prompt texts and examples (in row order), and the count
    of each tag per view."""
    bench = get_benchmark(cell.benchmark)
    readings = [bench.reading(row, cell.examples[row["id"]]) for row in cell.rows]
    views = _views(readings)
    texts = Texts() if prompts else None
    examples = []
    for row, reading in zip(cell.rows, readings, strict=True):
        side = _side(cell, row, reading, texts)
        examples.append({"id": str(row["id"]), "gold": reading.gold,
                         "details": [list(d) for d in reading.details], "sides": [side],
                         "tags": _tags(side, views),
                         "keys": keys(row)})
    return {"views": views, "texts": texts.items if texts else [], "examples": examples,
            "counts": counts(examples, views), "left_out": cell.left_out}


def counts(examples: Sequence[Record], views: Sequence[str]) -> dict[str, dict[str, int | str]]:
    """Per view, how many examples carry each verdict and flag; the finish reason's flags are
    "not known" where no example's finish reason is known (never 0)."""
    known = any(side["finish"] != NOT_KNOWN for e in examples for side in e["sides"])
    return {view: {tag: sum(tag in e["tags"][view] for e in examples)
                   if known or tag not in FINISH_FLAGS else NOT_KNOWN
                   for tag in (*VERDICTS, *FLAGS)} for view in views}


def _outcomes(cell: Cell) -> dict[str, dict[str, int]]:
    return get_benchmark(cell.benchmark).outcomes(cell.task, cell.rows)


def pair_document(a: Cell, b: Cell, prompts: bool) -> Record:
    """A pair page's data: the examples both cells scored where an outcome of an accuracy
    differs (its ``views``: those metrics, the McNemar test's discordant pairs), each with both
    models' parts; per metric the discordant counts and McNemar's exact p. A benchmark with
    no 0/1 outcomes (graded scores) compares the first judgements' verdicts and scores."""
    bench = get_benchmark(a.benchmark)
    rows_a = {r["id"]: r for r in a.rows}
    rows_b = {r["id"]: r for r in b.rows}
    ids = shared_ids(rows_a, rows_b)
    readings = {(side, i): bench.reading(rows[i], cell.examples[i])
                for side, cell, rows in (("a", a, rows_a), ("b", b, rows_b)) for i in ids}
    outcomes_a, outcomes_b = _outcomes(a), _outcomes(b)
    metrics = [m for m in outcomes_a if m in outcomes_b]
    differ: dict[str, dict[str, str]] = {}
    tests = {}
    for metric in metrics:
        both = shared_ids(outcomes_a[metric], outcomes_b[metric])
        found = {i: ("a" if outcomes_a[metric][i] else "b") for i in both
                 if outcomes_a[metric][i] != outcomes_b[metric][i]}
        for i, better in found.items():
            differ.setdefault(i, {})[metric] = better
        tests[metric] = {"n": len(both), "only_a": sum(v == "a" for v in found.values()),
                         "only_b": sum(v == "b" for v in found.values()),
                         "p": mcnemar_exact([outcomes_a[metric][i] for i in both],
                                            [outcomes_b[metric][i] for i in both])}
    if not metrics:  # graded scores: the first judgements' verdict or score differ
        metrics = ["verdict"]
        for i in ids:
            ja, jb = (readings[(s, i)].judgements[0] for s in ("a", "b"))
            if (ja.verdict, ja.score) != (jb.verdict, jb.score):
                differ[i] = {"verdict": "differ"}
    texts = Texts() if prompts else None
    examples = []
    for i in (r["id"] for r in a.rows if r["id"] in differ):  # in a's order
        reading = readings[("a", i)]
        examples.append({
            "id": str(i), "gold": reading.gold, "details": [list(d) for d in reading.details],
            "sides": [_side(a, rows_a[i], reading, texts),
                      _side(b, rows_b[i], readings[("b", i)], texts)],
            "tags": {m: [_better(differ[i].get(m))] for m in metrics}})
    return {"views": metrics, "texts": texts.items if texts else [], "examples": examples,
            "shared": len(ids), "tests": tests,
            "counts": {m: {tag: sum(tag in e["tags"][m] for e in examples)
                           for tag in ("a right", "b right", "same", "differ")}
                       for m in metrics}}


def _better(side: str | None) -> str:
    """An example's tag under one metric of a pair page."""
    return {"a": "a right", "b": "b right", None: "same"}.get(side, "differ")


def summary_line(document: Mapping[str, Any]) -> dict[str, int | str]:
    """The counts of a cell page's first view (for the index of cells)."""
    views = document["views"]
    return dict(document["counts"][views[0]]) if views else {}
