"""MeQSum (Ben Abacha and Demner-Fushman, 2019): one xlsx, sheet "QS", columns File, CHQ, Summary.

The public file has 1,000 rows (consumer health question ``CHQ``, expert ``Summary``) and no
split, so exemplars are held out of it by seed. Ids use the unique ``File`` name:
``meqsum-<File without .txt>``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from clineval.benchmarks.base.exemplars import hold_out, slug
from clineval.benchmarks.base.sources import require
from clineval.benchmarks.clue.loaders import setting
from clineval.io import DataError, Record

COLUMNS = ("File", "CHQ", "Summary")
TASK = "meqsum"
WHERE = ("github.com/abachaa/MeQSum (public, CC BY 4.0), "
         "file MeQSum_ACL2019_BenAbacha_Demner-Fushman.xlsx")


def read_meqsum(path: Path) -> list[Record]:
    """The first sheet holding the three columns; Excel row numbers in errors and meta."""
    try:
        sheets = pd.read_excel(path, sheet_name=None, dtype=str, keep_default_na=False,
                               engine="openpyxl")
    except (ValueError, OSError, KeyError) as err:
        raise DataError(path, None, None, f"not a readable xlsx workbook: {err}") from err
    found = [(name, frame) for name, frame in sheets.items()
             if all(c in frame.columns for c in COLUMNS)]
    if not found:
        raise DataError(path, 1, "File", f"no sheet with the columns {', '.join(COLUMNS)}")
    sheet, frame = found[0]
    examples, seen = [], set()
    for index, raw in enumerate(frame.to_dict("records")):
        row = index + 2
        for field in COLUMNS:
            if not str(raw[field]).strip():
                raise DataError(path, f"{row} (sheet {sheet})", field, "empty: expected a value")
        name = str(raw["File"]).strip()
        if name in seen:
            raise DataError(path, f"{row} (sheet {sheet})", "File",
                            f"duplicate {name!r}: expected each File once")
        seen.add(name)
        examples.append({
            "id": f"meqsum-{slug(name.removesuffix('.txt'))}",
            "dataset": "meqsum",
            "fields": {"question": str(raw["CHQ"]).strip()},
            "reference": str(raw["Summary"]).strip(),
            "choices": None,
            "meta": {"source": path.name, "sheet": sheet, "row": row, "file": name},
        })
    if not examples:
        raise DataError(path, None, None, f"sheet {sheet!r} has no rows")
    return examples


def load_meqsum(
    path: Path | str | None, *, n_exemplars: int = 3, seed: int = 0
) -> tuple[list[Record], list[Record]]:
    """Every row an example, less ``n_exemplars`` held out as exemplars."""
    xlsx = require(path, TASK, "the MeQSum workbook MeQSum_ACL2019_BenAbacha_Demner-Fushman.xlsx",
                   WHERE, setting(TASK, "path"))
    return hold_out(read_meqsum(xlsx), n_exemplars, seed)
