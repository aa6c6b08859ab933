"""The MCQA benchmark's settings: its task's ``data``, ``exemplars`` and ``scoring`` keys and its
table's, with their types and ranges (docs/extending.md)."""

from __future__ import annotations

from dataclasses import dataclass

from clineval.benchmarks.base.settings import (
    MISSING,
    OFFICIAL,
    HeldOut,
    by_mode_table,
    setting,
)
from clineval.benchmarks.base.sources import SOURCE_KINDS


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
class Task:
    data: Data = MISSING
    exemplars: HeldOut | None = None  # seed: which questions are held out


TASK = Task
TABLES = {"mcqa_by_mode": by_mode_table("mcqa_by_mode", "clineval.benchmarks.mcqa.benchmark")}
