"""The answer's letter in a model's output (docs/extending.md, "Scoring").

Read in this order, the first that finds a letter among the question's options wins:
1. the whole output is a letter (``B``, ``(B)``, ``B.``, ``B)``);
2. the last ``answer`` followed by a letter (``Answer: B``, ``the answer is (B)``,
   ``{"answer": "B"}``);
3. the first line that starts with a letter and ``.``, ``)`` or ``:`` (``B. Insulin``);
4. exactly one option's text appears in the output.
Lines of 3 that start with different letters (options listed, or two answers) are no answer;
the same letter repeated is that letter. In 2 the last answer is a revision of any before it
("Answer: A ... On reflection, Answer: D" is D).
A letter of 2 or 3 followed, on its line, by an option's text must agree with it: when the text
names another option and not the letter's own ("Answer: C. Hyperkalemia" where C is Chloride and
A is Hyperkalemia), the output contradicts itself and gives no answer. Text that names no option
(an explanation) leaves the letter as it is.
None: no letter was read (the output is unanswered, and wrong).
"""

from __future__ import annotations

import re

_WHOLE = re.compile(r"^\s*\(?([A-Z])\)?[.):]?\s*$")
_ANSWER = re.compile(r"(?i:answer)(?:\s+is)?[\s:\"'=\-*]*\(?([A-Z])(?![A-Za-z])")
_LINE = re.compile(r"^\s*\(?([A-Z])[.):]\s", re.MULTILINE)
#: What follows a letter on its line: a closing bracket or mark, then the text.
_AFTER = re.compile(r"\)?[ \t]*[.):\-][ \t]*([^\n]*)")
_WORD = re.compile(r"\d+(?:\.\d+)?|[^\W\d_]+")


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def _names(text: set[str], option: str) -> bool:
    """Whether ``text`` (its words) holds every word of ``option``."""
    wanted = _words(option)
    return bool(wanted) and wanted <= text


def contradicts(output: str, end: int, letter: str, options: dict[str, str]) -> bool:
    """Whether the text after the letter that ends at ``end`` names another option and not
    the letter's own."""
    after = _AFTER.match(output, end)
    if after is None:
        return False
    text = _words(after.group(1))
    if _names(text, options[letter]):
        return False
    return any(_names(text, other) for key, other in options.items() if key != letter)


def answer_letter(output: str, options: dict[str, str]) -> str | None:
    """The letter of the option ``output`` chose, or None."""
    whole = _WHOLE.match(output)
    if whole and whole.group(1) in options:
        return whole.group(1)
    said = [m for m in _ANSWER.finditer(output) if m.group(1) in options]
    if said:
        last = said[-1]
        return None if contradicts(output, last.end(1), last.group(1), options) else last.group(1)
    lines = [m for m in _LINE.finditer(output) if m.group(1) in options]
    if len({m.group(1) for m in lines}) > 1:
        return None
    if lines:
        letter = lines[0].group(1)
        return None if contradicts(output, lines[0].end(1), letter, options) else letter
    lowered = output.lower()
    named = [letter for letter, text in options.items() if text.lower() in lowered]
    return named[0] if len(named) == 1 else None
