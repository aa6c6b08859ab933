"""Raw outputs -> predictions: label words of the NLU sentence tasks, texts of the NLG tasks.

Label extraction (App. D's *qualified* answers): the output is lower-cased, a leading
``Label:``/``Answer:`` is dropped and punctuation becomes space; the answer is qualified when
exactly one of the task's label words occurs as a whole word (``lenient``, the paper's
definition: "including only one of normal or abnormal"), or, under ``strict``, when the cleaned
answer *is* one label word. Anything else is unqualified (prediction None).
Generated texts lose a leading ``Rewrite:``/``Summary:`` label and surrounding whitespace.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

MODES = ("lenient", "strict")
_LEAD = re.compile(r"^\s*(?:label|answer)\s*[:\-]\s*", re.IGNORECASE)
_TEXT_LEAD = re.compile(r"^\s*(?:rewrite|rewritten sentence|summary)\s*:\s*", re.IGNORECASE)
_WORD = re.compile(r"[a-z]+")


@dataclass(frozen=True)
class Label:
    prediction: str | None
    qualified: bool


def extract_label(output: str, labels: Sequence[str], mode: str = "lenient") -> Label:
    """The label word of an NLU answer (see the module docstring)."""
    if mode not in MODES:
        raise ValueError(f"label extraction {mode!r}; use {' or '.join(MODES)}")
    words = _WORD.findall(_LEAD.sub("", output.strip(), count=1).lower())
    if mode == "strict":
        hit = words[0] if len(words) == 1 and words[0] in labels else None
        return Label(hit, hit is not None)
    present = sorted({w for w in words if w in labels})
    if len(present) == 1:
        return Label(present[0], True)
    return Label(None, False)


def clean_text(output: str) -> str:
    """A rewrite or summary without a leading answer label."""
    return _TEXT_LEAD.sub("", output.strip(), count=1).strip()
