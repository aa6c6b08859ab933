"""Check a MedCalc-Bench dataset version, or any label file, against the project's calculators.

Every row's 'Relevant Entities' go through the row's calculator (under the chosen conventions);
the computed answer is judged against the row's label with the official correctness rules
(decimals inside the row's limits, integers equal after rounding, dates and (weeks, days)
equal). With a label file, its labels replace the data's on the rows it names (the others are
not checked); ``N/A`` labels (no answer can be computed from the note) are counted apart.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

from clineval.benchmarks.medcalc.calculators import (
    CALCULATORS,
    Conventions,
    MissingEntity,
    compute_row,
)
from clineval.benchmarks.medcalc.extract_official import official_check
from clineval.benchmarks.medcalc.labels import apply_label_file, is_not_applicable
from clineval.benchmarks.medcalc.loader import parse_entities, read_test_csv

NA_KEY = "n/a"  # label N/A: the note does not allow an answer; counted apart from ``rows``


@dataclass(frozen=True)
class RowCheck:
    """One row's verdict: ``computed`` is None when the calculator could not run."""

    row: int
    calculator_id: int
    calculator: str
    expected: str
    computed: str | None
    agree: bool
    error: str = ""

    @property
    def not_applicable(self) -> bool:
        return is_not_applicable(self.expected)


def check_row(example: dict[str, Any], conventions: Conventions | None = None) -> RowCheck:
    """Run the row's calculator on its entities and judge the answer officially."""
    calculator_id = int(example["calculator_id"])
    base = {
        "row": int(example["row_number"]),
        "calculator_id": calculator_id,
        "calculator": str(example["calculator_name"]),
        "expected": str(example["ground_truth"]).strip(),
    }
    if calculator_id not in CALCULATORS:
        return RowCheck(**base, computed=None, agree=False, error="no calculator with this id")
    try:
        entities = parse_entities(example["relevant_entities"], row=base["row"])
        answer = compute_row(calculator_id, entities, conventions).answer
    except (MissingEntity, ValueError, TypeError, ZeroDivisionError) as err:
        return RowCheck(**base, computed=None, agree=False, error=f"{type(err).__name__}: {err}")
    if is_not_applicable(base["expected"]):
        return RowCheck(**base, computed=answer, agree=False, error="label N/A")
    try:
        verdict = bool(official_check(answer, base["expected"], calculator_id,
                                      str(example["lower"]), str(example["upper"])))
    except (ValueError, SyntaxError) as err:
        return RowCheck(**base, computed=answer, agree=False, error=f"check failed: {err}")
    return RowCheck(**base, computed=answer, agree=verdict)


@dataclass(frozen=True)
class Verification:
    """Every row's check, with overall and per-calculator agreement (N/A rows apart)."""

    data: str
    checks: list[RowCheck]
    labels: str | None = None
    conventions: str = "official"

    @property
    def computable(self) -> list[RowCheck]:
        """The checks whose label is an answer (not ``N/A``)."""
        return [check for check in self.checks if not check.not_applicable]

    @property
    def agree(self) -> int:
        return sum(check.agree for check in self.checks)

    def per_calculator(self) -> dict[int, dict[str, Any]]:
        """``{id: {"name", "rows", "agree", "n/a"}}`` in calculator-id order."""
        table: dict[int, dict[str, Any]] = {}
        for check in sorted(self.checks, key=lambda c: c.calculator_id):
            entry = table.setdefault(
                check.calculator_id, {"name": check.calculator, "rows": 0, "agree": 0, NA_KEY: 0})
            if check.not_applicable:
                entry[NA_KEY] += 1
            else:
                entry["rows"] += 1
                entry["agree"] += int(check.agree)
        return table

    def disagreements(self) -> list[RowCheck]:
        return [check for check in self.computable if not check.agree]

    def summary(self) -> dict[str, Any]:
        """The JSON summary: rows, agree, N/A rows, per_calculator and each disagreement."""
        return {
            "data": self.data,
            "labels": self.labels,
            "conventions": self.conventions,
            "rows": len(self.computable),
            "agree": self.agree,
            f"{NA_KEY}_rows": len(self.checks) - len(self.computable),
            "per_calculator": {str(k): v for k, v in self.per_calculator().items()},
            "disagreements": [asdict(check) for check in self.disagreements()],
        }


def verify(
    path: Path,
    calculator_ids: Iterable[int] | None = None,
    *,
    labels: Path | None = None,
    conventions: Conventions | None = None,
    version: str = "1.0",
) -> Verification:
    """Check every row of the official-format CSV at ``path`` (optionally some calculators),
    against its own labels or those of the label file ``labels``."""
    wanted = None if calculator_ids is None else {int(i) for i in calculator_ids}
    examples = read_test_csv(Path(path), version)
    if labels is not None:
        examples, _ = apply_label_file(examples, Path(labels), missing="drop")
    conventions = conventions or Conventions()
    checks = [check_row(e, conventions) for e in examples
              if wanted is None or e["calculator_id"] in wanted]
    return Verification(str(path), checks, None if labels is None else str(labels),
                        conventions.describe())


def report(verification: Verification, as_json: bool, out: TextIO | None = None) -> None:
    """Print the verification as a readable report or as one JSON object (to stdout)."""
    out = out or sys.stdout
    if as_json:
        json.dump(verification.summary(), out, indent=2, ensure_ascii=False)
        out.write("\n")
        return
    rows = len(verification.computable)
    share = 100 * verification.agree / rows if rows else 0.0
    source = verification.data + (f" + labels {verification.labels}"
                                  if verification.labels else "")
    out.write(f"{source} (conventions: {verification.conventions}): {verification.agree}/{rows} "
              f"rows agree ({share:.1f}%)")
    not_applicable = len(verification.checks) - rows
    out.write(f"; {not_applicable} N/A row(s) apart\n\n" if not_applicable else "\n\n")
    out.write(f"{'id':>3}  {'agree':>9}  {'N/A':>3}  calculator\n")
    for calculator_id, entry in verification.per_calculator().items():
        out.write(f"{calculator_id:>3}  {entry['agree']:>4}/{entry['rows']:<4}  "
                  f"{entry[NA_KEY]:>3}  {entry['name']}\n")
    disagreements = verification.disagreements()
    if disagreements:
        out.write(f"\n{len(disagreements)} disagreements (row, calculator, expected, computed):\n")
        for check in disagreements:
            computed = check.computed if check.computed is not None else f"- ({check.error})"
            out.write(f"  row {check.row:>4}  calc {check.calculator_id:>2}  "
                      f"expected {check.expected!s:<24} computed {computed}\n")
