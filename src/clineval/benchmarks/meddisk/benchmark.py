"""MedDisK on the workflow: a knowledge base -> (disease, aspect) examples -> requests -> tiers
and 0-10 scores -> Tables 4 and 5 and the per-aspect scores.

One task per language (``meddisk_zh``, ``meddisk_en``) over one KB file (``data.kb``); the demo
writes the project's synthetic KB into ``<data>/demo/<task>/``. See docs/meddisk.md.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from clineval.benchmarks.base.exemplars import exemplar_count
from clineval.benchmarks.base.headline import LeaderboardColumn, Metric
from clineval.benchmarks.base.reading import Reading
from clineval.benchmarks.base.sources import demo_or_official, require
from clineval.benchmarks.base.standard import StandardBenchmark
from clineval.benchmarks.meddisk import aggregate, baselines, prompts, score_cli, tables
from clineval.benchmarks.meddisk.derive import derive
from clineval.benchmarks.meddisk.prompts import PAPER_DEMOS
from clineval.benchmarks.meddisk.reading import reading as row_reading
from clineval.benchmarks.meddisk.synthetic import write_demo_kb
from clineval.errors import ConfigError
from clineval.io import Record
from clineval.metrics.aggregate import Headline
from clineval.tables.render import Table

DEMO_KB = "meddisk_demo_kb.jsonl"
WHERE = ("your own copy in the MedDisK KB format (docs/meddisk.md): the paper's knowledge base "
         "is not released")


class MedDisKBenchmark(StandardBenchmark):
    name = "meddisk"
    # The versions, with what changed and why: docs/meddisk.md, "Versions".
    data_version = "2"
    scoring_version = "5"
    baselines = baselines.BASELINES
    #: The score (0-10), the macro score over aspects and the averaged tier shares (the
    #: aggregates: aggregate.py; the macro score's depends on the aspects of the rows).
    metrics = (Metric("score", "Score (0-10)"),
               Metric("macro_score", "Macro score over aspects (0-10)"),
               Metric("share.cw", "Completely wrong (share)", lower_is_better=True),
               Metric("share.pc", "Partially correct (share)"),
               Metric("share.bc", "Basically correct (share)"))
    leaderboard = LeaderboardColumn("MedDisK (score 0-10, zh and en)", "one_shot", "score",
                                    about="the MedDisK score")
    literal_reading = ("an empty, cut or prompt-copied answer as \"none\" (full points where the "
                       "reference is none) and a list marker as the number (App. D, §3.2.1)")

    def source_files(self, task: Record, data_root: Path, task_name: str) -> dict[str, Path]:
        return demo_or_official(
            task, task_name, data_root, {"kb": DEMO_KB},
            lambda: {"kb": require(task["data"].get("kb"), task_name,
                                   "a MedDisK knowledge base (JSONL)", WHERE,
                                   f"tasks.{task_name}.data.kb", benchmark="MedDisK")},
        )

    def source_tiers(self, task: Record, sources: dict[str, Path]) -> dict[str, str]:
        """The knowledge base is unreleased (the paper's is not public; a user's own KB is
        raised to ``private`` by the task's ``access``)."""
        return dict.fromkeys(sources, "unreleased")

    def write_demo(self, task: Record, sources: dict[str, Path]) -> None:
        write_demo_kb(sources["kb"])

    def derive(self, task: Record, sources: dict[str, Path]) -> tuple[list[Record], list[Record]]:
        return derive(task["data"], sources["kb"], exemplar_count(task, PAPER_DEMOS))

    def style(self, mode: Record) -> str:
        """Always ``direct``: the paper's demonstrations answer in one sentence."""
        return "direct"

    def build_requests(self, task: Record, mode: Record, templates: Record,
                       examples: list[Record], exemplars: list[Record],
                       prompt_kind: str = "chat") -> list[Record]:
        return prompts.build_requests(task, mode, templates, examples, exemplars, prompt_kind)

    def baseline(self, name: str, task: Record, examples: list[Record]) -> Callable[[Record], str]:
        return baselines.get(name, (task.get("scoring") or {}).get("baselines"), examples)

    def scoring_inputs(self, task: Record, task_name: str, data_root: Path
                       ) -> dict[str, Path]:
        from clineval.benchmarks.meddisk.scoring import DEFAULT_ENCODER
        from clineval.metrics.embedding import encoder_files

        settings = self.settings(task).scoring
        try:
            files = encoder_files(settings.encoder or DEFAULT_ENCODER)
        except ValueError as err:
            raise ConfigError(f"tasks.{task_name}.scoring.encoder: {err}") from err
        if settings.synonyms:
            files["synonyms"] = Path(settings.synonyms)
        return files

    def score(self, task: Record, examples: list[Record], generations: list[Record]
              ) -> tuple[list[Record], Record]:
        from clineval.benchmarks.meddisk import scoring

        return scoring.score(task, examples, generations)

    def headline(self, summary: Record) -> dict[str, float | None]:
        return {"score": summary["score"], "macro_score": summary["macro_score"],
                **{f"share.{t}": v for t, v in summary["shares"].items()}}

    def headline_source(self, key: str, summary: Record) -> Record:
        """The score: the mean of the examples' points; the macro score: the mean of each
        aspect's mean; ``share.<tier>``: the mean of each example's share of metrics in it."""
        of = {"score": ("points", None), "macro_score": ("points", "aspect")}.get(
            key, (key.removeprefix("share."), None) if key.startswith("share.") else None)
        if of is None:
            return {}
        return {"n": summary.get("n"), "measure": "mean", "of": of[0],
                **({"by": of[1]} if of[1] else {})}

    def reading(self, row: Record, example: Record) -> Reading:
        return row_reading(row, example)

    def answered(self, row: Record) -> bool | None:
        """A careful grader sees an answer in the response (docs/meddisk.md, "Copied text and
        readings"), read after the answer pattern of App. D or, where it did not match, in the
        whole response: the explorer's verdict is then not ``unanswered``."""
        return not row.get("unanswered")

    def summarize_rows(self, task: Record, rows: list[Record]) -> Record:
        from clineval.benchmarks.meddisk import scoring

        return scoring.summarize(rows, scoring.settings_of(task))

    def headline_aggregates(self, task: Record, rows: list[Record]) -> Headline:

        return aggregate.headline_aggregates(rows)

    def outcomes(self, task: Record, rows: list[Record]) -> dict[str, dict[str, int]]:
        """None: MedDisK's scores are tier shares and points, not 0/1 accuracies."""
        return {}

    def table(self, spec: Record, cells: list[Record], tasks: dict[str, Record]) -> Table:
        return tables.build_table(spec, cells, tasks)

    def add_score_arguments(self, parser: argparse.ArgumentParser) -> None:
        score_cli.add_arguments(parser)

    def score_external(self, args: argparse.Namespace) -> int:
        return score_cli.score(args)


BENCHMARK = MedDisKBenchmark()
