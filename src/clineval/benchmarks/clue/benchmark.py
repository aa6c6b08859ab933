"""CLUE on the workflow: one task per dataset, sources -> examples -> requests -> scores -> Table 3.

A task's ``data.dataset`` names its contract dataset (``mednli``, ``longhealth_task2``, ...). Its
official files are ``data`` settings named after the loader's arguments (``test``, ``path``,
``qa``, ...); a missing one raises ``MissingSource`` from ``source_files``, so the plan skips the
task with one message and runs the rest of the grid. The demo writes the project's synthetic files
in the official formats into ``<data>/demo/<task>/``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from clineval.benchmarks.base import literal_rows
from clineval.benchmarks.base.exemplars import exemplar_count, pick, shown_exemplars
from clineval.benchmarks.base.headline import LeaderboardColumn, Metric
from clineval.benchmarks.base.reading import Reading
from clineval.benchmarks.base.sources import demo_or_official, require
from clineval.benchmarks.base.standard import StandardBenchmark
from clineval.benchmarks.clue import (
    baselines,
    loaders_medisum,
    loaders_mednli,
    loaders_meqsum,
    loaders_problem_summary,
    longhealth,
    prompts,
    synthetic,
    tables,
)
from clineval.benchmarks.clue.aggregate import (
    PAPER_METRICS,
    dataset_score,
    headline_aggregates,
    summarize_rows,
)
from clineval.benchmarks.clue.datasets import DEMO_FILES, OPTIONS, PHYSIONET, SOURCES
from clineval.benchmarks.clue.extract import ANSWERED
from clineval.benchmarks.clue.reading import reading as row_reading
from clineval.benchmarks.clue.synthetic_longhealth import write_longhealth
from clineval.errors import ConfigError
from clineval.io import Record
from clineval.metrics import copying
from clineval.metrics.aggregate import Headline
from clineval.metrics.embedding import encoder_files
from clineval.metrics.umls import configured_files
from clineval.tables.render import Table

#: LongHealth's demo may also set ``paragraphs`` (document length; the writer's default is 12).
_LONGHEALTH_PARAGRAPHS = 12


#: Each paper metric's label.
METRIC_LABELS = {"accuracy": "accuracy", "rouge_l": "ROUGE-L", "rouge_1": "ROUGE-1",
                 "rouge_2": "ROUGE-2", "bertscore_f1": "BERTScore F1", "umls_f1": "UMLS F1",
                 "em_f1": "EM F1", "ap_f1": "AP F1", "valid_codes": "valid codes"}


def _dataset(task: Record) -> str:
    """The task's ``data.dataset`` (one of ``SOURCES``: the task's schema checks it)."""
    return task["data"]["dataset"]


def _official(data: Any, dataset: str, task_name: str) -> dict[str, Path]:
    """The configured official files (``data``: the task's typed ``data`` settings); raises
    ``MissingSource`` for a required or absent one."""
    needed = dict(SOURCES[dataset])
    if dataset == "medisumcode":
        if data.code_json is not None:
            needed = {"code_json": replace(needed["code_json"], required=True)}
        else:
            del needed["code_json"]
            if data.icd9 == "map":
                needed["icd9_gem"] = replace(needed["icd9_gem"], required=True)
    return {
        name: require(
            getattr(data, name),
            task_name,
            source.description,
            source.where,
            f"tasks.{task_name}.data.{name}",
        )
        for name, source in needed.items()
        if source.required or getattr(data, name) is not None
    }


_LOADERS: dict[str, Callable[..., tuple[list[Record], list[Record]]]] = {
    "mednli": loaders_mednli.load_mednli,
    "meqsum": loaders_meqsum.load_meqsum,
    "problem_summary": loaders_problem_summary.load_problem_summary,
    "medisumqa": loaders_medisum.load_medisumqa,
    "medisumcode": loaders_medisum.load_medisumcode,
}


def _data_note(tasks: dict[str, Record], cells: list[Record]) -> str:
    counts: dict[str, set[int]] = {}
    for cell in cells:
        for dataset, summary in cell["summary"]["datasets"].items():
            counts.setdefault(dataset, set()).add(int(summary["n"]))
    shown = ", ".join(
        f"{dataset} {'/'.join(map(str, sorted(n)))}" for dataset, n in sorted(counts.items())
    )
    run = [t for t in tasks.values() if not t.get("skipped")]
    sources = {t["data"]["source"] for t in run}
    if sources == {"demo"}:
        return (
            f"Data: the project's synthetic demo files in the official formats (examples: "
            f"{shown}), not the paper's test sets."
        )
    demo = sorted(t["display_name"] for t in run if t["data"]["source"] == "demo")
    text = f"Data: the official files (examples: {shown or 'none'})."
    return text + (f" Synthetic demo data for: {', '.join(demo)}." if demo else "")


class ClueBenchmark(StandardBenchmark):
    name = "clue"
    # The versions, with what changed and why: docs/clue.md, "Versions".
    data_version = "2"
    scoring_version = "6"
    baselines = baselines.BASELINES
    #: Per dataset, each paper metric (0-100) and the dataset's score, their mean (the
    #: aggregates: aggregate.py, per dataset present). An accuracy's outcome is 0 or 100.
    metrics = tuple(
        metric for dataset, names in PAPER_METRICS.items() for metric in (
            *(Metric(f"{dataset}.{name}", f"{dataset} {METRIC_LABELS[name]}",
                     outcome="metrics.accuracy" if name == "accuracy" else None)
              for name in names),
            Metric(f"{dataset}.score", f"{dataset} score")))
    leaderboard = LeaderboardColumn("CLUE (mean dataset score, few-shot)", "one_shot",
                                    "*.score", about="the CLUE mean dataset score")
    literal_reading = ("a LongHealth letter whose option text is another option's or none, or "
                       "that repeats the prompt's format example, MeDiSumCode codes that "
                       "repeat an exemplar's answer, and a summary that only replays an "
                       "exemplar's answer (docs/clue.md)")

    def source_files(self, task: Record, data_root: Path, task_name: str) -> dict[str, Path]:
        data, dataset = self.settings(task).data, _dataset(task)
        return demo_or_official(task, task_name, data_root, DEMO_FILES[dataset],
                                lambda: _official(data, dataset, task_name))

    def source_tiers(self, task: Record, sources: dict[str, Path]) -> dict[str, str]:
        """Each official file's least tier (:data:`SOURCES`): PhysioNet's are credentialed."""
        declared = SOURCES[_dataset(task)]
        return {role: declared[role].tier if role in declared else PHYSIONET
                for role in sources}

    def write_demo(self, task: Record, sources: dict[str, Path]) -> None:
        dataset = _dataset(task)
        demo = self.settings(task).data.demo
        seed, size = demo.seed, demo.size
        out_dir = next(iter(sources.values())).parent
        if dataset.startswith("longhealth_"):
            patients = synthetic.DEFAULT_SIZES["longhealth"] if size is None else size
            paragraphs = demo.paragraphs or _LONGHEALTH_PARAGRAPHS
            write_longhealth(sources["path"], patients, seed, paragraphs)
            return
        written = synthetic.write_demo(dataset, out_dir, seed=seed, size=size)
        absent = sorted(str(p) for n, p in sources.items() if written.get(n) != p)
        if absent:
            raise ValueError(f"the CLUE {dataset} demo writer did not write {', '.join(absent)}")

    def derive(self, task: Record, sources: dict[str, Path]) -> tuple[list[Record], list[Record]]:
        dataset = _dataset(task)
        data = self.settings(task).data
        seed = data.seed
        options = {k: getattr(data, k) for k in OPTIONS.get(dataset, {})}
        if dataset.startswith("longhealth_"):
            examples, exemplars = longhealth.load_longhealth(
                sources["path"], int(dataset[-1]), seed=seed, **options
            )
        else:
            count = exemplar_count(task, prompts.PAPER_SHOTS[dataset])
            examples, exemplars = _LOADERS[dataset](
                **sources, n_exemplars=count, seed=seed, **options
            )
        if data.limit is not None:
            kept = {e["id"] for e in pick(examples, data.limit, seed)}
            examples = [e for e in examples if e["id"] in kept]
        return examples, exemplars

    def style(self, mode: Record) -> str:
        return prompts.style(mode)

    def templates_for(self, templates: Record, example: Record) -> Record:
        return prompts.templates_for(templates, example["dataset"])

    def prompt_values(self, example: Record) -> dict[str, str]:
        return dict(example["fields"])

    def answer_values(self, exemplar: Record) -> dict[str, str]:
        return prompts.reference_text(exemplar)

    def exemplars_for(self, task: Record, mode: Record, example: Record,
                      exemplars: list[Record]) -> list[Record]:
        """The first exemplars of the example's dataset, as many as the paper showed."""
        dataset = example["dataset"]
        if dataset not in prompts.PAPER_SHOTS:
            raise ValueError(f"example {example['id']!r}: unknown CLUE dataset {dataset!r}")
        count = shown_exemplars(task, mode, prompts.PAPER_SHOTS[dataset])
        chosen = [e for e in exemplars if e["dataset"] == dataset][:count]
        if len(chosen) < count:
            raise ValueError(
                f"CLUE {dataset}: {count} exemplar(s) requested, {len(chosen)} available"
            )
        return chosen

    def input_fields(self, example: Record) -> dict[str, str]:
        return dict(example["fields"])

    def with_fields(self, example: Record, fields: dict[str, str]) -> Record:
        return {**example, "fields": {**example["fields"], **fields}}

    def prompt_inputs(self, example: Record, user: str) -> list[str]:
        """The example's ``fields`` the user message shows (its note, question, options), not
        its reference or bookkeeping (``meta``)."""
        return copying.shown_inputs(example.get("fields") or {}, user)

    def baseline(self, name: str, task: Record, examples: list[Record]) -> Callable[[Record], str]:
        return baselines.get(name, (task.get("scoring") or {}).get("baselines"), examples)

    def scoring_inputs(self, task: Record, task_name: str, data_root: Path
                       ) -> dict[str, Path]:
        """The BERTScore encoder's files (and rescaling baseline) for the summarisation
        datasets; the UMLS linker's files when ``umls.linker_dir`` names them."""
        metrics = PAPER_METRICS[_dataset(task)]
        settings = self.settings(task).scoring
        files: dict[str, Path] = {}
        if "bertscore_f1" in metrics:
            bert = settings.bertscore
            try:
                files |= encoder_files(bert.model)
            except ValueError as err:
                raise ConfigError(f"tasks.{task_name}.scoring.bertscore.model: {err}") from err
            if bert.rescale_with_baseline and bert.baseline_path:
                files["bertscore:baseline"] = Path(bert.baseline_path)
        if "umls_f1" in metrics and settings.umls.enabled:
            files |= configured_files(dataclasses.asdict(settings.umls))
        return files

    def score(
        self, task: Record, examples: list[Record], generations: list[Record]
    ) -> tuple[list[Record], Record]:
        from clineval.benchmarks.clue import scoring  # ROUGE and BERTScore load slowly

        return scoring.score(task, examples, generations)

    def headline(self, summary: Record) -> dict[str, float | None]:
        """Every metric of every dataset of the cell and the dataset's score (the mean of the
        paper's metrics it has), on the paper's 0-100 scale."""
        numbers = {
            f"{name}.{metric}": value
            for name, part in sorted(summary["datasets"].items())
            for metric, value in sorted(part["metrics"].items())
        }
        for name, part in summary["datasets"].items():
            numbers[f"{name}.score"] = dataset_score(name, part["metrics"])
        return dict(sorted(numbers.items()))

    def reading(self, row: Record, example: Record) -> Reading:
        return row_reading(row, example)

    def answered(self, row: Record) -> bool | None:
        """A label, letter or code list was found; summaries are the whole output."""
        return None if row["status"] in ("marked", "whole_output") else row["status"] in ANSWERED

    def summarize_rows(self, task: Record, rows: list[Record]) -> Record:
        """The datasets' summaries and, where some row reads otherwise under the paper's
        literal reading, that reading's summary (``literal``)."""
        summary = summarize_rows(rows)
        literal = literal_rows(rows)
        if literal is not None:
            summary["literal"] = summarize_rows(literal)
        return summary

    def headline_aggregates(self, task: Record, rows: list[Record]) -> Headline:
        return headline_aggregates(rows)

    def outcomes(self, task: Record, rows: list[Record]) -> dict[str, dict[str, int]]:
        """Right (1) or wrong (0) per example of the accuracy datasets (0/100 in the rows)."""
        found: dict[str, dict[str, int]] = {}
        for row in rows:
            if "accuracy" in PAPER_METRICS[row["dataset"]]:
                found.setdefault(f"{row['dataset']}.accuracy", {})[row["id"]] = int(
                    row["metrics"]["accuracy"] == 100.0)
        return found

    def table(self, spec: Record, cells: list[Record], tasks: dict[str, Record]) -> Table:
        policies = {self.settings(t).scoring.missing_metric for t in tasks.values()}
        if len(policies) != 1:
            raise ConfigError(
                f"the tasks of a CLUE table must share scoring.missing_metric, not {policies}"
            )
        skipped = [
            f"Not run: {t['display_name']}. {t['skipped']}"
            for t in tasks.values()
            if t.get("skipped")
        ]
        notes = [_data_note(tasks, cells), *skipped, *spec.get("context_notes", [])]
        return tables.build_table(
            {**spec, "context_notes": notes}, cells, missing_metric=policies.pop()
        )


BENCHMARK = ClueBenchmark()
