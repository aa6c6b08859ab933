"""The hand-graded sets' one format and one builder (tests/fixtures/README.md): outputs
written from a run, grades read through the grades reader, stale grades found by the output's
hash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from graded import graded
from graded_build import build

from clineval.io import write_jsonl
from clineval.report.grades import output_sha256

EXAMPLE = {"id": "D001/severity_level", "lang": "en", "disease": "gout", "aspect": "severity",
           "type": "numeric", "label": "severity level", "verb": "is", "reference": "2"}


def fake_run(root: Path, output: str) -> tuple[Path, Path]:
    """A run's results and data folders holding one MedDisK generation."""
    results, data = root / "results", root / "data"
    write_jsonl(data / "derived/meddisk_en/examples.jsonl", [EXAMPLE])
    write_jsonl(results / "requests/m/meddisk_en/zero_shot.jsonl", [
        {"id": EXAMPLE["id"], "messages": [{"role": "user", "content": "State the level."}]}])
    write_jsonl(results / "generations/m/meddisk_en/zero_shot.jsonl", [
        {"id": EXAMPLE["id"], "output": output, "finish_reason": "stop"}])
    return results, data


def grade(output: str) -> dict:
    return {"model": "m", "task": "meddisk_en", "mode": "zero_shot",
            "id": "r1:meddisk_en:zero_shot:D001/severity_level",
            "output_sha256": output_sha256(output), "scoring": "meddisk scoring 5",
            "reading": "reading", "grader": "ann", "verdict": "scored", "read": 2,
            "note": "", "context": {"kind": "number"}}


def test_the_builder_writes_outputs_and_lists_what_is_not_graded(tmp_path: Path) -> None:
    root = tmp_path / "fixtures"
    results, data = fake_run(tmp_path / "run", "The level is 2.")
    key = "r1:meddisk_en:zero_shot:D001/severity_level"
    assert build("meddisk_graded", [("r1", results, data)], "m", root=root) == [key]
    (line,) = [json.loads(t) for t in (root / "meddisk_graded/outputs.jsonl").open()]
    assert line == {"key": key, "source": "r1", "task": "meddisk_en", "mode": "zero_shot",
                    "max_tokens": None, **EXAMPLE, "prompt": "State the level.",
                    "finish_reason": "stop", "output": "The level is 2."}
    (root / "meddisk_graded/grades.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(AssertionError, match="has no grade"):
        graded("meddisk_graded", root=root)
    write_jsonl(root / "meddisk_graded/grades.jsonl", [grade("The level is 2.")])
    (record,) = graded("meddisk_graded", root=root)
    assert (record["grade"], record["kind"], record["verdict"]) == (2, "number", "scored")
    # a new run of the same label changes the output: its grade is stale, listed and failed
    results, data = fake_run(tmp_path / "run2", "The level is 3.")
    assert build("meddisk_graded", [("r1", results, data)], "m", root=root) == [key]
    with pytest.raises(AssertionError, match="stale grade"):
        graded("meddisk_graded", root=root)


def test_a_grade_of_no_output_fails(tmp_path: Path) -> None:
    folder = tmp_path / "meddisk_graded"
    write_jsonl(folder / "outputs.jsonl", [])
    write_jsonl(folder / "grades.jsonl", [grade("x")])
    with pytest.raises(AssertionError, match="grades of no output"):
        graded("meddisk_graded", root=tmp_path)


def test_a_sets_grades_go_through_clineval_agreement_and_turn_stale(tmp_path: Path) -> None:
    """A set's grades carry its scoring identity (``graded.scoring_identity``): set against
    its outputs rescored now by ``clineval agreement``'s code they all count; an output
    changed since it was graded, or a grade of another scoring identity, is stale and not
    counted."""
    from graded import FIXTURES, scorer_agreement, scoring_identity

    from clineval.benchmarks import get_benchmark
    from clineval.report.agreement import shares

    root = tmp_path / "fixtures"
    (root / "mcqa_graded").mkdir(parents=True)
    records = [json.loads(t) for t in (FIXTURES / "mcqa_graded/outputs.jsonl").open()][:4]
    grades = [json.loads(t) for t in (FIXTURES / "mcqa_graded/grades.jsonl").open()][:4]
    assert {g["scoring"] for g in grades} == {scoring_identity("mcqa")[0]}
    records[0]["output"] = "B"  # changed since it was graded
    grades[1]["scoring"] = "mcqa scoring 2"  # graded under another scoring identity
    write_jsonl(root / "mcqa_graded/outputs.jsonl", records)
    write_jsonl(root / "mcqa_graded/grades.jsonl", grades)
    examples = {r["key"]: {k: r[k] for k in ("question", "options", "answer")} for r in records}
    rows, _ = get_benchmark("mcqa").score({}, [{**e, "id": k} for k, e in examples.items()],
                                          [{"id": r["key"], "output": r["output"]}
                                           for r in records])
    found = scorer_agreement("mcqa_graded", "mcqa", {r["id"]: r for r in rows}, examples,
                             tmp_path / "work", root=root)
    assert [(g.id, why.split(" (")[0]) for g, why in found.stale] == [
        (records[0]["key"], "the output changed since it was graded"),
        (records[1]["key"], "scoring identity changed")]
    assert [(s.agree, s.graded) for s in shares(found.counted, "benchmark")] == [(2, 2)]
