"""MedCalc-Bench calculators, written from the published formulas and scoring rules.

Importing this package imports every module in it, and each module registers its calculators
in :data:`CALCULATORS`; :func:`compute_row` applies one to a dataset row's Relevant Entities.
"""

import importlib
import pkgutil

from clineval.benchmarks.medcalc.calculators.base import (
    CALCULATORS,
    CONVENTIONS,
    CalcResult,
    Calculator,
    Conventions,
    MissingEntity,
    OutputType,
    UnknownCalculator,
    compute_row,
    get,
    register,
)

_SHARED = {"base", "units"}
for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if _module not in _SHARED:
        importlib.import_module(f"{__name__}.{_module}")

__all__ = [
    "CALCULATORS",
    "CONVENTIONS",
    "CalcResult",
    "Calculator",
    "Conventions",
    "MissingEntity",
    "OutputType",
    "UnknownCalculator",
    "compute_row",
    "get",
    "register",
]
