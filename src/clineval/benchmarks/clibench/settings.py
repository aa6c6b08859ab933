"""CliBench's settings: what its tasks (``conf/task/clibench_*.yaml``) and its tables read, with
their types, ranges and choices (docs/clibench.md describes each).

Many settings choose between the paper's reading (``paper``) and the public code's (``code``).
"""

from __future__ import annotations

from dataclasses import dataclass

from clineval.benchmarks.base.settings import MISSING, OFFICIAL, Exemplars, setting
from clineval.benchmarks.base.sources import SOURCE_KINDS
from clineval.benchmarks.clibench.kinds import ATC_LEVELS, KINDS
from clineval.metrics.hierarchical import EMPTY_POLICIES
from clineval.metrics.ontologies.icd10cm import COARSE

#: The paper's reading of a step, or the public code's.
PAPER_OR_CODE = ("paper", "code")
#: Lab targets: LOINC codes through the itemid map, or the MIMIC itemids themselves.
LAB_CODES = ("loinc", "itemid")


@dataclass
class Sample:
    k: int | None = setting(None, ge=1)  # admissions per label value; null: the paper's K
    min_per_stratum: int | None = setting(None, ge=0)
    seed: int = 0
    limit: int | None = setting(None, ge=1)


@dataclass
class Demo:
    admissions: int = setting(40, ge=1)
    labs_per_admission: int = setting(14, ge=0)
    seed: int = 0


@dataclass
class Data:
    task: str = setting(MISSING, choices=KINDS, noun="CliBench tasks")
    source: str = setting("demo", choices=SOURCE_KINDS, noun="sources")
    hosp: str | None = setting(None, used_when=OFFICIAL)  # MIMIC-IV 2.2 hosp/
    note: str | None = setting(None, used_when=OFFICIAL)  # MIMIC-IV-Note 2.2 note/
    lab_loinc_map: str | None = setting(None, used_when=OFFICIAL)
    loinc_hierarchy: str | None = setting(None, used_when=OFFICIAL)
    ndc_atc: str | None = setting(None, used_when=OFFICIAL)
    atc_titles: str | None = setting(None, used_when=OFFICIAL)
    sample: Sample | None = None
    demo: Demo | None = None
    first_batch: str = setting("paper", choices=PAPER_OR_CODE)
    record: str = setting("sections", choices=("sections", "paragraphs"))
    profile: str = setting("paper", choices=PAPER_OR_CODE)
    history: bool = True
    radiology: str = setting("findings", choices=("findings", "full"))
    lab_values: str = setting("all", choices=("all", "numeric"))
    lab_codes: str = setting("loinc", choices=LAB_CODES)


@dataclass
class Scoring:
    empty: str = setting("zero", choices=EMPTY_POLICIES)
    # the similarity floor: the lowest cosine of a match; null: none (the paper's literal reading)
    threshold: float | None = setting(0.5, ge=-1, le=1)
    # labs: write out test abbreviations ("ALP") before matching (the careful reading)
    abbreviations: bool = True
    encoder: str | None = None  # a bundled encoder's name or a local model directory
    atc_levels: str = setting("paper", choices=ATC_LEVELS)
    loinc_leaf: str = setting("term", choices=("term", "parent"))
    parsing: str = setting("paper", choices=PAPER_OR_CODE)
    lab_codes: str = setting("loinc", choices=LAB_CODES)
    coarse: str = setting("reach", choices=COARSE)
    # where scoring's files are (the data section's, by interpolation)
    source: str = setting("demo", choices=SOURCE_KINDS, noun="sources")
    hosp: str | None = setting(None, used_when=OFFICIAL)
    loinc_hierarchy: str | None = setting(None, used_when=OFFICIAL)
    lab_loinc_map: str | None = setting(None, used_when=OFFICIAL)
    atc_titles: str | None = setting(None, used_when=OFFICIAL)


@dataclass
class Task:
    data: Data = MISSING
    exemplars: Exemplars | None = None
    scoring: Scoring | None = None


@dataclass
class Table:
    """``clibench_table3`` (diagnoses), ``clibench_table4`` (the other three tasks)."""

    decimals: int = setting(2, ge=0)


@dataclass
class FullTable(Table):
    """``clibench_full``: one task's P/R/F1 per level (the paper's Tables 10-13)."""

    task_kind: str = setting(MISSING, choices=KINDS, noun="CliBench tasks")


@dataclass
class Breakdown(Table):
    """``clibench_breakdown``: average F1 per subgroup of admissions (Figures 2-3)."""

    task_kind: str = setting("diagnoses", choices=KINDS, noun="CliBench tasks")
    group: str = "chapter"  # a key of the score rows' groups (chapter, service, race, ...)


TASK = Task
TABLES = {"clibench_table3": Table, "clibench_table4": Table, "clibench_full": FullTable,
          "clibench_breakdown": Breakdown}
