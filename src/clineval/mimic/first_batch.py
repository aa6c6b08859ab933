"""The first batch of orders of each admission, streamed over an event table of any size.

``paper``: the events at the admission's first event time within ``window`` after admission
(CliBench App. B.6). ``code``: the public code's rule: events within ``cluster`` of the
admission's earliest event, or within ``window`` after admission (earlier events included).
Two passes over the table (the anchor time per admission, then the events); memory grows with
the number of admissions and their first-batch items, not with the table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pandas as pd

from clineval.errors import ConfigError
from clineval.mimic.mimic4 import integers, read_chunks, times

RULES = ("paper", "code")
WINDOW = pd.Timedelta(hours=24)
CLUSTER = pd.Timedelta(hours=2)
Chunks = Callable[[], Iterator[pd.DataFrame]]


def first_batch(
    path: Path,
    table: str,
    time_column: str,
    item_column: str,
    admit: pd.Series,
    rule: str = "paper",
    window: pd.Timedelta = WINDOW,
    cluster: pd.Timedelta = CLUSTER,
    date_only: bool = False,
    chunk_rows: int = 1_000_000,
) -> dict[int, list[str]]:
    """``hadm_id -> items`` (in file order, distinct) of each admission's first batch.

    ``admit``: admission time by ``hadm_id``; rows of other admissions, or without
    ``hadm_id``, are skipped. ``date_only``: event times are dates (``chartdate``); the
    window then starts at the admission's date.
    """
    if rule not in RULES:
        raise ConfigError(f"first_batch={rule!r}; use paper or code")
    columns = ("hadm_id", time_column, item_column)

    def chunks() -> Iterator[pd.DataFrame]:
        for chunk in read_chunks(path, table, columns, chunk_rows):
            chunk = chunk[chunk["hadm_id"].str.strip() != ""]
            if chunk.empty:
                continue
            hadm = integers(chunk, "hadm_id", path)
            frame = pd.DataFrame({"hadm": hadm.astype("int64"),
                                  "time": times(chunk, time_column, path),
                                  "item": chunk[item_column].str.strip()})
            frame["admit"] = frame["hadm"].map(admit)
            frame = frame[frame["admit"].notna() & frame["time"].notna()]
            if date_only:
                frame["admit"] = frame["admit"].dt.normalize()
            yield frame

    anchors: pd.Series = pd.Series(dtype="datetime64[ns]")
    for frame in chunks():
        if rule == "paper":
            start = frame["admit"]
            frame = frame[(frame["time"] >= start) & (frame["time"] <= start + window)]
        lowest = frame.groupby("hadm")["time"].min()
        anchors = lowest if anchors.empty else pd.concat([anchors, lowest]).groupby(level=0).min()
    batches: dict[int, list[str]] = {}
    for frame in chunks():
        frame = frame.assign(anchor=frame["hadm"].map(anchors))
        frame = frame[frame["anchor"].notna()]
        if rule == "paper":
            keep = frame["time"] == frame["anchor"]
        else:
            keep = ((frame["time"] - frame["anchor"]) <= cluster) | (
                (frame["time"] - frame["admit"]) <= window)
        for hadm, item in zip(frame.loc[keep, "hadm"], frame.loc[keep, "item"], strict=True):
            items = batches.setdefault(int(hadm), [])
            if item and item not in items:
                items.append(item)
    return batches
