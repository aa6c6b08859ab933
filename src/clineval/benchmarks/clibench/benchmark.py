"""CliBench on the workflow: MIMIC-IV tables -> cases -> requests -> codes -> Tables 3, 4, 10-13.

A task's ``data.task`` names one of the four CliBench tasks (diagnoses, procedures, labs,
prescriptions). Official sources: the MIMIC-IV 2.2 ``hosp`` and MIMIC-IV-Note 2.2 ``note``
directories and the code-system files (``data.*``); the demo writes a synthetic MIMIC-IV in the
real formats into ``<data>/demo/<task>/``. Scoring reads the files ``scoring_inputs`` declares.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from clineval.benchmarks.base import DerivedInput
from clineval.benchmarks.base.exemplars import exemplar_count
from clineval.benchmarks.base.headline import LeaderboardColumn, Metric
from clineval.benchmarks.base.reading import Reading
from clineval.benchmarks.base.sources import demo_or_official, require
from clineval.benchmarks.base.standard import StandardBenchmark
from clineval.benchmarks.clibench.kinds import KINDS, kind
from clineval.benchmarks.clibench.reading import reading as row_reading
from clineval.errors import ConfigError
from clineval.io import Record
from clineval.metrics import aggregate
from clineval.tables.format import sample_sizes

NAME = "CliBench"
MIMIC_WHERE = "PhysioNet (MIMIC-IV 2.2 and MIMIC-IV-Note 2.2; credentialed access)"
#: Tables every task reads, and each task's own.
COMMON_TABLES = ("patients", "admissions", "services", "transfers", "discharge")
TASK_TABLES = {
    "diagnoses": ("diagnoses_icd", "d_icd_diagnoses", "radiology", "labevents", "d_labitems"),
    "procedures": ("procedures_icd", "d_icd_procedures"),
    "labs": ("labevents", "d_labitems"),
    "prescriptions": ("prescriptions",),
}
#: Code-system files the derive step reads per task: (setting, description, where).
CODE_FILES = {
    "labs": {
        "lab_loinc_map": ("MIMIC-IV's lab itemid -> LOINC map (d_labitems_to_loinc.csv)",
                          "a checkout of github.com/MIT-LCP/mimic-code (MIT licence), "
                          "mimic-iv/mapping/d_labitems_to_loinc.csv"),
        "loinc_hierarchy": ("the LOINC ComponentHierarchyBySystem.csv",
                            "loinc.org (the LOINC release, free licence)"),
    },
    "prescriptions": {
        "ndc_atc": ("an NDC -> ATC map (CSV: ndc, atc)", "your drug vocabulary (e.g. RxNorm)"),
    },
}


#: Micro precision, recall and F1, as the tables label them.
MICRO_LABELS = {"precision": "P", "recall": "R", "f1": "F1"}
#: The levels of every task (each task's own: kinds.py), and their plain mean.
LEVELS = tuple(dict.fromkeys(name for k in KINDS for name in kind(k).level_names))


def _kind(task: Record) -> str:
    """The task's ``data.task``: one of the four CliBench tasks (the task's schema checks it)."""
    return task["data"]["task"]


def _demo_files(kind: str) -> dict[str, str]:
    """Source roles -> paths under the task's demo directory (the synthetic layout)."""
    from clineval.mimic.synthetic_mimic4 import Layout

    layout = Layout(Path("."))
    files = {t: str(layout.table(t)) for t in (*COMMON_TABLES, *TASK_TABLES[kind])}
    for role in CODE_FILES.get(kind, {}):
        files[role] = str(getattr(layout, role))
    if kind == "prescriptions":  # scoring's ATC titles: a source the demo writes
        files["atc_titles"] = str(layout.atc_titles)
    return files


def _official(task: Record, task_name: str, kind: str) -> dict[str, Path]:
    from clineval.mimic.mimic4 import NOTE, table_path

    data = task["data"]
    files = {}
    for table in (*COMMON_TABLES, *TASK_TABLES[kind]):
        folder = "note" if table in NOTE else "hosp"
        directory = data.get(folder)
        where = Path(directory) if directory else None
        files[table] = require(table_path(where, table) if where else None, task_name,
                               f"MIMIC-IV {folder}/{table}.csv(.gz)", MIMIC_WHERE,
                               f"tasks.{task_name}.data.{folder}", NAME)
    for role, (description, where) in CODE_FILES.get(kind, {}).items():
        files[role] = require(data.get(role), task_name, description, where,
                              f"tasks.{task_name}.data.{role}", NAME)
    return files


