"""CliBench's settings: what its tasks (``conf/task/clibench_*.yaml``) and its tables read, with
their types, ranges and choices (docs/clibench.md describes each).

Many settings choose between the paper's reading (``paper``) and the public code's (``code``).
"""

from __future__ import annotations

from dataclasses import dataclass

from clineval.benchmarks.base.settings import MISSING, OFFICIAL, Exemplars, setting
from clineval.benchmarks.base.sources import SOURCE_KINDS
from clineval.benchmarks.clibench.kinds import ATC_LEVELS, KINDS
from clineval.metrics.embedding import BUNDLED
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
class Derivation:
    """How a case is built from the MIMIC tables (``data``'s; cases.py)."""

    # paper: the first timestamp within 24 h | code: the 2 h or 24 h rule
    first_batch: str = setting("paper", choices=PAPER_OR_CODE)
    # sections: whole sections | paragraphs: the public code's cleaning
    record: str = setting("sections", choices=("sections", "paragraphs"))
    # paper: age at admission, language | code: anchor_age, admission_location
    profile: str = setting("paper", choices=PAPER_OR_CODE)
    history: bool = True  # the previous admission's diagnoses (diagnoses only)
    radiology: str = setting("findings", choices=("findings", "full"))  # or the full report
    lab_values: str = setting("all", choices=("all", "numeric"))  # numeric: no text-only result
    lab_codes: str = setting("loinc", choices=LAB_CODES)


@dataclass
class Data(Derivation):
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


@dataclass
class Rules:
    """How answers are scored (``scoring``'s; scoring.py); the defaults: the paper's."""

    # an answer without codes: zero predictions (paper) | dropped (code)
    empty: str = setting("zero", choices=EMPTY_POLICIES)
    # the similarity floor: the lowest cosine of a match; null: none (the paper's literal
    # reading); 0.5 from the hand-graded outputs (docs/clibench.md)
    threshold: float | None = setting(0.5, ge=-1, le=1)
    # labs: write out test abbreviations ("ALP") before matching (the careful reading)
    abbreviations: bool = True
    encoder: str | None = BUNDLED  # a bundled encoder's name or a local model directory
    # ATC prefix lengths 1/3/4/5 (paper) | 1/2/3/4 (code)
    atc_levels: str = setting("paper", choices=ATC_LEVELS)
    # the finest lab level: the LOINC term (paper) | its parent (code)
    loinc_leaf: str = setting("term", choices=("term", "parent"))
    # item splitting and explicit codes: paper | code (dotted ICD-10-CM)
    parsing: str = setting("paper", choices=PAPER_OR_CODE)
    lab_codes: str = setting("loinc", choices=LAB_CODES)
    # a coarse code at finer levels: absent (reach) | itself (code)
    coarse: str = setting("reach", choices=COARSE)


@dataclass
class Scoring(Rules):
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
