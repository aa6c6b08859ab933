"""Ground-truth labels: the dataset's, recomputed by the project's calculators, or from a file.

``dataset`` (the default) scores against the row's Ground Truth Answer and limits, as the paper
did. ``recomputed`` runs the row's calculator on its Relevant Entities (under the task's
conventions) and derives the limits the way the dataset does (decimals: 0.95× and 1.05× the
answer; other types: the answer itself), so label errors documented in
``docs/medcalc-errata.md`` do not count against a model. ``file`` joins a label CSV on the row
id: the v1.x layout (``Row Number``) or the corrected-labels layout of Ye et al. 2025
(``Unique ID``, gestational age as a number of days, ``N/A`` where the note does not allow an
answer).
"""

from __future__ import annotations

import csv
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clineval.benchmarks.medcalc.calculators import (
    CALCULATORS,
    CalcResult,
    Calculator,
    Conventions,
    MissingEntity,
    UnknownCalculator,
    compute_row,
)
from clineval.benchmarks.medcalc.calculators.base import format_weeks_days
from clineval.benchmarks.medcalc.extract_official import WEEKS_DAYS_IDS, official_check
from clineval.benchmarks.medcalc.loader import parse_entities
from clineval.io import DataError, open_text
from clineval.validate import Unique, read_csv

LABEL_SOURCES = ("dataset", "recomputed", "file")
MISSING_LABELS = ("drop", "dataset")  # a row the label file lacks: drop it, or keep its label
NOT_APPLICABLE = "N/A"  # the label of a row whose note does not allow an answer: abstain
LAYOUTS = {"Row Number": "v1.x", "Unique ID": "corrected"}  # id column -> layout name
_LABEL_COLUMNS = ("Ground Truth Answer", "Lower Limit", "Upper Limit")


@dataclass(frozen=True)
class Label:
    """One row's label from a label file (``answer`` is ``N/A`` for an abstention row)."""

    answer: str
    lower: str
    upper: str
    line: int

    @property
    def not_applicable(self) -> bool:
        return is_not_applicable(self.answer)


def is_not_applicable(answer: object) -> bool:
    """Whether a label says the row has no answer (``N/A``)."""
    return str(answer).strip().upper() == NOT_APPLICABLE


def read_label_file(path: Path) -> tuple[str, dict[int, Label]]:
    """A label CSV in the v1.x or the corrected layout -> (layout, ``{row id: Label}``)."""
    path = Path(path)
    with open_text(path) as handle:
        fields = next(csv.reader(handle), [])
    id_column = next((c for c in LAYOUTS if c in fields), None)
    if id_column is None:
        raise DataError(path, 1, "Row Number", "no row id column ('Row Number' for the "
                        "v1.x layout, 'Unique ID' for the corrected-labels layout)")
    labels: dict[int, Label] = {}
    seen = Unique()
    for raw in read_csv(path, (id_column, *_LABEL_COLUMNS)):
        row = raw.integer(id_column, 1)
        seen.add(raw, id_column, row)
        if not raw.text("Ground Truth Answer", required=False):
            raise raw.error("Ground Truth Answer", "empty label: expected an answer or N/A")
        labels[row] = Label(raw.text("Ground Truth Answer"),
                            raw.text("Lower Limit", required=False),
                            raw.text("Upper Limit", required=False), raw.row)
    if not labels:
        raise DataError(path, None, None, "no rows")
    return LAYOUTS[id_column], labels


def gestational_label(answer: str, path: Path | str = "<labels>", line: int | None = None) -> str:
    """A gestational-age label as the v1.0 answer: a day count (the corrected layout) becomes
    ``('W weeks', 'D days')`` exactly (divmod by 7); a weeks/days label is kept."""
    text = answer.strip()
    if re.fullmatch(r"\d+", text):
        return format_weeks_days(*divmod(int(text), 7))
    if re.search(r"\d+\D+\d+", text):
        return text
    raise DataError(path, line, "Ground Truth Answer",
                    f"gestational age should be days or (weeks, days), got {answer!r}")


