"""The four CliBench tasks: code system, levels and the settings that choose between the paper's
definitions and the public code's (``compat``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clineval.errors import ConfigError
from clineval.io import Record
from clineval.metrics.code_mapping import CodeSystem
from clineval.metrics.ontologies import atc, icd10cm, icd10pcs, loinc, systems

KINDS = ("diagnoses", "procedures", "labs", "prescriptions")


@dataclass(frozen=True)
class Kind:
    name: str
    system: CodeSystem
    level_names: tuple[str, ...]
    #: How the paper's tables name the levels.
    level_titles: tuple[str, ...]


_KINDS = {
    "diagnoses": Kind("diagnoses", systems.ICD10CM, icd10cm.LEVELS,
                      ("Chapter", "Category group", "Category", "Sub-category", "Full code")),
    "procedures": Kind("procedures", systems.ICD10PCS, icd10pcs.LEVELS,
                       ("Section", "Body system", "Root operation", "Full code")),
    "labs": Kind("labs", systems.LOINC, loinc.LEVELS, ("L1", "L2", "L3", "L4")),
    "prescriptions": Kind("prescriptions", systems.ATC, ("L1", "L2", "L3", "L4"),
                          ("L1", "L2", "L3", "L4")),
}
ATC_LEVELS = {"paper": atc.PAPER_LENGTHS, "code": atc.CODE_LENGTHS}


#: Lab codes read as MIMIC itemids (the public code's ``compat`` reading): any digits.
ITEMID = CodeSystem("MIMIC-IV itemid", re.compile(r"\b\d{5,6}\b"),
                    lambda code: code.strip() if code.strip().isdigit() else None)


def system(kind_name: str, scoring: Record) -> CodeSystem:
    """The code system answers are parsed in (labs under ``lab_codes: itemid``: itemids)."""
    if kind_name == "labs" and scoring["lab_codes"] == "itemid":
        return ITEMID
    return kind(kind_name).system


def kind(name: str) -> Kind:
    if name not in _KINDS:
        raise ConfigError(f"CliBench task {name!r}; tasks: {', '.join(KINDS)}")
    return _KINDS[name]


def levels(kind_name: str, scoring: Record, hierarchy: Path | None) -> list[tuple[str, Any]]:
    """The level functions of a task under its scoring settings."""
    match kind_name:
        case "diagnoses":
            return icd10cm.levels(scoring["coarse"])
        case "procedures":
            return icd10pcs.levels()
        case "labs":
            if hierarchy is None:
                raise ConfigError(
                    "CliBench labs: set scoring.loinc_hierarchy (or --loinc-hierarchy) to the "
                    "LOINC release's ComponentHierarchyBySystem.csv (licensed: loinc.org)"
                )
            tree = loinc.read_hierarchy(hierarchy)
            if scoring["lab_codes"] == "itemid":
                return tree.fallback_levels(scoring["loinc_leaf"])
            return tree.levels(scoring["loinc_leaf"])
        case "prescriptions":
            choice = scoring["atc_levels"]
            if choice not in ATC_LEVELS:
                raise ConfigError(f"scoring.atc_levels={choice!r}; use paper or code")
            return atc.levels(ATC_LEVELS[choice], scoring["coarse"])
    raise ConfigError(f"CliBench task {kind_name!r}; tasks: {', '.join(KINDS)}")
