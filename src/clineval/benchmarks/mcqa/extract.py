"""The answer's letter in a model's output (docs/extending.md, "Scoring").

Read in this order, the first that finds a letter among the question's options wins:
1. the whole output is a letter (``B``, ``(B)``, ``B.``, ``B)``);
2. the last ``answer`` followed by a letter (``Answer: B``, ``the answer is (B)``,
   ``{"answer": "B"}``);
3. the first line that starts with a letter and ``.``, ``)`` or ``:`` (``B. Insulin``);
4. exactly one option's text appears in the output.
None: no letter was read (the output is unanswered, and wrong).
"""

from __future__ import annotations

import re

_WHOLE = re.compile(r"^\s*\(?([A-Z])\)?[.):]?\s*$")
_ANSWER = re.compile(r"(?i:answer)(?:\s+is)?[\s:\"'=\-*]*\(?([A-Z])(?![A-Za-z])")
_LINE = re.compile(r"^\s*\(?([A-Z])[.):]\s", re.MULTILINE)


def answer_letter(output: str, options: dict[str, str]) -> str | None:
    """The letter of the option ``output`` chose, or None."""
    whole = _WHOLE.match(output)
    if whole and whole.group(1) in options:
        return whole.group(1)
    said = [m.group(1) for m in _ANSWER.finditer(output) if m.group(1) in options]
    if said:
        return said[-1]
    for match in _LINE.finditer(output):
        if match.group(1) in options:
            return match.group(1)
    lowered = output.lower()
    named = [letter for letter, text in options.items() if text.lower() in lowered]
    return named[0] if len(named) == 1 else None
