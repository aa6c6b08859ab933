"""MIMIC-IV 2.2 ``hosp/`` and MIMIC-IV-Note 2.2 ``note/`` tables: the real columns, and a
chunked reader, so a table of any size (``labevents``: about 120 M rows) is read in bounded
memory.

Files are ``<table>.csv`` or ``<table>.csv.gz``. Every column is read as text; the caller parses
what it needs with :func:`integers` and :func:`times`, whose errors name the file, the row (the
header is row 1) and the column.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TextIO

import pandas as pd

from clineval.io import DataError, open_text
from clineval.validate import read_csv

#: The columns of each table, as MIMIC-IV 2.2 ships them.
COLUMNS: dict[str, tuple[str, ...]] = {
    "patients": ("subject_id", "gender", "anchor_age", "anchor_year", "anchor_year_group", "dod"),
    "admissions": (
        "subject_id", "hadm_id", "admittime", "dischtime", "deathtime", "admission_type",
        "admit_provider_id", "admission_location", "discharge_location", "insurance",
        "language", "marital_status", "race", "edregtime", "edouttime", "hospital_expire_flag",
    ),
    "diagnoses_icd": ("subject_id", "hadm_id", "seq_num", "icd_code", "icd_version"),
    "procedures_icd": ("subject_id", "hadm_id", "seq_num", "chartdate", "icd_code",
                       "icd_version"),
    "d_icd_diagnoses": ("icd_code", "icd_version", "long_title"),
    "d_icd_procedures": ("icd_code", "icd_version", "long_title"),
    "labevents": (
        "labevent_id", "subject_id", "hadm_id", "specimen_id", "itemid", "order_provider_id",
        "charttime", "storetime", "value", "valuenum", "valueuom", "ref_range_lower",
        "ref_range_upper", "flag", "priority", "comments",
    ),
    "d_labitems": ("itemid", "label", "fluid", "category"),
    "prescriptions": (
        "subject_id", "hadm_id", "pharmacy_id", "poe_id", "poe_seq", "order_provider_id",
        "starttime", "stoptime", "drug_type", "drug", "formulary_drug_cd", "gsn", "ndc",
        "prod_strength", "form_rx", "dose_val_rx", "dose_unit_rx", "form_val_disp",
        "form_unit_disp", "doses_per_24_hrs", "route",
    ),
    "services": ("subject_id", "hadm_id", "transfertime", "prev_service", "curr_service"),
    "transfers": ("subject_id", "hadm_id", "transfer_id", "eventtype", "careunit", "intime",
                  "outtime"),
    "discharge": ("note_id", "subject_id", "hadm_id", "note_type", "note_seq", "charttime",
                  "storetime", "text"),
    "radiology": ("note_id", "subject_id", "hadm_id", "note_type", "note_seq", "charttime",
                  "storetime", "text"),
}
HOSP = tuple(t for t in COLUMNS if t not in ("discharge", "radiology"))
NOTE = ("discharge", "radiology")
CHUNK_ROWS = 1_000_000


def table_path(directory: Path, table: str) -> Path:
    """``<directory>/<table>.csv.gz`` when it exists, else ``<table>.csv``."""
    gz = directory / f"{table}.csv.gz"
    return gz if gz.is_file() else directory / f"{table}.csv"


def read_chunks(path: Path, table: str, columns: Sequence[str],
                chunk_rows: int = CHUNK_ROWS) -> Iterator[pd.DataFrame]:
    """``columns`` of ``table`` in chunks of text columns; each chunk's ``row`` column is the
    file row of each record (header = 1). Empty fields are ``""``."""
    if not path.is_file():
        raise DataError(path, None, None, f"file not found (MIMIC-IV table {table})")
    unknown = [c for c in columns if c not in COLUMNS[table]]
    if unknown:
        raise ValueError(f"{table} has no column(s) {unknown}")
    try:
        header = pd.read_csv(path, nrows=0).columns
    except (ValueError, pd.errors.ParserError) as err:
        raise DataError(path, 1, None, f"expected a CSV header, got unreadable text: {err}"
                        ) from err
    missing = [c for c in columns if c not in header]
    if missing:
        raise DataError(path, 1, missing[0], f"missing column(s): {', '.join(missing)} (expected "
                        f"in the header, which has {', '.join(header)})")
    offset = 2
    try:
        with open_text(path) as handle:
            tail = _Tail(handle)
            reader = pd.read_csv(tail, usecols=list(columns), dtype=str, keep_default_na=False,
                                 chunksize=chunk_rows)
            held = None  # each chunk is yielded once the next is read: the last one after the
            for chunk in reader:  # check that the file does not end mid-row
                chunk["row"] = range(offset, offset + len(chunk))
                offset += len(chunk)
                if held is not None:
                    yield held
                held = chunk
            if tail.last not in ("", "\n", "\r"):
                _exact_error(path, table)
            if held is not None:
                yield held
    except pd.errors.ParserError as err:
        _exact_error(path, table)
        raise DataError(path, offset, None, f"expected CSV, got {err}") from err


class _Tail:
    """A text handle that remembers the last character read (pandas fills the fields a cut
    last row lacks with "", so a file that does not end in a line end is read again exactly)."""

    def __init__(self, handle: TextIO):
        self.handle, self.last = handle, ""

    def read(self, size: int = -1) -> str:
        text = self.handle.read(size)
        if text:
            self.last = text[-1]
        return text


def _exact_error(path: Path, table: str) -> None:
    """Read the file record by record to raise the error that names the row and field (a cut
    or short row, an open quote); pandas' own message names neither."""
    for _ in read_csv(path, COLUMNS[table][:1]):
        pass


