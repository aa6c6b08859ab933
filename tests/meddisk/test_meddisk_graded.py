"""MedDisK's careful reading against a hand-graded set of real model outputs (issue 34).

``tests/fixtures/meddisk_graded/`` (README.md there) holds SmolLM2-135M's answers
to the synthetic demo KB's questions, in zh and en, with and without demonstrations, at several
generation budgets, each with what a careful grader following App. D reads as the answer: an
explicit none, the items, number or text that would be scored, or nothing (``null``:
unanswered). The careful reading (``scoring.read``) must read that on at least 98 % of them,
and the rows where it does not are pinned. Each grade's verdict (App. D's tiers as a reader
judges them) is also set against the scorer's, through ``clineval agreement``'s code, with the
bundled encoder; no model runs.
"""

from __future__ import annotations

from typing import Any

from graded import assert_reads_the_grades, graded, scorer_agreement
from meddisk_records import task

from clineval.benchmarks.meddisk import extract, scoring
from clineval.report.agreement import shares

FIXTURE = "meddisk_graded"
MINIMUM_ROWS = 40
# Rows where the careful reading differs from the hand grade, and why.
DISAGREEMENTS: dict[str, str] = {
    "run128:meddisk_zh:zero_shot:D007/severity_level":
        "'1. 现在请回答：' repeated on one line: only the first 1. opens a line, so the careful "
        "reading takes the next 1 (after a colon) as the number; a marker after a colon cannot "
        "be told from an answer ('…为：2. 中度') by rule",
}
FIELDS = ("key", "source", "task", "mode", "max_tokens", "id", "lang", "disease", "aspect",
          "type", "label", "verb", "reference", "prompt", "finish_reason", "output", "grade",
          "reason")


def _graded() -> list[dict[str, Any]]:
    found = []
    for record in graded(FIXTURE):
        assert set(FIELDS) <= set(record), record["key"]
        kind = record.pop("kind", None)
        record["grade"] = (None if kind is None
                           else {kind: True if kind == "none" else record["grade"]})
        found.append(record)
    return found


def _example(record: dict[str, Any]) -> dict[str, Any]:
    return {**{k: record[k] for k in ("id", "lang", "disease", "aspect", "type", "label",
                                      "verb", "reference")},
            "disease_id": record["id"].split("/")[0]}


def _generation(record: dict[str, Any], messages: bool = True) -> dict[str, Any]:
    return {"id": record["id"], "output": record["output"],
            "finish_reason": record["finish_reason"],
            **({"messages": [{"role": "user", "content": record["prompt"]}]} if messages else {})}


def as_grade(answer: extract.Answer) -> dict[str, Any] | None:
    """A reading in the fixture's grade form: None (unanswered), ``{"none": true}``,
    ``{"items": [...]}``, ``{"number": n}`` or ``{"text": "..."}``."""
    if answer.unanswered:
        return None
    if answer.none:
        return {"none": True}
    if answer.items:
        return {"items": list(answer.items)}
    if answer.number is not None:
        return {"number": answer.number}
    return {"text": answer.text}


def reading(record: dict[str, Any], literal: bool = False) -> dict[str, Any] | None:
    settings = scoring.settings_of(task(record["lang"]))
    return as_grade(scoring.read(_example(record), _generation(record), settings,
                                 literal=literal))


def test_fixture_is_complete_and_covers_languages_and_types() -> None:
    records = _graded()
    assert len(records) >= MINIMUM_ROWS
    assert len({r["key"] for r in records}) == len(records), "a key is listed twice"
    assert {r["lang"] for r in records} == {"zh", "en"}
    for lang in ("zh", "en"):
        assert {r["type"] for r in records if r["lang"] == lang} == {
            "enumerated", "numeric", "declarative"}, lang
    for r in records:
        grade, where = r["grade"], r["key"]
        assert grade is None or (isinstance(grade, dict) and len(grade) == 1), where
        if grade is not None:
            (kind, value), = grade.items()
            expected = {"enumerated": "items", "numeric": "number", "declarative": "text"}
            assert kind in ("none", expected[r["type"]]), f"{where}: {kind} for {r['type']}"
            if kind == "none":
                assert value is True, where
            else:
                assert value not in (None, "", []), where
        assert grade is not None or r["reason"], f"{where}: say why there is no answer"
        assert r["finish_reason"] in ("stop", "length"), where


