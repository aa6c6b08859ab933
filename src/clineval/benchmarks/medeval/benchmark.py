"""MedEval on the workflow: one task per paper task, chest and miscellaneous domains inside.

A task's ``data.task`` names what it is (``abnormality``, ``ambiguity``, ``rewriting``,
``codes``, ``summarization``); its files are ``data`` settings (``sentences``; ``reports``,
``openi``, ``mimic_cxr``, ``chexpert``). A missing file raises ``MissingSource`` from
``source_files``: the plan skips the task with one message and runs the rest.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from clineval.benchmarks.base.exemplars import exemplar_count
from clineval.benchmarks.base.headline import LeaderboardColumn, Metric
from clineval.benchmarks.base.reading import Reading
from clineval.benchmarks.base.standard import StandardBenchmark
from clineval.benchmarks.medeval import baselines, prompts, sources, tables
from clineval.benchmarks.medeval import examples as task_examples
from clineval.benchmarks.medeval.examples import LABELS, PAPER_SHOTS, SENTENCE_TASKS
from clineval.benchmarks.medeval.reading import reading as row_reading
from clineval.io import Record
from clineval.metrics.aggregate import Headline
from clineval.tables.render import Table

#: Each metric of a domain group or domain (``groups.<group>.<metric>``,
#: ``domains.<domain>.<metric>``) -> its label (the aggregates: scoring.py, per task kind).
METRIC_LABELS = {
    "accuracy": "accuracy", "f1": "F1", "qualified_rate": "qualified rate",
    "avg_accuracy": "average per-code accuracy", "emr": "exact match ratio",
    "rouge_1": "ROUGE-1", "rouge_2": "ROUGE-2", "rouge_l": "ROUGE-L", "rouge_sum": "ROUGE sum",
    "bleu4": "BLEU-4",
    **{f"acc_{short}_{side}": f"{label} accuracy of the {side}" for short, label in
       (("am", "ambiguity"), ("ab", "abnormality")) for side in ("original", "rewrite")},
    "dacc_am": "ambiguity accuracy lost by the rewrite",
    # the loss of abnormality accuracy a rewrite causes (content distortion, Table 3)
    "dacc_ab": "abnormality accuracy lost by the rewrite",
    **{f"judge_qr_{short}_{side}": f"{label} judge's qualified rate on the {side}"
       for short, label in (("am", "ambiguity"), ("ab", "abnormality"))
       for side in ("original", "rewrite")},
}


class MedEvalBenchmark(StandardBenchmark):
    name = "medeval"
    # The versions, with what changed and why: docs/medeval.md, "Versions".
    data_version = "2"
    scoring_version = "5"
    literal_reading = (
        "an output that repeats its input sentence or report, or an exemplar's (a label word "
        "inside a repeated sentence; a repeated or irrelevant rewrite and a repeated report "
        "scored by BLEU, ROUGE and the judges as written)")
    baselines = baselines.BASELINES
    metrics = tuple(Metric(f"*.{name}", label, outcome="correct" if name == "accuracy" else None,
                           lower_is_better=name == "dacc_ab")
                    for name, label in METRIC_LABELS.items())
    #: NLU accuracy over the sentence tasks; the rewriting task (scored by its judges) is not
    #: among the tasks a model is listed as run on.
    leaderboard = LeaderboardColumn(
        "MedEval (NLU accuracy %, zero-shot)", "zero_shot", "groups.*.accuracy", scale=100,
        tasks=lambda task: task["data"]["task"] in LABELS,
        shown=lambda task: task["data"]["task"] != "rewriting",
        about="MedEval NLU accuracy")

    def source_files(self, task: Record, data_root: Path, task_name: str) -> dict[str, Path]:
        return sources.source_files(task, data_root, task_name)

    def source_tiers(self, task: Record, sources_: dict[str, Path]) -> dict[str, str]:
        return sources.source_tiers(sources_)

    def write_demo(self, task: Record, sources_: dict[str, Path]) -> None:
        sources.write_demo(sources_, self.settings(task).data.seed)

    def derive(self, task: Record, sources_: dict[str, Path]) -> tuple[list[Record], list[Record]]:
        data = task["data"]
        kind = sources.task_kind(task)
        records = sources.load_records(kind, data, sources_)
        chest = tuple(data.get("chest_domains") or ("chest",))
        make = (task_examples.sentence_example if kind in SENTENCE_TASKS
                else task_examples.report_example)
        built = [e for e in (make(kind, r, chest) for r in records) if e is not None]
        typed = self.settings(task)
        exemplars = typed.exemplars
        return task_examples.build(
            kind, built,
            count=exemplar_count(task, PAPER_SHOTS[kind]),
            draws=exemplars.draws,
            seed=typed.data.seed if exemplars.seed is None else exemplars.seed,
            limit=typed.data.limit,
        )

    def style(self, mode: Record) -> str:
        """Always ``direct``: the paper asks for direct answers only (prompts.py)."""
        return "direct"

    def build_requests(self, task: Record, mode: Record, templates: Record,
                       examples: list[Record], exemplars: list[Record],
                       prompt_kind: str = "chat") -> list[Record]:
        return prompts.build_requests(task, mode, templates, examples, exemplars)

    def input_fields(self, example: Record) -> dict[str, str]:
        key = "report" if "report" in example["fields"] else "sentence"
        return {key: example["fields"][key]}

    def with_fields(self, example: Record, fields: dict[str, str]) -> Record:
        return {**example, "fields": {**example["fields"], **fields}}

    def baseline(self, name: str, task: Record, examples: list[Record]) -> Callable[[Record], str]:
        return baselines.get(name)

    def scoring_inputs(self, task: Record, task_name: str, data_root: Path
                       ) -> dict[str, Path]:
        """The rewriting judges' files: a model judge's prompt templates; the scikit-learn
        judges' training file (official data; the demo's is regenerated from code and
        settings, which the scoring identity already holds)."""
        if task["data"].get("task") != "rewriting":
            return {}
        spec = (task.get("scoring") or {}).get("classifiers") or {}
        if spec.get("kind") == "model":
            return {"judge_templates": Path(spec["templates"])} if spec.get("templates") else {}
        if task["data"].get("source") == "demo":
            return {}
        data = spec.get("data") or {}
        return {"classifier_train": Path(data["sentences"])} if data.get("sentences") else {}

    def score(self, task: Record, examples: list[Record],
              generations: list[Record]) -> tuple[list[Record], Record]:
        from clineval.benchmarks.medeval import scoring  # ROUGE, BLEU, scikit-learn load slowly

        return scoring.score(task, examples, generations)

    def headline(self, summary: Record) -> dict[str, float | None]:
        """Every metric of every domain group and domain (per-code accuracies left out)."""
        return {
            f"{level}.{part}.{metric}": value
            for level in ("groups", "domains")
            for part, metrics in sorted((summary.get(level) or {}).items())
            for metric, value in sorted(metrics.items())
            if metric not in ("per_code", "n")
        }

    def headline_source(self, key: str, summary: Record) -> Record:
        """``<groups|domains>.<part>.<metric>``: that part's examples, their n and, for an
        accuracy that is a share of them, the right ones."""
        level, _, rest = key.partition(".")
        part, _, metric = rest.rpartition(".")
        found = (summary.get(level) or {}).get(part)
        if level not in ("groups", "domains") or not found:
            return {}
        source: Record = {"where": {{"groups": "group", "domains": "domain"}[level]: part},
                          "n": found.get("n")}
        value, n = found.get(metric), found.get("n")
        if metric == "accuracy" and n and value is not None and abs(
                round(value * n) / n - value) < 1e-9:
            source["right"] = round(value * n)
        return source

    def reading(self, row: Record, example: Record) -> Reading:
        return row_reading(row, example)

    def answered(self, row: Record) -> bool | None:
        """A qualified answer: a label, every code of the domain, or a rewrite or summary that
        is no copy of the prompt and not empty (readings.py)."""
        return row.get("qualified")

    def summarize_rows(self, task: Record, rows: list[Record]) -> Record:
        from clineval.benchmarks.medeval import scoring

        return scoring.summarize_rows(task, rows)

    def headline_aggregates(self, task: Record, rows: list[Record]) -> Headline:
        from clineval.benchmarks.medeval import scoring

        return scoring.headline_aggregates(task, rows)

    def outcomes(self, task: Record, rows: list[Record]) -> dict[str, dict[str, int]]:
        """Correct (1) or not (0) per evaluated example, for the sentence tasks' accuracy per
        domain group and domain, when off-format answers count as wrong (the default)."""
        from clineval.benchmarks.medeval.examples import LABELS

        if self.settings(task).scoring.unqualified != "wrong":
            return {}
        found: dict[str, dict[str, int]] = {}
        for row in rows:
            if row["evaluated"] and row["task"] in LABELS:
                for level, part in (("groups", row["group"]), ("domains", row["domain"])):
                    found.setdefault(f"{level}.{part}.accuracy", {})[row["id"]] = int(
                        row["correct"])
        return found

    def table(self, spec: Record, cells: list[Record], tasks: dict[str, Record]) -> Table:
        return tables.build_table(spec, cells, tasks)

    def table_warnings(self, name: str, spec: Record, tasks: dict[str, Record]) -> list[str]:
        return tables.empty_groups(name, spec, tasks)

    def add_score_arguments(self, parser: argparse.ArgumentParser) -> None:
        from clineval.benchmarks.medeval import external

        external.add_arguments(parser)

    def score_external(self, args: argparse.Namespace) -> int:
        from clineval.benchmarks.medeval import external

        return external.score(args)


BENCHMARK = MedEvalBenchmark()
