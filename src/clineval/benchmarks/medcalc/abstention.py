"""Abstentions: answers that decline to give a value because the note does not allow one.

A row labelled ``N/A`` (Ye et al. 2025: the note lacks what the calculator needs) is answered
correctly only by an abstention. An answer abstains when its answer text (the official answer
field, or the text the robust reader locates) is one of the words ``N/A``, ``none``, ``null``,
``nil``, ``unknown``, ``undefined``; or opens with ``N/A``, "not applicable / available /
calculable / possible / enough", "no answer", "cannot", "can't", "could not", "unable to",
"impossible to", "insufficient", "indeterminate", "undetermined", "missing information" or
"abstain"; or is a JSON ``null``.
"""

from __future__ import annotations

import re

from .extract_official import raw_answer
from .extract_robust import answer_text

__all__ = ["ABSTAINED", "abstains", "answer_abstains"]

ABSTAINED = "N/A"
_LEAD = r"^[\s\"'`*_(\[{<:.-]*"
_TRAIL = r"[\s\"'`*_)\]}>.!]*$"
# A whole answer that is one of these words abstains ("none" may also be a count, so only alone).
_WORDS = re.compile(_LEAD + r"(?:n\s*/\s*a|none|null|nil|unknown|undefined)" + _TRAIL,
                    re.IGNORECASE)
# An answer that opens with one of these phrases abstains, whatever follows.
_PHRASES = re.compile(
    _LEAD + r"(?:n\s*/\s*a\b|not\s+(?:applicable|available|calculable|computable|"
    r"determinable|possible|enough)\b|no\s+answer\b|"
    r"(?:cannot|can\s*not|can['’]?t|could\s+not|unable\s+to|impossible\s+to)\b|"
    r"insufficient\b|indeterminate\b|undetermin\w*|"
    r"missing\s+(?:information|data|values?)\b|abstain\w*)",
    re.IGNORECASE,
)


def abstains(text: str | None) -> bool:
    """Whether an answer text declines to answer (see the module docstring)."""
    return text is not None and bool(_WORDS.match(text) or _PHRASES.match(text))


def answer_abstains(setting: str, output: str) -> bool:
    """Whether ``output`` abstains, reading its answer as extraction ``setting`` does."""
    if setting == "official":
        return abstains(raw_answer(output))
    text, reason = answer_text(output)
    return reason == "answer is null" or abstains(text)