def integers(chunk: pd.DataFrame, column: str, path: Path, allow_empty: bool = False,
             low: int | None = None, high: int | None = None) -> pd.Series:
    """``column`` as nullable integers; a non-integer (or, unless allowed, empty) value, or one
    outside ``[low, high]``, is an error naming its row."""
    text = chunk[column].str.strip()
    numbers = pd.to_numeric(text, errors="coerce")
    bad = numbers.isna() & ~(text.eq("") if allow_empty else False)
    bad |= numbers.notna() & (numbers % 1 != 0)
    expected = "an integer"
    if low is not None or high is not None:
        expected = f"an integer in [{'-inf' if low is None else low}, " \
                   f"{'inf' if high is None else high}]"
        bad |= numbers.notna() & ((numbers < (low if low is not None else -float("inf")))
                                  | (numbers > (high if high is not None else float("inf"))))
    if bad.any():
        first = bad.idxmax()
        raise DataError(path, int(chunk.at[first, "row"]), column,
                        f"expected {expected}, got {chunk.at[first, column]!r}")
    return numbers.astype("Int64")


def unique(chunk: pd.DataFrame, column: str, path: Path) -> None:
    """Each value of ``column`` once (a table's key), else an error naming both rows."""
    repeated = chunk[column].duplicated(keep=False)
    if repeated.any():
        rows = chunk.loc[repeated & chunk[column].eq(chunk.loc[repeated, column].iloc[0]), "row"]
        first, second = (int(r) for r in rows.iloc[:2])
        raise DataError(path, second, column, f"duplicate {chunk.at[rows.index[1], column]!r}, "
                        f"also in row {first}: expected each {column} once")


def times(chunk: pd.DataFrame, column: str, path: Path, allow_empty: bool = True
          ) -> pd.Series:
    """``column`` as timestamps (``YYYY-MM-DD[ HH:MM:SS]``); unparsable text is an error."""
    text = chunk[column].str.strip()
    parsed = pd.to_datetime(text, errors="coerce", format="ISO8601")
    bad = parsed.isna() & (text.ne("") if allow_empty else True)
    if bad.any():
        first = bad.idxmax()
        raise DataError(path, int(chunk.at[first, "row"]), column,
                        f"expected a date and time, got {chunk.at[first, column]!r}")
    return parsed


def read_table(path: Path, table: str, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """A whole (small) table: every chunk of ``columns`` (default: all) concatenated."""
    chunks = list(read_chunks(path, table, columns or COLUMNS[table]))
    return pd.concat(chunks, ignore_index=True) if chunks else pd.DataFrame(
        columns=[*(columns or COLUMNS[table]), "row"])
