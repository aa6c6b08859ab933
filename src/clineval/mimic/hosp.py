"""MIMIC-IV ``hosp/diagnoses_icd.csv(.gz)``: columns, a validating reader, ICD-9 -> ICD-10 GEM.

Codes are stored dotless and upper case ("I5023", "4280"); ``icd_version`` is 9 or 10;
``seq_num`` 1 is the principal diagnosis.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from clineval.io import DataError, open_text
from clineval.validate import read_csv

DIAGNOSES_ICD_COLUMNS = ("subject_id", "hadm_id", "seq_num", "icd_code", "icd_version")


@dataclass(frozen=True)
class Diagnosis:
    subject_id: int
    hadm_id: int
    seq_num: int
    icd_code: str
    icd_version: int


def read_diagnoses_icd(path: Path) -> Iterator[Diagnosis]:
    """Stream the rows; a non-integer id, an empty code or a version other than 9/10 is an error."""
    for row in read_csv(path, DIAGNOSES_ICD_COLUMNS):
        code = row.text("icd_code").upper()
        if not code.isalnum():
            raise row.expect("icd_code", "an ICD code (letters and digits)")
        version = row.integer("icd_version")
        if version not in (9, 10):
            raise row.expect("icd_version", "9 or 10")
        yield Diagnosis(
            subject_id=row.integer("subject_id"),
            hadm_id=row.integer("hadm_id"),
            seq_num=row.integer("seq_num"),
            icd_code=code,
            icd_version=version,
        )


def by_admission(diagnoses: Iterable[Diagnosis]) -> dict[int, list[Diagnosis]]:
    """Diagnoses grouped by ``hadm_id``, each group in ``seq_num`` order."""
    groups: dict[int, list[Diagnosis]] = defaultdict(list)
    for diagnosis in diagnoses:
        groups[diagnosis.hadm_id].append(diagnosis)
    return {hadm: sorted(rows, key=lambda d: d.seq_num) for hadm, rows in groups.items()}


def read_icd9_gem(path: Path) -> dict[str, list[str]]:
    """CMS General Equivalence Mapping ICD-9-CM -> ICD-10-CM (``2018_I9gem.txt``).

    Each line: ICD-9 code, ICD-10 code, five flag digits (approximate, no map, combination,
    scenario, choice list). "No map" lines are dropped; the other targets are kept in file order.
    """
    mapping: dict[str, list[str]] = defaultdict(list)
    with open_text(path) as handle:
        for line_number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            parts = line.split()
            if len(parts) != 3 or len(parts[2]) != 5 or not parts[2].isdigit():
                raise DataError(path, line_number, None, "expected 'ICD9 ICD10 FLAGS' (5 digits)")
            source, target, flags = parts
            if flags[1] == "1":
                continue
            if target not in mapping[source]:
                mapping[source].append(target)
    return dict(mapping)
