"""MIMIC-CXR reports (``files/pXX/pXXXXXXXX/sXXXXXXXX.txt``) with MIMIC-CXR-JPG's CheXpert labels.

The study list ``cxr-study-list.csv(.gz)`` (``subject_id, study_id, path``) names each report
file relative to the folder that holds the list (or ``data.mimic_cxr_root``). A report is free
text with upper-case section headers (``FINDINGS:``, ``IMPRESSION:``, ...). The CheXpert label
file ``mimic-cxr-2.0.0-chexpert.csv(.gz)`` has ``subject_id, study_id`` and one column per
observation: ``1.0`` positive, ``0.0`` negative, ``-1.0`` uncertain, empty not mentioned.
Uncertain and not mentioned map to the settings ``uncertain`` and ``blank`` (default: unknown).
MIMIC-CXR-JPG's official split ``mimic-cxr-2.0.0-split.csv(.gz)`` (``dicom_id, study_id,
subject_id, split``; one row per image, ``train`` / ``validate`` / ``test``) gives each study the
split of its images (``validate`` read as ``validation``). Credentialed (PhysioNet).
"""

from __future__ import annotations

import re
from pathlib import Path

from clineval.errors import DataError
from clineval.io import Record
from clineval.mimic.csvfile import read_rows

WHERE = ("PhysioNet MIMIC-CXR 2.0.0 (credentialed; reports and cxr-study-list.csv.gz): "
         "https://physionet.org/content/mimic-cxr/2.0.0/")
CHEXPERT_WHERE = ("PhysioNet MIMIC-CXR-JPG 2.0.0 (credentialed; mimic-cxr-2.0.0-chexpert.csv.gz): "
                  "https://physionet.org/content/mimic-cxr-jpg/2.0.0/")
CHEXPERT_CODES = (
    "No Finding", "Enlarged Cardiomediastinum", "Cardiomegaly", "Lung Opacity", "Lung Lesion",
    "Edema", "Consolidation", "Pneumonia", "Atelectasis", "Pneumothorax", "Pleural Effusion",
    "Pleural Other", "Fracture", "Support Devices",
)
SPLIT_WHERE = ("PhysioNet MIMIC-CXR-JPG 2.0.0 (credentialed; mimic-cxr-2.0.0-split.csv.gz): "
               "https://physionet.org/content/mimic-cxr-jpg/2.0.0/")
#: The split file's values -> MedEval's split names.
SPLIT_NAMES = {"train": "train", "validate": "validation", "test": "test"}
_PATH = re.compile(r"^files/p(\d\d)/p(\d{8})/s(\d{8})\.txt$")
_HEADER = re.compile(r"^\s*([A-Z][A-Z /&,()-]*[A-Z)])\s*:", re.MULTILINE)


def sections(text: str) -> dict[str, str]:
    """Upper-case ``HEADER:`` sections of a report -> their text (whitespace collapsed)."""
    found: dict[str, str] = {}
    matches = list(_HEADER.finditer(text))
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        body = " ".join(text[match.end():end].split())
        name = " ".join(match.group(1).split())
        found[name] = (found[name] + " " + body).strip() if name in found else body
    return found


