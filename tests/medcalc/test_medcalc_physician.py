"""The calculators against the physician-validated labels (Ye et al. 2025, dev half).

Reads the labels and the v1.0 test set through CLINEVAL_DATA_DIR (skipped when absent) and the
second table of ``docs/medcalc-errata.md``, which explains every row that disagrees under the
``clinical`` conventions.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from clineval.benchmarks.medcalc.calculators import Conventions
from clineval.benchmarks.medcalc.verify import Verification, verify

ERRATA = Path(__file__).resolve().parents[2] / "docs" / "medcalc-errata.md"
SECTION = "## Physician-validated labels (dev half)"
TARGET = 0.88  # the share of the dev half's computable rows that must agree under `clinical`


def _files() -> tuple[Path, Path]:
    root = os.environ.get("CLINEVAL_DATA_DIR")
    if not root:
        pytest.skip("set CLINEVAL_DATA_DIR to a directory holding medcalc-bench-v1.0/ and "
                    "medcalc-corrected-ye2025/dev.csv")
    data = Path(root) / "medcalc-bench-v1.0" / "test_data.csv"
    labels = Path(root) / "medcalc-corrected-ye2025" / "dev.csv"
    if not (data.is_file() and labels.is_file()):
        pytest.skip(f"CLINEVAL_DATA_DIR is set but {data} or {labels} does not exist")
    return data, labels


def explained_rows(text: str) -> dict[int, tuple[int, str, str, str]]:
    """``{row: (calculator id, label, computed, kind)}`` from the physician table."""
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    rows: dict[int, tuple[int, str, str, str]] = {}
    for line in section.splitlines():
        cells = re.match(r"^\| (\d+) \| (\d+) \| (.*?) \| (.*?) \| ([abcd]) \| (.+) \|$", line)
        if cells:
            row = int(cells.group(1))
            assert row not in rows, f"row {row} is listed twice"
            rows[row] = (int(cells.group(2)), cells.group(3), cells.group(4), cells.group(5))
    return rows


@pytest.fixture(scope="module")
def clinical() -> Verification:
    data, labels = _files()
    return verify(data, labels=labels, conventions=Conventions("clinical"))


def test_clinical_conventions_meet_the_target(clinical):
    summary = clinical.summary()
    assert (summary["rows"], summary["n/a_rows"]) == (420, 37)
    assert summary["agree"] / summary["rows"] >= TARGET
    assert not [c for c in clinical.checks if c.computed is None]


def test_official_conventions_are_todays_calculators():
    data, labels = _files()
    official = verify(data, labels=labels)
    assert (official.agree, len(official.computable)) == (356, 420)


def test_every_disagreement_is_explained(clinical):
    listed = explained_rows(ERRATA.read_text(encoding="utf-8"))
    found = {check.row: check for check in clinical.disagreements()}
    assert sorted(set(found) - set(listed)) == [], "disagreements missing from the errata"
    assert sorted(set(listed) - set(found)) == [], "errata rows that now agree"
    for row, (calculator, label, computed, _) in listed.items():
        check = found[row]
        assert (calculator, label, computed) == (check.calculator_id, check.expected,
                                                  check.computed), row
