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
from clineval.mimic.csvfile import read_rows

DIAGNOSES_ICD_COLUMNS = ("subject_id", "hadm_id", "seq_num", "icd_code", "icd_version")


@dataclass(frozen=True)
class Diagnosis:
    subject_id: int
    hadm_id: int
    seq_num: int
    icd_code: str
    icd_version: int


def _int(path: Path, row: int, field: str, value: str) -> int:
    try:
        return int(value)
    except ValueError as err:
        raise DataError(path, row, field, f"expected an integer, got {value!r}") from err


def read_diagnoses_icd(path: Path) -> Iterator[Diagnosis]:
    """Stream the rows; a non-integer id, an empty code or a version other than 9/10 is an error."""
    for row, raw in read_rows(path, DIAGNOSES_ICD_COLUMNS):
        code = raw["icd_code"].strip().upper()
        if not code or not code.isalnum():
            raise DataError(path, row, "icd_code", f"not an ICD code: {raw['icd_code']!r}")
        version = _int(path, row, "icd_version", raw["icd_version"])
        if version not in (9, 10):
            raise DataError(path, row, "icd_version", f"expected 9 or 10, got {version}")
        yield Diagnosis(
            subject_id=_int(path, row, "subject_id", raw["subject_id"]),
            hadm_id=_int(path, row, "hadm_id", raw["hadm_id"]),
            seq_num=_int(path, row, "seq_num", raw["seq_num"]),
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
