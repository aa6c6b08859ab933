"""MCQA's answer letter against a hand-graded set of real model outputs (issue 34).

``tests/fixtures/mcqa_graded/`` (README.md there) holds real
SmolLM2-135M outputs on the demo's synthetic questions in every mode, each with the letter a
careful grader reads as the model's choice (null: no choice). ``extract.answer_letter`` must
read that letter on at least 98 % of them, and the outputs where it does not are pinned.
"""

from __future__ import annotations

from typing import Any

from graded import assert_reads_the_grades, graded, scorer_agreement

from clineval.benchmarks.mcqa.benchmark import BENCHMARK
from clineval.benchmarks.mcqa.extract import answer_letter
from clineval.report.agreement import shares

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


def test_the_scorer_agrees_with_the_graders_through_clineval_agreement(tmp_path) -> None:
    """The grades against the scorer's verdicts as ``clineval agreement`` sets them: the set's
    outputs rescored by the benchmark now, as cells of a run (one per mode), read back and
    compared by :mod:`clineval.report.agreement`; every grade counts (none stale)."""
    records = _graded()
    examples = {r["key"]: {k: r[k] for k in ("question", "options", "answer")} for r in records}
    rows, _ = BENCHMARK.score({}, [{**e, "id": k} for k, e in examples.items()],
                              [{"id": r["key"], "output": r["output"]} for r in records])
    found = scorer_agreement(FIXTURE, "mcqa", {r["id"]: r for r in rows}, examples, tmp_path)
    assert found.stale == []
    assert [(s.label, s.agree, s.graded) for s in shares(found.counted, "benchmark")] == [
        ("Medical MCQA", 45, 45)]
    assert {s.label: s.graded for s in shares(found.counted, "cell")} == {
        "smollm2_135m/mcqa/cot": 15, "smollm2_135m/mcqa/one_shot": 15,
        "smollm2_135m/mcqa/zero_shot": 15}
