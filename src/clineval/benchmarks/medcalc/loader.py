"""Read the official MedCalc-Bench CSV and exemplar JSON into examples and exemplars."""

from __future__ import annotations

import ast
import csv
from pathlib import Path
from typing import Any

from clineval.io import DataError, open_text, read_json

COLUMNS = (
    "Row Number",
    "Calculator ID",
    "Calculator Name",
    "Category",
    "Output Type",
    "Note ID",
    "Note Type",
    "Patient Note",
    "Question",
    "Relevant Entities",
    "Ground Truth Answer",
    "Lower Limit",
    "Upper Limit",
    "Ground Truth Explanation",
)
CATEGORIES = ("lab", "physical", "date", "dosage", "risk", "severity", "diagnosis")
OUTPUT_TYPES = ("decimal", "integer", "date")
# Dataset versions with the same 14 columns. v1.0 is read strictly; the later layout (v1.1,
# v1.2 and MedCalc-Bench-Verified) spells some categories out ("lab test") and types the
# gestational-age rows (calculator 69) as "date".
VERSIONS = ("1.0", "1.1", "1.2", "verified")
CATEGORY_SPELLINGS = {
    "lab test": "lab",
    "lab tests": "lab",
    "physical exam": "physical",
    "dosage conversion": "dosage",
    "risk score": "risk",
    "severity score": "severity",
    "diagnostic": "diagnosis",
}


def check_version(version: object) -> str:
    text = str(version).strip().lower()
    text = text[1:] if text[:2] in {f"v{d}" for d in "0123456789"} else text  # "v1.2" = "1.2"
    if text not in VERSIONS:
        raise ValueError(f"unknown MedCalc-Bench version {version!r}; known: {', '.join(VERSIONS)}")
    return text


def _category(raw: str, version: str) -> str:
    category = raw.strip()
    if version != "1.0":
        category = CATEGORY_SPELLINGS.get(category.lower(), category.lower())
    return category


def _int(path: Path, row: int, field: str, value: str) -> int:
    try:
        return int(value)
    except ValueError as err:
        raise DataError(path, row, field, f"expected an integer, got {value!r}") from err


def parse_entities(text: str, path: Path | str = "<entities>", row: int | None = None) -> dict:
    """'Relevant Entities' is a Python dict literal; parse it without evaluating code."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError) as err:
        raise DataError(
            path, row, "Relevant Entities", f"not a Python dict literal: {err}"
        ) from err
    if not isinstance(value, dict):
        raise DataError(path, row, "Relevant Entities", "not a dict")
    return value


def read_test_csv(path: Path, version: str = "1.0") -> list[dict[str, Any]]:
    """Official ``test_data.csv`` (of ``version``) -> one example per row, ``id`` = row number."""
    version = check_version(version)
    with open_text(path) as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or ())]
        if missing:
            raise DataError(path, 1, missing[0], f"missing column(s): {', '.join(missing)}")
        examples: list[dict[str, Any]] = []
        seen: set[int] = set()
        for line, raw in enumerate(reader, start=2):
            number = _int(path, line, "Row Number", raw["Row Number"])
            if number in seen:
                raise DataError(path, line, "Row Number", f"duplicate row number {number}")
            seen.add(number)
            category = _category(raw["Category"], version)
            if category not in CATEGORIES:
                raise DataError(path, line, "Category", f"{category!r} not in {CATEGORIES}")
            output_type = raw["Output Type"].strip()
            if version != "1.0":
                output_type = output_type.lower()
            if output_type not in OUTPUT_TYPES:
                raise DataError(path, line, "Output Type", f"{output_type!r} not in {OUTPUT_TYPES}")
            parse_entities(raw["Relevant Entities"], path, line)
            examples.append(
                {
                    "id": str(number),
                    "row_number": number,
                    "calculator_id": _int(path, line, "Calculator ID", raw["Calculator ID"]),
                    "calculator_name": raw["Calculator Name"],
                    "category": category,
                    "output_type": output_type,
                    "note_id": raw["Note ID"],
                    "note_type": raw["Note Type"],
                    "note": raw["Patient Note"],
                    "question": raw["Question"],
                    "relevant_entities": raw["Relevant Entities"],
                    "ground_truth": raw["Ground Truth Answer"],
                    "lower": raw["Lower Limit"],
                    "upper": raw["Upper Limit"],
                    "explanation": raw["Ground Truth Explanation"],
                }
            )
    if not examples:
        raise DataError(path, None, None, "no rows")
    return examples


def exemplar_records(raw: dict[str, Any], source: str, path: Path | str) -> list[dict[str, Any]]:
    """Exemplar JSON keyed by calculator id -> records with stable ids."""
    records = []
    for key, value in sorted(raw.items(), key=lambda kv: int(kv[0])):
        try:
            response = value["Response"]
            records.append(
                {
                    "id": f"{source}-{int(key)}",
                    "calculator_id": int(key),
                    "note": value["Patient Note"],
                    "thinking": response["step_by_step_thinking"],
                    "answer": response["answer"],
                }
            )
        except (KeyError, TypeError, ValueError) as err:
            raise DataError(path, key, None, f"malformed exemplar: {err!r}") from err
    return records


def read_exemplar_json(path: Path) -> list[dict[str, Any]]:
    """The official ``one_shot_finalized_explanation.json``."""
    return exemplar_records(read_json(path), "official", path)
