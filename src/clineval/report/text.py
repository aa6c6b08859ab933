"""Plain text inside reStructuredText (the captions of Snakemake's report)."""

from __future__ import annotations

import re

_RST_MARKUP = re.compile(r"([\\*`|_<>\[\]])")


def rst_escape(text: str) -> str:
    """``text`` with every character that starts inline markup backslash-escaped."""
    return _RST_MARKUP.sub(r"\\\1", text)