def with_label(example: dict[str, Any], label: Label, path: Path | str) -> dict[str, Any]:
    """``example`` scored against ``label`` (N/A kept; gestational age days -> weeks/days, with
    ``label_days`` set so that an answer in days is read as days)."""
    answer, lower, upper = label.answer, label.lower, label.upper
    days = False
    if label.not_applicable:
        answer = lower = upper = NOT_APPLICABLE
    elif int(example["calculator_id"]) in WEEKS_DAYS_IDS:
        days = answer.strip().isdigit()
        answer = lower = upper = gestational_label(answer, path, label.line)
    return {**example, "ground_truth": answer, "lower": lower, "upper": upper,
            "label_source": "file", "label_days": days}


def apply_label_file(
    examples: list[dict[str, Any]], path: Path, missing: str
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Join the label file on row ids; rows it lacks are dropped or keep the dataset's label.

    A label for a row the data does not have is an error (the file belongs to another set).
    """
    if missing not in MISSING_LABELS:
        raise ValueError(f"unknown missing-labels setting {missing!r}; known: "
                         f"{', '.join(MISSING_LABELS)}")
    layout, labels = read_label_file(path)
    rows = {int(e["row_number"]) for e in examples}
    for row, label in labels.items():
        if row not in rows:
            raise DataError(path, label.line, "Ground Truth Answer",
                            f"row {row} is not a row of the data")
    joined: list[dict[str, Any]] = []
    for example in examples:
        label = labels.get(int(example["row_number"]))
        if label is not None:
            joined.append(with_label(example, label, path))
        elif missing == "dataset":
            joined.append({**example, "label_source": "dataset (not in the label file)"})
    stats = {
        "layout": layout,
        "sha256": hashlib.sha256(Path(path).read_bytes()).hexdigest(),
        "labelled": sum(int(e["row_number"]) in labels for e in examples),
        "missing": len(examples) - sum(int(e["row_number"]) in labels for e in examples),
        "missing_rows": missing,
        "not_applicable": sum(is_not_applicable(e["ground_truth"]) for e in joined),
    }
    return joined, stats


def limits(calculator: Calculator, result: CalcResult) -> tuple[str, str]:
    """Decimals: 0.95× and 1.05× the rounded answer (the dataset's rule); others: the answer."""
    if calculator.output_type != "decimal":
        return result.answer, result.answer
    low, high = sorted((0.95 * float(result.answer), 1.05 * float(result.answer)))
    return repr(round(low, 8)).removesuffix(".0"), repr(round(high, 8)).removesuffix(".0")


def check_label_source(source: str) -> str:
    if source not in LABEL_SOURCES:
        raise ValueError(f"unknown label source {source!r}; known: {', '.join(LABEL_SOURCES)}")
    return source


def relabel(
    example: dict[str, Any], source: str, conventions: Conventions | None = None
) -> dict[str, Any]:
    """``example`` with the labels of ``source`` and a ``label_source`` saying where they came from.

    With ``recomputed``, a row the calculators cannot compute keeps the dataset's labels and
    says why, so no row is silently dropped. (``file`` labels are joined by
    :func:`apply_label_file`.)
    """
    if check_label_source(source) != "recomputed":
        return {**example, "label_source": example.get("label_source", "dataset")}
    calculator_id = int(example["calculator_id"])
    try:
        result = compute_row(calculator_id, parse_entities(example["relevant_entities"]),
                             conventions)
    except (UnknownCalculator, MissingEntity, ValueError) as err:
        return {**example, "label_source": f"dataset (not recomputable: {err})"}
    lower, upper = limits(CALCULATORS[calculator_id], result)
    try:  # the verify rule: does the dataset's own label accept the calculators' answer?
        agrees = bool(official_check(result.answer, str(example["ground_truth"]), calculator_id,
                                     str(example["lower"]), str(example["upper"])))
    except (ValueError, SyntaxError):
        agrees = False
    return {
        **example,
        "ground_truth": result.answer,
        "lower": lower,
        "upper": upper,
        "label_source": "recomputed",
        "dataset_label_agrees": agrees,
    }