def test_the_careful_reading_reads_what_the_grader_reads() -> None:
    assert_reads_the_grades(_graded(), reading, DISAGREEMENTS)


def test_no_prompt_copy_is_read_as_none() -> None:
    """Issue 34: an empty, cut or copied answer never earns the none reference's points."""
    for r in _graded():
        if r["grade"] is None:
            assert reading(r) != {"none": True}, r["key"]


def test_the_literal_reading_differs_only_where_the_rules_say() -> None:
    """Where the paper's literal reading reads a graded row otherwise, the careful reading
    found no answer (an empty, cut or copied segment, a list marker, no entity), dropped
    copied prompt sentences, or dropped items (the stem's verb, a degenerate or cut repeat,
    symbols)."""
    for r in _graded():
        careful, literal = reading(r), reading(r, literal=True)
        if careful != literal and careful is not None:
            aspect = scoring.example_aspect(_example(r))
            dropped = extract.drop_prompt(r["output"], extract.prompt_sentences(
                r["prompt"], r["disease"], aspect, r["lang"]),
                r["finish_reason"] == "length", aspect.label(r["lang"]))[1]
            fewer = (literal is not None and "items" in careful and "items" in literal
                     and set(careful["items"]) < set(literal["items"]))
            assert dropped or fewer, (r["key"], careful, literal)


#: Measured: where the scorer's verdict is not the grader's (scorer, grader). The reading's
#: pinned miss (DISAGREEMENTS) reads a number the grader does not. The others are answers a
#: reader calls completely wrong (another disease's knowledge, a vacuous or garbled answer)
#: that the paper's cosine tier puts at "partly correct": two medical phrases of one kind
#: are about as similar to the encoder as a partial answer is.
SCORER_DISAGREEMENTS = {
    "run128:meddisk_zh:zero_shot:D007/severity_level": ("wrong", "unanswered"),
    **dict.fromkeys((
        "run128:meddisk_en:one_shot:D006/patient_population",
        "run128:meddisk_en:one_shot:D006/secondary_diseases",
        "run128:meddisk_en:one_shot:D006/surgical_procedures",
        "run128:meddisk_en:one_shot:D007/differential_symptoms",
        "run128:meddisk_en:one_shot:D008/patient_population",
        "run128:meddisk_en:one_shot:D008/prevalence_ages",
        "run128:meddisk_en:zero_shot:D006/patient_population",
        "run128:meddisk_en:zero_shot:D006/secondary_diseases",
        "run128:meddisk_en:zero_shot:D006/surgical_procedures",
        "run128:meddisk_en:zero_shot:D008/prevalence_ages",
        "run128:meddisk_zh:zero_shot:D006/affected_sites",
        "run128:meddisk_zh:zero_shot:D006/secondary_diseases",
        "run128:meddisk_zh:zero_shot:D007/physical_examinations"), ("scored", "wrong")),
}


def test_the_scorer_agrees_with_the_graders_through_clineval_agreement(tmp_path) -> None:
    """The grades' verdicts (App. D's tiers as a reader judges them, README.md there) against
    the scorer's as ``clineval agreement`` sets them: the set's outputs scored now with the
    bundled encoder, as cells of a run, read back and compared by
    :mod:`clineval.report.agreement`."""
    records = {r["key"]: r for r in _graded()}
    examples = {k: {**_example(r), "id": k} for k, r in records.items()}
    rows: dict[str, dict[str, Any]] = {}
    for lang in ("zh", "en"):
        keys = [k for k, r in records.items() if r["lang"] == lang]
        scored, _ = scoring.score(task(lang), [examples[k] for k in keys],
                                  [{**_generation(records[k]), "id": k} for k in keys])
        rows.update((str(row["id"]), row) for row in scored)
    found = scorer_agreement(FIXTURE, "meddisk", rows, examples, tmp_path)
    assert found.stale == []
    wrong = {c.grade.id: (c.scorer, c.grade.verdict) for c in found.counted if not c.agrees}
    assert wrong == SCORER_DISAGREEMENTS
    assert [(s.label, s.agree, s.graded) for s in shares(found.counted, "benchmark")] == [
        ("MedDisK", 72, 86)]
