"""Read the official MedCalc-Bench CSV and exemplar JSON into examples and exemplars."""

from __future__ import annotations

import ast
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from clineval.io import DataError, read_json
from clineval.validate import CsvRow, Unique, read_csv, shown

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


def parse_entities(text: str, path: Path | str = "<entities>", row: int | None = None,
                   line: int | None = None) -> dict:
    """'Relevant Entities' is a Python dict literal; parse it without evaluating code."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError) as err:
        raise DataError(path, row, "Relevant Entities",
                        f"expected a Python dict literal, got {shown(text)} ({err})",
                        line=line) from err
    if not isinstance(value, dict):
        raise DataError(path, row, "Relevant Entities",
                        f"expected a Python dict literal, got {type(value).__name__}", line=line)
    return value


#: Calculator ids of the published versions (2 to 69, with gaps).
CALCULATOR_IDS = (2, 69)
#: Calculator 69's answers, ``('<w> weeks', '<d> days')``.
GESTATIONAL = re.compile(r"\(?\s*'?(\d+) weeks?'?\s*,\s*'?(\d+) days?'?\s*\)?")
ANSWER_FIELDS = ("Ground Truth Answer", "Lower Limit", "Upper Limit")


def _answer(row: CsvRow, field: str, output_type: str, calculator: int) -> float | str:
    """One of the answer fields, checked by the row's output type; its comparable value."""
    text = row.text(field)
    if calculator == 69 and GESTATIONAL.fullmatch(text):
        return text
    if output_type == "date":
        try:
            datetime.strptime(text, "%m/%d/%Y")
        except ValueError:
            raise row.expect(field, "a date MM/DD/YYYY (a date row)") from None
        return text
    if output_type == "integer":
        return row.integer(field)
    return row.number(field)


def _check_answers(row: CsvRow, output_type: str, calculator: int) -> None:
    """The answer and its limits have the row's type, and lower <= answer <= upper."""
    answer, lower, upper = (_answer(row, f, output_type, calculator) for f in ANSWER_FIELDS)
    if isinstance(answer, float | int) and isinstance(lower, float | int) and isinstance(
            upper, float | int) and not lower <= answer <= upper:
        raise row.expect("Ground Truth Answer",
                         f"a value within [Lower Limit, Upper Limit] = [{lower}, {upper}]")


def read_test_csv(path: Path, version: str = "1.0") -> list[dict[str, Any]]:
    """Official ``test_data.csv`` (of ``version``) -> one example per row, ``id`` = row number.

    Checked: the 14 columns, no truncated row, unique row numbers, calculator ids in range, the
    category and output type, non-empty note and question, entities a dict literal, and the
    answer and its limits typed by the output type (decimal: numbers, integer: integers, date:
    MM/DD/YYYY; calculator 69: ``('<w> weeks', '<d> days')``) with lower <= answer <= upper.
    """
    version = check_version(version)
    examples: list[dict[str, Any]] = []
    seen = Unique()
    for row in read_csv(path, COLUMNS):
        number = row.integer("Row Number", 1)
        seen.add(row, "Row Number", number)
        calculator = row.integer("Calculator ID", *CALCULATOR_IDS)
        category = row.choice("Category", CATEGORIES, _category(row.values["Category"], version))
        output_type = row.values["Output Type"].strip()
        output_type = row.choice("Output Type", OUTPUT_TYPES,
                                 output_type if version == "1.0" else output_type.lower())
        parse_entities(row.values["Relevant Entities"], path, row.row, row.line)
        _check_answers(row, output_type, calculator)
        for field in ("Calculator Name", "Patient Note", "Question"):
            row.text(field)  # required; kept as written
        raw = row.values
        examples.append(
            {
                "id": str(number),
                "row_number": number,
                "calculator_id": calculator,
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
        raise DataError(path, None, None, "expected at least one row, got none")
    return examples


def exemplar_records(raw: Any, source: str, path: Path | str) -> list[dict[str, Any]]:
    """Exemplar JSON keyed by calculator id -> records with stable ids. A key that is no
    calculator id, or an entry without its note, thinking or answer, is an error naming the
    entry's field by its JSON path (``"2.Response.answer"``)."""
    if not isinstance(raw, dict):
        raise DataError(path, None, None, "expected a JSON object keyed by calculator id, got "
                        f"{type(raw).__name__}")
    bad = next((key for key in raw if not str(key).strip().isdigit()), None)
    if bad is not None:
        raise DataError(path, None, str(bad), "expected a calculator id (an integer) as the key")
    records = []
    for key, value in sorted(raw.items(), key=lambda kv: int(kv[0])):
        response = value.get("Response") if isinstance(value, dict) else None
        note = value.get("Patient Note") if isinstance(value, dict) else None
        if not isinstance(note, str) or not note.strip():
            raise DataError(path, None, f"{key}.Patient Note",
                            f"expected the exemplar's note (a non-empty string), got {note!r}")
        if not isinstance(response, dict):
            raise DataError(path, None, f"{key}.Response", "expected an object with "
                            f"step_by_step_thinking and answer, got {type(response).__name__}")
        for field in ("step_by_step_thinking", "answer"):
            if response.get(field) in (None, ""):
                raise DataError(path, None, f"{key}.Response.{field}",
                                "expected a value, got none")
        records.append(
            {
                "id": f"{source}-{int(key)}",
                "calculator_id": int(key),
                "note": note,
                "thinking": response["step_by_step_thinking"],
                "answer": response["answer"],
            }
        )
    return records


def read_exemplar_json(path: Path) -> list[dict[str, Any]]:
    """The official ``one_shot_finalized_explanation.json``."""
    return exemplar_records(read_json(path), "official", path)