class CliBenchBenchmark(StandardBenchmark):
    name = "clibench"
    # The versions, with what changed and why: docs/clibench.md, "Versions".
    data_version = "1"
    scoring_version = "7"
    #: What the paper's literal reading (every item mapped to its nearest code, §3.5) credits.
    literal_reading = ("an answer line that copies the prompt (a record line, a heading, the "
                       "instruction, the exemplar's answer) and any line, however unlike every "
                       "code title, mapped to its nearest code")
    baselines = ("oracle", "frequency")
    #: Per level of the task and on average, micro P/R/F1 (the aggregates: scoring.py, per
    #: level of the task).
    metrics = tuple(Metric(f"{level}.{name}", f"{level} {label}")
                    for level in (*LEVELS, "average") for name, label in MICRO_LABELS.items())
    leaderboard = LeaderboardColumn("CliBench (average F1 %, four tasks)", "zero_shot",
                                    "average.f1", scale=100, about="CliBench average F1")
    #: Scoring reads the mode: whether its prompt asked for a "Final answer:" line.
    scoring_reads_mode = True

    def source_files(self, task: Record, data_root: Path, task_name: str) -> dict[str, Path]:
        kind = _kind(task)
        return demo_or_official(task, task_name, data_root, _demo_files(kind),
                                lambda: _official(task, task_name, kind))

    def source_tiers(self, task: Record, sources: dict[str, Path]) -> dict[str, str]:
        """MIMIC-IV's tables are credentialed (PhysioNet's data use agreement), whatever the
        task's ``access``; the code systems' files (:data:`CODE_FILES`) are public."""
        codes = CODE_FILES.get(_kind(task), {})
        return {role: "public" if role in codes else "credentialed" for role in sources}

    def write_demo(self, task: Record, sources: dict[str, Path]) -> None:
        from clineval.mimic.synthetic_mimic4 import Layout, write_mimic4

        demo = self.settings(task).data.demo
        root = sources["admissions"].parent.parent
        write_mimic4(Layout(root), demo.admissions, demo.seed, demo.labs_per_admission)
        absent = sorted(str(p) for p in sources.values() if not p.is_file())
        if absent:
            raise ValueError(f"the CliBench demo writer did not write {', '.join(absent)}")

    def derive(self, task: Record, sources: dict[str, Path]) -> tuple[list[Record], list[Record]]:
        from clineval.benchmarks.clibench import cases

        examples, exemplars, _ = cases.derive(_kind(task), task["data"], cases.Sources(sources),
                                              exemplar_count(task, 1))
        return examples, exemplars

    def build_requests(self, task: Record, mode: Record, templates: Record,
                       examples: list[Record], exemplars: list[Record],
                       prompt_kind: str = "chat") -> list[Record]:
        from clineval.benchmarks.clibench import prompts

        return prompts.build_requests(mode, templates, examples, exemplars,
                                      exemplar_count(task, 1))

    def input_fields(self, example: Record) -> dict[str, str]:
        from clineval.benchmarks.clibench import prompts

        return {prompts.FIELD: prompts.joined(example)}

    def with_fields(self, example: Record, fields: dict[str, str]) -> Record:
        from clineval.benchmarks.clibench import prompts

        return prompts.shortened(example, fields[prompts.FIELD])

    def style(self, mode: Record) -> str:
        from clineval.benchmarks.clibench import prompts

        return prompts.answer_style(mode)

    def prompt_inputs(self, example: Record, user: str) -> list[str]:
        """The case as the prompt renders it: profile, previous diagnoses, record, radiology
        and labs, each as much as the (possibly truncated) prompt kept."""
        from clineval.benchmarks.clibench import decisions

        return decisions.case_texts(example, user)

    def baseline(self, name: str, task: Record, examples: list[Record]) -> Callable[[Record], str]:
        from clineval.benchmarks.clibench import baselines

        return baselines.get(name)

    def scoring_inputs(self, task: Record, task_name: str, data_root: Path
                       ) -> dict[str, Path]:
        from clineval.benchmarks.clibench import scoring
        from clineval.metrics.embedding import encoder_files

        settings = scoring.settings(task.get("scoring"))
        files = scoring.scoring_files(_kind(task), task.get("scoring") or {},
                                      data_root / "demo" / task_name)
        return {**files, **encoder_files(settings["encoder"])}

    def derived_scoring_inputs(self, task: Record) -> dict[str, DerivedInput]:
        """The embeddings of the task's candidate titles: computed once per ontology and
        encoder by the workflow, then read by every scoring job."""
        from clineval.benchmarks.clibench import pools, scoring

        kind = _kind(task)
        settings = scoring.settings(task.get("scoring"))
        return {pools.EMBEDDINGS: DerivedInput("title_embeddings.npy", {
            "task": kind, "encoder": settings["encoder"],
            "itemids": kind == "labs" and settings["lab_codes"] == "itemid"})}

    def derive_scoring_input(self, role: str, settings: Record, inputs: dict[str, Path],
                             out: Path) -> Record:
        from clineval.benchmarks.clibench import scoring

        return scoring.write_title_embeddings(settings["task"], settings["encoder"],
                                              settings["itemids"], inputs, out)

    def score(self, task: Record, examples: list[Record], generations: list[Record]
              ) -> tuple[list[Record], Record]:
        from clineval.benchmarks.clibench import decisions, prompts, scoring

        kinds = {e["task"] for e in examples}
        if len(kinds) != 1:
            raise ConfigError(f"a CliBench cell holds one task's examples, not {sorted(kinds)}")
        kind = kinds.pop()
        if "inputs" not in task:
            raise ConfigError("CliBench scoring reads the files of the task's 'inputs' (role -> "
                              "path, as scoring_inputs declares them); the task has none")
        files = {role: Path(path) for role, path in task["inputs"].items()
                 if role in scoring.FILE_ROLES}
        scorer = scoring.Scorer(kind, scoring.settings(task.get("scoring")), files,
                                reasoning=prompts.answer_style(task.get("mode") or {})
                                == "reasoning")
        outputs = {g["id"]: g["output"] for g in generations}
        messages = {g["id"]: g.get("messages") for g in generations}
        seen = [decisions.shown(kind, e, messages[e["id"]]) for e in examples]
        rows, summary = scorer.score([e["id"] for e in examples], [e["gold"] for e in examples],
                                     [outputs[e["id"]] for e in examples], seen)
        for row, example in zip(rows, examples, strict=True):
            row["groups"] = example["groups"]
        return rows, summary

    def headline(self, summary: Record) -> dict[str, float | None]:
        """Per level and on average: micro precision, recall and F1 (fractions)."""
        values: dict[str, float | None] = {}
        for level in summary["levels"]:
            for metric in ("precision", "recall", "f1"):
                values[f"{level['name']}.{metric}"] = level[metric]
        for metric in ("precision", "recall", "f1"):
            values[f"average.{metric}"] = summary["average"][metric]
        return values

    def headline_source(self, key: str, summary: Record) -> Record:
        """``<level>.<metric>``: the metric pooled at that level; ``average.<metric>``: at
        every level, then their mean (the explorer states both from the rows' counts)."""
        where, _, metric = key.rpartition(".")
        names = [lv["name"] for lv in summary.get("levels") or []]
        if metric not in ("precision", "recall", "f1") or where not in (*names, "average"):
            return {}
        return {"n": summary.get("n"), "measure": metric,
                "level": names if where == "average" else [where]}

    def reading(self, row: Record, example: Record) -> Reading:
        return row_reading(row, example)

    def answered(self, row: Record) -> bool | None:
        """At least one code was read from the answer (explicit, by title or by embedding)."""
        return bool(row["codes"])

    def summarize_rows(self, task: Record, rows: list[Record]) -> Record:
        from clineval.benchmarks.clibench import scoring

        return scoring.summarize_rows(_kind(task), rows)

    def headline_aggregates(self, task: Record, rows: list[Record]) -> aggregate.Headline:
        from clineval.benchmarks.clibench import scoring

        return scoring.headline_aggregates(_kind(task), rows)

    def outcomes(self, task: Record, rows: list[Record]) -> dict[str, dict[str, int]]:
        """None: CliBench's scores are pooled P/R/F1, not 0/1 accuracies."""
        return {}

    def table(self, spec: Record, cells: list[Record], tasks: dict[str, Record]) -> Any:
        from clineval.benchmarks.clibench import tables

        run = [t for t in tasks.values() if not t.get("skipped")]
        sources = {t["data"]["source"] for t in run}
        counts = sample_sizes(((c["display_name"], c["summary"]["task"], c["summary"]["n"])
                               for c in cells), "admissions", "task")
        notes = [("Data: the project's synthetic MIMIC-IV in the official formats (admissions "
                  f"scored: {counts}), not the paper's evaluation set.") if sources == {"demo"}
                 else f"Data: MIMIC-IV 2.2 (admissions scored: {counts})."]
        notes += [f"Not run: {t['display_name']}. {t['skipped']}" for t in tasks.values()
                  if t.get("skipped")]
        return tables.build_table(spec, cells, [*notes, *spec.get("context_notes", [])])

    def add_score_arguments(self, parser: argparse.ArgumentParser) -> None:
        from clineval.benchmarks.clibench import external

        external.add_arguments(parser)

    def score_external(self, args: argparse.Namespace) -> int:
        from clineval.benchmarks.clibench import external

        return external.run(args)


BENCHMARK = CliBenchBenchmark()
