"""LOINC levels from the LOINC release's ``ComponentHierarchyBySystem.csv``, and MIMIC-IV lab
itemids -> LOINC through a mapping in the format of mimic-code's ``d_labitems_to_loinc.csv``.

The hierarchy file (licensed; the user supplies it) has one row per node: ``PATH_TO_ROOT`` (the
ancestors' LP codes, root first, joined by ``.``), ``CODE`` (an LP part or a LOINC term) and
``CODE_TEXT``. A LOINC term's levels are the first three nodes of its path (root, class, group)
and the term itself; a term found on several paths contributes every path's node. The public
CliBench scorer used the term's immediate parent as its finest level (``compat``: ``parent``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from clineval.validate import read_csv

LEVELS = ("L1", "L2", "L3", "L4")
PATTERN = re.compile(r"^(\d{1,7})-(\d)$")
LEAF_KINDS = ("term", "parent")


def check_digit(number: str) -> int:
    """The LOINC mod-10 check digit of the digits before the hyphen."""
    total = 0
    for position, char in enumerate(reversed(number)):
        digit = int(char)
        if position % 2 == 0:
            digit *= 2
            digit = digit - 9 if digit > 9 else digit
        total += digit
    return (10 - total % 10) % 10


def canonical(code: str) -> str | None:
    """``code`` when it is a LOINC number whose check digit is right, else ``None``."""
    match = PATTERN.match(code.strip())
    if not match or check_digit(match.group(1)) != int(match.group(2)):
        return None
    return f"{int(match.group(1))}-{match.group(2)}"


@dataclass(frozen=True)
class Hierarchy:
    paths: dict[str, tuple[tuple[str, ...], ...]]  #: code -> its paths (root first)
    titles: dict[str, str]  #: every node's text

    def at(self, code: str, index: int, leaf: str = "term") -> set[str]:
        """``code``'s nodes at level ``index`` (0-2 from the root); 3 is the leaf level."""
        paths = self.paths.get(code, ())
        if index == 3:
            if leaf == "term":
                return {code}
            return {path[-1] for path in paths if path}
        return {path[index] for path in paths if len(path) > index}

    def fallback_levels(self, leaf: str = "parent") -> list[tuple[str, object]]:
        """The public CliBench scorer's reading (``compat``): a code without a path in the
        hierarchy (a MIMIC itemid read as a LOINC number) is its own node at every level."""
        def at(code: str, index: int) -> set[str]:
            found = self.at(code, index, leaf) if code in self.paths else set()
            return found or {code}

        return [(name, lambda code, i=i: at(code, i)) for i, name in enumerate(LEVELS)]

    def levels(self, leaf: str = "term") -> list[tuple[str, object]]:
        if leaf not in LEAF_KINDS:
            raise ValueError(f"leaf={leaf!r}; use one of {', '.join(LEAF_KINDS)}")
        return [(name, lambda code, i=i: self.at(code, i, leaf)) for i, name in enumerate(LEVELS)]


@cache
def read_hierarchy(path: Path) -> Hierarchy:
    """Read ``ComponentHierarchyBySystem.csv`` (columns ``PATH_TO_ROOT, CODE, CODE_TEXT``)."""
    paths: dict[str, list[tuple[str, ...]]] = {}
    titles: dict[str, str] = {}
    for row in read_csv(Path(path), ("PATH_TO_ROOT", "CODE", "CODE_TEXT")):
        code = row.text("CODE")
        titles[code] = row.text("CODE_TEXT", required=False)
        path_text = row.text("PATH_TO_ROOT", required=False)
        nodes = tuple(p for p in path_text.split(".") if p) if path_text else ()
        paths.setdefault(code, [])
        if nodes not in paths[code]:
            paths[code].append(nodes)
    return Hierarchy({c: tuple(p) for c, p in paths.items()}, titles)


#: Column names of mimic-code's d_labitems_to_loinc.csv.
ITEMID, VOCABULARY, CONCEPT_CODE = "itemid (omop_source_code)", "omop_vocabulary_id", \
    "omop_concept_code"


@dataclass(frozen=True)
class ItemidMap:
    loinc: dict[str, str]  #: itemid (as a string) -> LOINC number
    #: ``(row, text)`` of LOINC rows whose code is malformed (the real file has two); skipped.
    skipped: tuple[tuple[int, str], ...]


@cache
def read_itemid_map(path: Path) -> ItemidMap:
    """MIMIC-IV lab itemid -> LOINC number, from rows whose vocabulary is LOINC and whose code
    is a LOINC number with a valid check digit (others are listed in ``skipped``)."""
    mapping, skipped = {}, []
    for row in read_csv(Path(path), (ITEMID, VOCABULARY, CONCEPT_CODE)):
        text = row.text(CONCEPT_CODE, required=False)
        if row.text(VOCABULARY, required=False) != "LOINC" or not text:
            continue  # an itemid without a LOINC mapping
        itemid = row.text(ITEMID, required=False)
        if not itemid.isdigit():
            raise row.expect(ITEMID, "an itemid (digits)")
        loinc = canonical(text)
        if loinc is None:
            skipped.append((row.row, text))
        else:
            mapping[itemid] = loinc
    return ItemidMap(mapping, tuple(skipped))
