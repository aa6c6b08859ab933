"""Lab test abbreviations written out before a lab item is matched (the careful reading,
``scoring.abbreviations``; docs/clibench.md, "Copied text, the similarity floor and readings").

The encoder places a bare abbreviation badly ("ALP" nearest to Sodium, "ALT" at 0.40 from its
own title), so the careful reading matches "Serum ALP 10.5 mg/dL" as "Serum Alkaline
Phosphatase 10.5 mg/dL". The table comes from two places:

- the candidate titles themselves: a MIMIC-IV lab label that gives its test's abbreviation in
  brackets, "Alanine Aminotransferase (ALT)", where the abbreviation's letters run in order
  through the name from its first letter (not "INR(PT)": PT does not abbreviate INR);
- :data:`HAND_TABLE`, the project's choice: common abbreviations (as LOINC's short names write
  them) of tests whose MIMIC-IV label carries none, each used only where a candidate title
  names its test (no "RBC" where no title names red blood cells).

An abbreviation two titles write out differently is left as written.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path

#: The project's hand list: abbreviation, test (a MIMIC-IV label), source (comment lines: ``#``).
HAND_TABLE = Path(__file__).with_name("lab_abbreviations.csv")
_BRACKETED = re.compile(r"^([A-Za-z][A-Za-z ,'-]*?)\s*\(([A-Z][A-Za-z0-9]{1,7})\)")


def hand_table(path: Path = HAND_TABLE) -> dict[str, str]:
    """The hand list: abbreviation -> test; a row without both is a ``ValueError`` naming it."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.startswith("#")]
    table = {}
    for number, row in enumerate(csv.DictReader(lines), start=1):
        abbreviation = (row.get("abbreviation") or "").strip()
        test = (row.get("test") or "").strip()
        if not abbreviation or not test:
            raise ValueError(f"{path}: data row {number}: needs an abbreviation and a test")
        table[abbreviation] = test
    return table


def _words(text: str) -> str:
    return " " + " ".join(re.findall(r"[a-z0-9]+", text.lower())) + " "


def _abbreviates(abbreviation: str, name: str) -> bool:
    """Whether the abbreviation's letters run in order through ``name`` from its first letter."""
    letters = [c for c in abbreviation.lower() if c.isalpha()]
    rest = name.lower()
    if not letters or not rest.startswith(letters[0]):
        return False
    for letter in letters:
        found = rest.find(letter)
        if found < 0:
            return False
        rest = rest[found + 1:]
    return True


@cache
def table(titles: tuple[str, ...]) -> dict[str, str]:
    """Abbreviation -> test for a pool of candidate ``titles``: their bracketed abbreviations
    and the hand list's entries whose test a title names."""
    found: dict[str, set[str]] = {}
    for title in titles:
        match = _BRACKETED.match(title)
        if match and _abbreviates(match.group(2), match.group(1)):
            found.setdefault(match.group(2), set()).add(match.group(1).strip())
    named = " ".join(_words(title) for title in titles)
    for abbreviation, test in hand_table().items():
        if _words(test) in named:
            found.setdefault(abbreviation, set()).add(test)
    return {abbreviation: next(iter(tests)) for abbreviation, tests in sorted(found.items())
            if len({_words(test) for test in tests}) == 1}


def expand(text: str, abbreviations: Mapping[str, str]) -> str:
    """``text`` with each abbreviation of the table (a whole word, as written) replaced by its
    test, unless the text names that test already."""
    for abbreviation, test in abbreviations.items():
        if _words(test) in _words(text):
            continue
        text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(abbreviation)}(?![A-Za-z0-9])",
                      lambda _, test=test: test, text)
    return text


def expansions(texts: Iterable[str], abbreviations: Mapping[str, str]) -> dict[str, str]:
    """Each of ``texts`` that the table changes -> its written-out form."""
    return {text: written for text in texts
            if (written := expand(text, abbreviations)) != text}
