"""Code prediction answers: the documented answer format, rendering and per-code extraction.

Answer format: one ``<code>: <value>`` pair per code, pairs separated by ``;``, commas or new
lines, value ``positive``, ``negative`` or ``unknown`` (``=`` or ``-`` also separate a pair; code
names compare without case, spaces or punctuation). ``All other(s): <value>`` (or ``All other
<value>``) gives every code not named. An answer is *qualified* when every code of the domain
gets a value and none gets two different ones; codes without a value are predicted ``None``
(counted wrong).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from clineval.benchmarks.medeval.formats import CODE_VALUES, normalise_code

_VALUE = "|".join(CODE_VALUES)
_PAIR = re.compile(
    rf"([A-Za-z][A-Za-z /()'-]*?)(?:\s+(?:is|are))?\s*(?:[:=]|\s-\s|\s)\s*\(?({_VALUE})\b",
    re.IGNORECASE,
)
_ALL_OTHER = re.compile(rf"\ball\s+others?\b\s*[:=-]?\s*(?:are\s+)?({_VALUE})\b", re.IGNORECASE)


def render_codes(values: Mapping[str, str]) -> str:
    """A code vector in the answer format (as exemplars and the oracle write it)."""
    return "; ".join(f"{code}: {value}" for code, value in values.items())


@dataclass(frozen=True)
class CodeAnswer:
    predicted: dict[str, str | None]
    qualified: bool
    conflicts: tuple[str, ...]


def extract_codes(output: str, codes: Sequence[str]) -> CodeAnswer:
    """Per-code predictions from a raw answer (see the module docstring)."""
    by_key = {normalise_code(c): c for c in codes}
    found: dict[str, str] = {}
    conflicts: set[str] = set()
    text = _ALL_OTHER.sub(" ", output)
    for match in _PAIR.finditer(text):
        name = normalise_code(re.sub(r"^(label|answer)s?\s*", "", match.group(1).strip(),
                                     flags=re.IGNORECASE))
        code = by_key.get(name)
        if code is None:
            continue
        value = match.group(2).lower()
        if code in found and found[code] != value:
            conflicts.add(code)
        found.setdefault(code, value)
    rest = _ALL_OTHER.search(output)
    predicted: dict[str, str | None] = {
        c: (None if c in conflicts else found.get(c, rest.group(1).lower() if rest else None))
        for c in codes
    }
    qualified = not conflicts and all(v is not None for v in predicted.values())
    return CodeAnswer(predicted, qualified, tuple(sorted(conflicts)))
