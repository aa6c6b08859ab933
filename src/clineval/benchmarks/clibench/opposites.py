"""An item and a title that name opposites (the careful reading; docs/clibench.md, "Copied
text, the similarity floor and readings").

The encoder reads words, not their sense: "Hypoglycemia" lies nearest to "Type 2 diabetes
mellitus with hyperglycemia". A coder never reads a term as the title of its opposite: where a
word of the item carries one prefix of :data:`PAIRS` and the title carries the other before the
same stem (and not the item's own word), the title is not the item's code.
"""

from __future__ import annotations

import re

#: Prefixes of opposite sense (medical terminology).
PAIRS = (("hypo", "hyper"), ("brady", "tachy"))
#: The shortest stem compared (``hyper-tension``: ``tension``).
MIN_STEM = 4
_OPPOSITE = {a: b for pair in PAIRS for a, b in (pair, pair[::-1])}


def _words(text: str) -> set[str]:
    """The lower-case words of ``text``, a hyphen inside a word dropped (``hypo-osmolality``)."""
    return set(re.findall(r"[a-z]+", re.sub(r"(?<=[a-z])-(?=[a-z])", "", text.lower())))


def _split(word: str) -> tuple[str, str] | None:
    """``(prefix, stem)`` of a word that opens with a prefix of :data:`PAIRS` (the longest)."""
    for prefix in sorted(_OPPOSITE, key=len, reverse=True):
        if word.startswith(prefix) and len(word) - len(prefix) >= MIN_STEM:
            return prefix, word[len(prefix):]
    return None


def opposite(item: str, title: str) -> tuple[str, str] | None:
    """``(the item's word, the title's word)`` when they name opposites: the same stem after
    opposite prefixes, the title lacking the item's word; else ``None``."""
    title_words = _words(title)
    for word in sorted(_words(item)):
        split = _split(word)
        if split is None or word in title_words:
            continue
        prefix, stem = split
        other = _OPPOSITE[prefix] + stem
        if other in title_words:
            return word, other
    return None
