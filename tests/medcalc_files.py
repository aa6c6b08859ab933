"""A MedCalc-Bench v1.0-format file of the project's synthetic rows: for the unit and workflow
tests of the data check."""

from __future__ import annotations

import csv
from pathlib import Path

from clineval.benchmarks.medcalc.synthetic import write_demo_files


def medcalc_csv(tmp_path: Path, answer: str | None = None) -> Path:
    """A MedCalc-Bench v1.0-format file (the project's synthetic rows); ``answer`` replaces the
    ground truth of its first decimal row."""
    path = tmp_path / "test_data.csv"
    write_demo_files(path, None, [2, 3], 2, 0)
    if answer is not None:
        with path.open(encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle))
        column = rows[0].index("Ground Truth Answer")
        first = next(i for i, r in enumerate(rows[1:], 1)
                     if r[rows[0].index("Output Type")] == "decimal")
        rows[first][column] = answer
        with path.open("w", encoding="utf-8", newline="") as handle:
            csv.writer(handle).writerows(rows)
    return path
