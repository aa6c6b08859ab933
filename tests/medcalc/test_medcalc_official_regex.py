"""The linear-time forms of the official MedCalc-Bench regexes match the literal official ones."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from clineval.benchmarks.medcalc import extract_official as off

PIECES = [
    "1", "0", "5", "12", "-", ".", ",", ", ", " ", "  ", "\n", "\t", "%", "mL/min/1.73", " out of",
    'answer":', 'Answer":', "}", "{", '"', "'", "(", ")", "[", "]", "str(", "weeks", "week",
    "days", "day", "x", "\u0663", "\u00b2",
]
TEXT = st.one_of(st.lists(st.sampled_from(PIECES), max_size=30).map("".join), st.text(max_size=60))
ORIGINAL = {name: re.compile(p) for name, p in off.OFFICIAL_PATTERNS.items()}


def _groups(m: re.Match[str] | None) -> tuple[object, ...] | None:
    return None if m is None else (m.group(0), *m.groups())


@settings(max_examples=1500, deadline=None)
@given(text=TEXT)
def test_fast_forms_equal_official_patterns(text: str) -> None:
    assert off.answer_matches(text) == ORIGINAL["answer"].findall(text)
    one_line = text.replace("\n", " ")
    original = ORIGINAL["expression"].search(one_line)
    assert off.expression_body(one_line) == (original.group(1) if original else None)
    for name, fast in [
        ("weeks_days", off._WEEKS_DAYS), ("out_of", off._OUT_OF), ("int_list", off._INT_LIST),
        ("egfr", off._EGFR), ("percent", off._PERCENT),
    ]:
        assert _groups(fast.search(text)) == _groups(ORIGINAL[name].search(text)), name
    assert off._PERCENT.findall(text) == ORIGINAL["percent"].findall(text)


def test_fast_forms_on_known_tricky_text() -> None:
    cases = ["5-3 mL/min/1.73", "0.5.3%", "12 34%", "1.5.5 mL/min/1.73", "--3%", "10 out of 12",
             '{"answer":\n"5"}', '"answer": "5"\n}', '"answer": 1} "answer": 2}', "40", "35w 4d"]
    for text in cases:
        test_fast_forms_equal_official_patterns.hypothesis.inner_test(text)  # type: ignore[attr-defined]
