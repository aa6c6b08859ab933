"""MIMIC-IV 2.2 ``hosp/`` dictionary tables: ``d_icd_diagnoses``, ``d_icd_procedures``,
``d_labitems`` (``.csv`` or ``.csv.gz``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from clineval.io import DataError
from clineval.mimic.csvfile import read_rows

D_ICD_COLUMNS = ("icd_code", "icd_version", "long_title")
D_LABITEMS_COLUMNS = ("itemid", "label", "fluid", "category")


def read_d_icd(path: Path, version: int = 10) -> dict[str, str]:
    """Dotless code -> long title for the rows of ICD ``version`` (9 or 10)."""
    titles = {}
    for row, raw in read_rows(path, D_ICD_COLUMNS):
        if raw["icd_version"].strip() not in ("9", "10"):
            raise DataError(path, row, "icd_version", f"expected 9 or 10, got "
                            f"{raw['icd_version']!r}")
        code = raw["icd_code"].strip().upper()
        if not code.isalnum():
            raise DataError(path, row, "icd_code", f"not an ICD code: {raw['icd_code']!r}")
        if int(raw["icd_version"]) == version:
            titles[code] = raw["long_title"].strip()
    return titles


@dataclass(frozen=True)
class LabItem:
    itemid: int
    label: str
    fluid: str
    category: str

    @property
    def title(self) -> str:
        """How CliBench names the item: ``label for fluid (category)``."""
        return f"{self.label} for {self.fluid} ({self.category})"


def read_d_labitems(path: Path) -> dict[int, LabItem]:
    items = {}
    for row, raw in read_rows(path, D_LABITEMS_COLUMNS):
        try:
            itemid = int(raw["itemid"])
        except ValueError as err:
            raise DataError(path, row, "itemid", f"expected an integer, got "
                            f"{raw['itemid']!r}") from err
        items[itemid] = LabItem(itemid, raw["label"].strip(), raw["fluid"].strip(),
                                raw["category"].strip())
    return items
