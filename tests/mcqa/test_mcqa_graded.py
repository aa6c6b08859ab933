"""MCQA's answer letter against a hand-graded set of real model outputs (issue 34).

``tests/fixtures/mcqa_graded/`` (README.md there) holds real
SmolLM2-135M outputs on the demo's synthetic questions in every mode, each with the letter a
careful grader reads as the model's choice (null: no choice). ``extract.answer_letter`` must
read that letter on at least 98 % of them, and the outputs where it does not are pinned.
"""

from __future__ import annotations

from typing import Any

from graded import assert_reads_the_grades, graded

from clineval.benchmarks.mcqa.extract import answer_letter

FIXTURE = "mcqa_graded"
MINIMUM_OUTPUTS = 40
# Outputs where the reader's letter differs from the hand grade, and why.
DISAGREEMENTS: dict[str, str] = {}


def _graded() -> list[dict[str, Any]]:
    return graded(FIXTURE)


def test_fixture_is_complete_and_well_formed() -> None:
    records = _graded()
    assert len(records) >= MINIMUM_OUTPUTS
    assert len({r["key"] for r in records}) == len(records), "a key is listed twice"
    assert {r["mode"] for r in records} == {"zero_shot", "cot", "one_shot"}
    for r in records:
        where = f"{FIXTURE}, {r['key']}"
        assert r["grade"] is None or r["grade"] in r["options"], f"{where}: {r['grade']!r}"
        assert r["grade"] is not None or r["reason"], f"{where}: say why there is no answer"
        assert r["verdict"] == ("unanswered" if r["grade"] is None else
                                "right" if r["grade"] == r["answer"] else "wrong"), where


def test_the_reader_reads_what_the_grader_reads() -> None:
    assert_reads_the_grades(_graded(), lambda r: answer_letter(r["output"], r["options"]),
                            DISAGREEMENTS)
