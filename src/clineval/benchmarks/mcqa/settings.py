"""The MCQA benchmark's settings: its task's ``data``, ``exemplars`` and ``scoring`` keys and its
table's, with their types and ranges (docs/extending.md)."""

from __future__ import annotations

from dataclasses import dataclass

from clineval.benchmarks.base.headline import choices
from clineval.benchmarks.base.settings import MISSING, OFFICIAL, Exemplars, setting
from clineval.benchmarks.base.sources import SOURCE_KINDS


def _metrics() -> list[str]:
    """The headline metrics a table may show: those the benchmark declares."""
    from clineval.benchmarks.mcqa.benchmark import BENCHMARK

    return choices(BENCHMARK.metrics)


@dataclass
class Demo:
    seed: int = 0
    n: int = setting(16, ge=2)  # questions; one is held out as the exemplar per shot


@dataclass
class Data:
    source: str = setting("demo", choices=SOURCE_KINDS, noun="sources")
    path: str | None = setting(None, used_when=OFFICIAL)  # the official questions (JSONL)
    demo: Demo | None = None


@dataclass
class McqaExemplars(Exemplars):
    seed: int = 0  # which questions are held out as exemplars


@dataclass
class Task:
    data: Data = MISSING
    exemplars: McqaExemplars | None = None


@dataclass
class ByMode:
    """``mcqa_by_mode``: the headline metrics by model and prompting mode."""

    metrics: list[str] = setting(factory=lambda: ["accuracy"], choices=_metrics, noun="metrics")
    decimals: int = setting(2, ge=0)
    percent: bool = True
    mode_labels: dict[str, str] | None = None


TASK = Task
TABLES = {"mcqa_by_mode": ByMode}
