"""MedCalc-Bench's settings: what its tasks (``conf/task/medcalc.yaml``) and its Table 2 read,
with their types, ranges and choices (docs/medcalc.md describes each)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from clineval.benchmarks.base.settings import MISSING, OFFICIAL, Exemplars, setting
from clineval.benchmarks.base.sources import SOURCE_KINDS
from clineval.benchmarks.medcalc.calculators.base import CALCULATORS, CONVENTIONS
from clineval.benchmarks.medcalc.extract import EXTRACTIONS
from clineval.benchmarks.medcalc.labels import LABEL_SOURCES, MISSING_LABELS
from clineval.benchmarks.medcalc.loader import VERSIONS, check_version

#: Where one-shot exemplars come from: the project's own, or the official file.
EXEMPLAR_SOURCES = ("project", "official")
#: How Table 2 prints a standard error: as a proportion (the paper's) or in percentage points.
SE_SCALES = ("fraction", "points")


def _calculators() -> list[int]:
    import clineval.benchmarks.medcalc.calculators  # noqa: F401  (registers every family)

    return sorted(CALCULATORS)


@dataclass
class Demo:
    seed: int = 0
    per_calculator: int = setting(3, ge=0)
    calculators: list[int] | None = setting(None, choices=_calculators, noun="calculator ids")


@dataclass
class Data:
    source: str = setting("demo", choices=SOURCE_KINDS, noun="sources")
    path: str | None = setting(None, used_when=OFFICIAL)  # the official test_data.csv
    version: str = setting("1.0", choices=VERSIONS, noun="layouts", normalize=check_version)
    demo: Demo | None = None


@dataclass
class MedCalcExemplars(Exemplars):
    source: str = setting("project", choices=EXEMPLAR_SOURCES, noun="sources")
    official_path: str | None = setting(None, used_when=OFFICIAL)
    replace_leaked: bool = False
    seed: int = 1000


@dataclass
class Oracle:
    conventions: str = setting("official", choices=CONVENTIONS, noun="conventions")
    convention_overrides: dict[Any, str] | None = setting(None, choices=CONVENTIONS,
                                                          noun="conventions")


@dataclass
class Constant:
    decimal: str = "0"
    integer: str = "0"
    date: str = "01/01/2000"
    weeks_days: str = "(0, 0)"


@dataclass
class Baselines:
    oracle: Oracle | None = None
    constant: Constant | None = None


@dataclass
class Scoring:
    extractions: list[str] = setting(factory=lambda: list(EXTRACTIONS), choices=EXTRACTIONS,
                                     noun="extraction settings")
    labels: str = setting("dataset", choices=LABEL_SOURCES, noun="label sources")
    label_file: str | None = setting(None, used_when=("labels", "file"))
    missing_labels: str = setting("drop", choices=MISSING_LABELS, noun="values")
    conventions: str = setting("official", choices=CONVENTIONS, noun="conventions")
    convention_overrides: dict[Any, str] | None = setting(None, choices=CONVENTIONS,
                                                          noun="conventions")
    baselines: Baselines | None = None


@dataclass
class Task:
    data: Data = MISSING
    exemplars: MedCalcExemplars | None = None
    scoring: Scoring | None = None
    allow_abstention: bool = False  # the prompt allows "N/A" (templates: abstention)


@dataclass
class StdError:
    show: bool = True
    scale: str = setting("fraction", choices=SE_SCALES, noun="scales")
    decimals: int = setting(2, ge=0)


@dataclass
class Table2:
    """``medcalc_table2``: accuracy per category, one block per mode (the paper's Table 2)."""

    extractions: list[str] | None = setting(None, choices=EXTRACTIONS,
                                            noun="extraction settings")
    decimals: int = setting(2, ge=0)
    std_error: StdError | None = None


TASK = Task
TABLES = {"medcalc_table2": Table2}
