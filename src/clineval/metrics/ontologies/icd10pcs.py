"""ICD-10-PCS levels: section, body system, root operation, full code.

A PCS code is seven characters from digits and letters other than I and O; its first three
characters are the section, body system and root operation, so the levels are prefixes.
"""

from __future__ import annotations

import re

LEVELS = ("section", "body_system", "root_operation", "code")
_LENGTHS = {"section": 1, "body_system": 2, "root_operation": 3, "code": 7}
PATTERN = re.compile(r"^[0-9A-HJ-NP-Z]{7}$")


def canonical(code: str) -> str | None:
    """``code`` upper-cased when it has the PCS shape, else ``None``."""
    text = code.strip().upper()
    return text if PATTERN.match(text) else None


def at(code: str, level: str) -> set[str]:
    if level not in _LENGTHS:
        raise ValueError(f"unknown ICD-10-PCS level {level!r}; levels: {', '.join(LEVELS)}")
    found = canonical(code)
    return {found[: _LENGTHS[level]]} if found else set()


def levels() -> list[tuple[str, object]]:
    return [(name, lambda code, name=name: at(code, name)) for name in LEVELS]
