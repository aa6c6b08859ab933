"""ATC levels by code length, and NDC -> ATC from a user-supplied mapping file.

ATC levels are prefixes: anatomical main group (1 character), therapeutic subgroup (3),
pharmacological subgroup (4), chemical subgroup (5), chemical substance (7). The CliBench paper
scores levels 1-4 of the hierarchy (lengths 1, 3, 4, 5); its public code scores prefixes of
lengths 1, 2, 3, 4 instead (``compat``: :data:`CODE_LENGTHS`).

The NDC -> ATC file is a CSV with columns ``ndc`` and ``atc`` (one row per pair; an NDC may
have several ATC classes), NDCs as 11-digit strings as MIMIC-IV stores them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from clineval.validate import read_csv

LEVELS = ("anatomical", "therapeutic", "pharmacological", "chemical", "substance")
PAPER_LENGTHS = (1, 3, 4, 5)
CODE_LENGTHS = (1, 2, 3, 4)
_SHAPE = re.compile(r"^[ABCDGHJLMNPRSV](?:\d{2}(?:[A-Z](?:[A-Z](?:\d{2})?)?)?)?$")


def canonical(code: str) -> str | None:
    """``code`` upper-cased when it has the shape of an ATC code at some level, else ``None``."""
    text = code.strip().upper()
    return text if _SHAPE.match(text) else None


def prefix_level(length: int, coarse: str = "reach"):
    """The level of prefixes of ``length`` characters. A shorter (coarse) code has none there
    (``coarse="self"``: it stands for itself, the rule ICD-10-CM's ``self`` applies)."""
    def function(code: str) -> set[str]:
        found = canonical(code)
        if not found:
            return set()
        if len(found) >= length:
            return {found[:length]}
        return {found} if coarse == "self" else set()

    return function


def levels(lengths: Sequence[int] = PAPER_LENGTHS, coarse: str = "reach"
           ) -> list[tuple[str, object]]:
    """Level functions named ``L1``.. for the given prefix lengths."""
    return [(f"L{i}", prefix_level(n, coarse)) for i, n in enumerate(lengths, start=1)]


def normalize_ndc(ndc: str) -> str:
    """An NDC as MIMIC-IV stores it: digits only (leading zeros kept)."""
    return re.sub(r"\D", "", ndc)


@cache
def read_ndc_map(path: Path) -> dict[str, tuple[str, ...]]:
    """NDC -> its ATC codes, from a CSV with columns ``ndc`` and ``atc``."""
    mapping: dict[str, list[str]] = {}
    for row in read_csv(Path(path), ("ndc", "atc")):
        ndc, atc = normalize_ndc(row.values["ndc"]), canonical(row.values["atc"])
        if not ndc:
            raise row.expect("ndc", "an NDC (digits)")
        if atc is None:
            raise row.expect("atc", "an ATC code")
        mapping.setdefault(ndc, [])
        if atc not in mapping[ndc]:
            mapping[ndc].append(atc)
    return {ndc: tuple(codes) for ndc, codes in mapping.items()}


@cache
def read_titles(path: Path) -> dict[str, str]:
    """ATC code -> name, from a CSV with columns ``atc`` and ``name``."""
    titles = {}
    for row in read_csv(Path(path), ("atc", "name")):
        code = canonical(row.values["atc"])
        if code is None:
            raise row.expect("atc", "an ATC code")
        titles[code] = row.text("name", required=False)
    return titles
