"""Files shipped with the package: mimic-code's itemid -> LOINC map (MIT, see README.md)."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent


def d_labitems_to_loinc() -> Path:
    """mimic-code's ``mimic-iv/mapping/d_labitems_to_loinc.csv`` (MIT licence)."""
    return HERE / "d_labitems_to_loinc.csv"
