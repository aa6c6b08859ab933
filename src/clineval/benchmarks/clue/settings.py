"""CLUE's settings: what its tasks (``conf/task/clue_*.yaml``, ``conf/task/clue/scoring.yaml``)
and its Table 3 read, with their types, ranges and choices (docs/clue.md describes each).

A task's ``data`` keys depend on its ``data.dataset``: the loader's file arguments
(``SOURCES``) and options (``OPTIONS``) of that dataset, beside the keys every dataset has.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, make_dataclass
from functools import cache
from typing import Any

from clineval.benchmarks.base.settings import MISSING, OFFICIAL, Exemplars, setting
from clineval.benchmarks.base.sources import SOURCE_KINDS
from clineval.benchmarks.clue.aggregate import LEVELS, MISSING_POLICIES
from clineval.benchmarks.clue.datasets import OPTIONS, SOURCES
from clineval.benchmarks.clue.loaders_medisum import ICD9_POLICIES
from clineval.metrics.bertscore import BertScoreSettings
from clineval.metrics.umls import UmlsSettings

#: The checks of a dataset's options beyond their type (their defaults: ``OPTIONS``).
_OPTION_CHECKS: dict[str, dict[str, Any]] = {
    "n_distractors": {"ge": 0}, "repeats": {"ge": 1}, "n": {"ge": 1},
    "icd9": {"choices": ICD9_POLICIES, "noun": "ICD-9 policies"},
}


def _datasets() -> list[str]:
    return list(SOURCES)


@dataclass
class Demo:
    seed: int = 0
    size: int | None = setting(None, ge=1)  # examples (LongHealth: patients); null: default


@dataclass
class LongHealthDemo(Demo):
    paragraphs: int | None = setting(None, ge=1)  # document length (the writer's default: 12)


@dataclass
class Data:
    """The ``data`` keys of every CLUE task."""

    dataset: str = setting(MISSING, choices=_datasets, noun="CLUE datasets")
    source: str = setting("demo", choices=SOURCE_KINDS, noun="sources")
    seed: int = 0
    limit: int | None = setting(None, ge=1)
    demo: Demo | None = None


@dataclass
class Rouge:
    use_stemmer: bool = False


@dataclass(frozen=True)
class Umls(UmlsSettings):
    enabled: bool = True  # false: no UMLS F1 (reported n/a)


@dataclass
class Codes:
    count_repeats: bool = False


@dataclass
class RandomCodes:
    count: int | None = setting(None, ge=1)  # codes per example; null: as many as the reference


@dataclass
class Baselines:
    seed: int = 0
    random_codes: RandomCodes | None = None


@dataclass
class Scoring:
    rouge: Rouge | None = None
    bertscore: BertScoreSettings | None = None
    umls: Umls | None = None
    codes: Codes | None = None
    missing_metric: str = setting("drop", choices=MISSING_POLICIES, noun="policies")
    baselines: Baselines | None = None


@dataclass
class Task:
    data: Data = MISSING
    exemplars: Exemplars | None = None
    scoring: Scoring | None = None


@cache
def _task_of(dataset: str) -> type:
    """The task schema of one dataset: its files and options in ``data``."""
    fields: list[Any] = [(name, str | None, setting(None, used_when=OFFICIAL))
                         for name in SOURCES[dataset]]
    for name, default in OPTIONS.get(dataset, {}).items():
        fields.append((name, type(default), setting(default, **_OPTION_CHECKS.get(name, {}))))
    if dataset.startswith("longhealth_"):
        fields.append(("demo", LongHealthDemo | None, None))
    data = make_dataclass(f"Data_{dataset}", fields, bases=(Data,))
    return make_dataclass(f"Task_{dataset}", [("data", data, MISSING)], bases=(Task,))


def task_schema(task: Mapping[str, Any]) -> type:
    """The schema of a task by its ``data.dataset`` (an unknown one: the common keys, whose
    check names the datasets)."""
    data = task.get("data")
    dataset = data.get("dataset") if isinstance(data, Mapping) else None
    return _task_of(dataset) if dataset in _datasets() else Task


@dataclass
class Table3:
    """``clue_table3``: the datasets' scores by level (the paper's Table 3)."""

    levels: list[str] | None = setting(None, choices=LEVELS, noun="levels")
    decimals: int = setting(2, ge=0)


TASK = task_schema
TABLES = {"clue_table3": Table3}
