"""Prompt templates: ``{name}`` placeholders filled from the example, other braces kept."""

from __future__ import annotations

import re
from collections.abc import Mapping

_PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


def fill(template: str, values: Mapping[str, str]) -> str:
    """Substitute ``{name}`` for the names in ``values``; other braces stay (JSON, code and
    formulas in notes, answer formats)."""
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)
