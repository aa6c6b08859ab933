"""``clineval medcalc agreement``: clineval's verdicts against a recorded file's own.

A recorded model in the official MedCalc-Bench layout keeps each row's ``Result`` (the official
scorer's verdict) as its generation's ``recorded_verdict`` (the recorded backend). Joined with
the cell's score rows by example id, the two verdicts show whether clineval scores the released
answers as their authors did.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from clineval.io import DataError, read_jsonl

#: A recorded verdict -> the outcome it stands for.
OUTCOMES = {"Correct": True, "Incorrect": False}


@dataclass
class Agreement:
    """Rows with a recorded verdict, how many clineval's verdict equals, and the others."""

    extraction: str
    rows: int = 0
    agree: int = 0
    disagreements: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {"extraction": self.extraction, "rows": self.rows, "agree": self.agree,
                "disagreements": self.disagreements}


def agreement(generations: Path, scores: Path, extraction: str = "official") -> Agreement:
    """Compare each score row's ``<extraction>.correct`` with its generation's recorded verdict
    (DataError for a scored row without a generation, or a generation without a verdict)."""
    verdicts = {}
    for line, record in enumerate(read_jsonl(generations, ("id",)), start=1):
        verdict = record.get("recorded_verdict")
        if verdict not in OUTCOMES:
            raise DataError(generations, line, "recorded_verdict", f"expected one of "
                            f"{', '.join(OUTCOMES)} (a recorded model's file with verdicts), "
                            f"got {verdict!r}")
        verdicts[record["id"]] = verdict
    found = Agreement(extraction)
    for line, row in enumerate(read_jsonl(scores, ("id",)), start=1):
        if row["id"] not in verdicts:
            raise DataError(scores, line, "id", f"example {row['id']!r} has no generation in "
                                                f"{generations}")
        if not isinstance(row.get(extraction), dict):
            raise DataError(scores, line, extraction, "no verdict of this extraction setting")
        ours = bool(row[extraction]["correct"])
        found.rows += 1
        if ours == OUTCOMES[verdicts[row["id"]]]:
            found.agree += 1
        else:
            found.disagreements.append({
                "id": row["id"], "calculator_id": row.get("calculator_id"),
                "recorded": verdicts[row["id"]], "clineval": "Correct" if ours else "Incorrect",
                "extracted": row[extraction].get("extracted"),
                "status": row[extraction].get("status"),
                "ground_truth": row.get("ground_truth")})
    return found


def report(found: Agreement, as_json: bool, out: TextIO | None = None) -> None:
    """Print the agreement as a line per disagreement, or as one JSON object."""
    out = out or sys.stdout
    if as_json:
        json.dump(found.summary(), out, indent=2, ensure_ascii=False)
        out.write("\n")
        return
    out.write(f"{found.extraction} extraction: {found.agree}/{found.rows} rows agree with the "
              "recorded verdicts\n")
    for row in found.disagreements:
        out.write(f"  id {row['id']:>5}  calc {row['calculator_id']!s:>2}  recorded "
                  f"{row['recorded']:<9}  clineval {row['clineval']:<9}  extracted "
                  f"{row['extracted']!s} ({row['status']}), label {row['ground_truth']!s}\n")