def read_reports(study_list: Path, root: Path | None = None) -> list[Record]:
    """One record per study with a FINDINGS or IMPRESSION section (others are left out)."""
    base = root or study_list.parent
    records, seen = [], set()
    for row, raw in read_rows(study_list, ("subject_id", "study_id", "path")):
        rel = raw["path"].strip()
        match = _PATH.match(rel)
        if not match:
            raise DataError(study_list, row, "path",
                            f"{rel!r} is not files/pXX/pXXXXXXXX/sXXXXXXXX.txt")
        if match.group(2) != raw["subject_id"].strip() or match.group(3) != raw["study_id"].strip():
            raise DataError(study_list, row, "path",
                            f"{rel!r} does not match subject {raw['subject_id']} / study "
                            f"{raw['study_id']}")
        if match.group(1) != match.group(2)[:2]:
            raise DataError(study_list, row, "path", f"{rel!r}: folder pXX is not the subject's")
        file = base / rel
        if not file.is_file():
            raise DataError(study_list, row, "path", f"report file {file} does not exist")
        if match.group(3) in seen:
            raise DataError(study_list, row, "study_id",
                            f"{match.group(3)} appears twice: expected each id once")
        seen.add(match.group(3))
        parts = sections(file.read_text(encoding="utf-8"))
        findings, impression = parts.get("FINDINGS", ""), parts.get("IMPRESSION", "")
        if not findings and not impression:
            continue
        records.append({
            "id": f"mimic-s{match.group(3)}",
            "domain": "chest",
            "modality": "xray",
            "split": None,
            "source": rel,
            "row": row,
            "format": "mimic-cxr-2.0.0",
            "subject_id": match.group(2),
            "study_id": match.group(3),
            "findings": findings,
            "impression": impression,
            "codes": None,
        })
    return records


def _value(path: Path, row: int, column: str, text: str, uncertain: str, blank: str) -> str:
    cell = text.strip()
    if cell == "":
        return blank
    try:
        number = float(cell)
    except ValueError as err:
        raise DataError(path, row, column, f"{text!r} is not 1.0, 0.0, -1.0 or empty "
                        "(expected one of them)") from err
    mapping = {1.0: "positive", 0.0: "negative", -1.0: uncertain}
    if number not in mapping:
        raise DataError(path, row, column, f"{text!r} is not 1.0, 0.0, -1.0 or empty "
                        "(expected one of them)")
    return mapping[number]


def read_chexpert(
    path: Path, codes: tuple[str, ...] = CHEXPERT_CODES, uncertain: str = "unknown",
    blank: str = "unknown",
) -> dict[str, dict[str, str]]:
    """study_id -> a value for each code (positive / negative / unknown)."""
    labels: dict[str, dict[str, str]] = {}
    for row, raw in read_rows(path, ("subject_id", "study_id", *codes)):
        study = raw["study_id"].strip()
        if not study.isdigit():
            raise DataError(path, row, "study_id",
                            f"{study!r} is not a number: expected an integer")
        if study in labels:
            raise DataError(path, row, "study_id",
                            f"{study} appears twice: expected each id once")
        labels[study] = {c: _value(path, row, c, raw[c], uncertain, blank) for c in codes}
    return labels


def with_codes(records: list[Record], labels: dict[str, dict[str, str]]) -> list[Record]:
    """Reports with their CheXpert codes (``codes`` None for a study without a label row)."""
    return [{**r, "codes": labels.get(r["study_id"])} for r in records]


def read_split(path: Path) -> dict[str, str]:
    """study_id -> its split (train / validation / test) from the per-image official split
    file; a study whose images name different splits is an error."""
    splits: dict[str, tuple[str, int]] = {}
    for row, raw in read_rows(path, ("dicom_id", "study_id", "subject_id", "split")):
        study = raw["study_id"].strip()
        if not study.isdigit():
            raise DataError(path, row, "study_id",
                            f"{study!r} is not a number: expected an integer")
        value = raw["split"].strip()
        if value not in SPLIT_NAMES:
            raise DataError(path, row, "split",
                            f"{value!r} is not one of {', '.join(SPLIT_NAMES)}")
        split = SPLIT_NAMES[value]
        if study in splits and splits[study][0] != split:
            first, first_row = splits[study]
            raise DataError(path, row, "split",
                            f"study {study} is {value!r} here but {first!r} in row {first_row}: "
                            "a study's images must share one split")
        splits.setdefault(study, (split, row))
    return {study: split for study, (split, _) in splits.items()}


def with_split(records: list[Record], splits: dict[str, str]) -> list[Record]:
    """Reports with the official split of their study (``split`` None when the file has no row
    for it: the caller's fallback draws one)."""
    return [{**r, "split": splits.get(r["study_id"])} for r in records]
