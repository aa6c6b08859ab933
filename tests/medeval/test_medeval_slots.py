"""MedEval readings of repeated answer slots, slot-less summaries and typo'd copies: what a
careful grader reads (readings.py), against the cases a hand grader of fresh SmolLM2-135M
answers found misread."""

from __future__ import annotations

import pytest

from clineval.benchmarks.medeval import readings
from clineval.benchmarks.medeval.scoring import read_row, settings

SENTENCE = "The heart is normal in size."
FINDINGS = "Heart size normal. Cardiomediastinal contours unremarkable. Lungs are clear."
CODES = ["Cardiomegaly", "Edema"]


def _row(kind: str, output: str, reference: object = "normal", **scoring: str) -> dict:
    field = "report" if kind in ("codes", "summarization") else "sentence"
    example = {"id": "x", "task": kind, "domain": "chest", "group": "chest", "split": "test",
               "fields": {field: FINDINGS if field == "report" else SENTENCE},
               "reference": reference}
    return read_row(example, output, settings({"scoring": scoring}))


@pytest.mark.parametrize(("kind", "output"), [
    ("abnormality", "Label: normal\nLabel: abnormal"),
    ("ambiguity", "Label: ambiguous\nLabel: unambiguous"),
    ("abnormality", "Label: abnormal.\nLabel: normal."),
])
@pytest.mark.parametrize("mode", ["lenient", "strict"])
def test_two_contradictory_labels_are_no_answer(kind, output, mode):
    row = _row(kind, output, extraction=mode)
    assert (row["prediction"], row["qualified"]) == (None, False)
    assert row["unqualified"] == "contradictory labels"
    assert "literal" not in row  # the paper's reading calls it unqualified too


@pytest.mark.parametrize("mode", ["lenient", "strict"])
def test_the_same_label_twice_is_that_label(mode):
    row = _row("abnormality", "Label: normal\nLabel: normal", extraction=mode)
    assert (row["prediction"], row["qualified"]) == ("normal", True)


def test_a_label_for_another_example_is_not_a_contradiction():
    # a new frame (the model inventing the next example) answers another sentence
    row = _row("abnormality", "Label: normal\nSentence: The lungs are clear.\nLabel: abnormal")
    assert (row["prediction"], row["qualified"]) == ("normal", True)


def test_two_code_slots_that_disagree_leave_the_code_unanswered():
    output = "Codes: Cardiomegaly: positive; Edema: negative\nCodes: Cardiomegaly: negative"
    row = _row("codes", output, {c: "negative" for c in CODES})
    assert row["conflicts"] == ["Cardiomegaly"] and not row["qualified"]
    again = _row("codes", "Codes: Cardiomegaly: positive; Edema: negative\nCodes: Edema: negative",
                 {c: "negative" for c in CODES})
    assert again["qualified"] and again["prediction"] == {"Cardiomegaly": "positive",
                                                          "Edema": "negative"}


def test_a_typo_does_not_turn_an_echo_of_the_findings_into_a_summary():
    typo = "Heart size normal. Cardiomediastal contours unremarkable. Lungs are clear."
    read = readings.read_summary(typo, FINDINGS)
    assert (read.text, read.why, read.copy) == ("", "echo", "input")
    row = _row("summarization", typo, "No acute disease.")
    assert not row["qualified"] and row["unqualified"] == "echo"


@pytest.mark.parametrize("output", ["Report: The heart and lungs are normal.",
                                    "Findings: The heart and lungs are normal.",
                                    "The heart and lungs are normal."])
def test_a_summary_without_the_slot_is_read_as_the_summary(output):
    read = readings.read_summary(output, FINDINGS)
    assert (read.text, read.why) == ("The heart and lungs are normal.", None)
    row = _row("summarization", output, "No acute disease.")
    assert row["qualified"] and row["prediction"] == "The heart and lungs are normal."
    assert "literal" not in row  # the slot reading reads the same text


@pytest.mark.parametrize(("output", "why"), [
    ("", "empty"), ("  \n ", "empty"),
    ("Summary:", "empty slot"),
    ("Report: " + FINDINGS, "echo"),  # the report restated, no slot
    ("Report: " + FINDINGS + "\nSummary:", "echo"),  # restated, then an empty slot
    ("Report: No fracture.\nReport: No effusion.", "no slot"),  # reports one after another
])
def test_empty_means_an_empty_output(output, why):
    assert readings.read_summary(output, FINDINGS).why == why


@pytest.mark.parametrize(("output", "why"), [
    ("", "empty"), ("Rewrite:", "empty slot"), ("Sentence: " + SENTENCE, "echo")])
def test_a_rewrite_gives_the_same_reasons(output, why):
    assert readings.read_rewrite(output, SENTENCE).why == why


def test_a_report_repeated_as_one_sentence_with_a_typo_is_an_echo():
    # a fresh SmolLM2 answer on Open-i (its shape, not its text): the three findings joined
    # with commas, an article dropped and one word misspelt
    report = ("The lungs are clear. The cardiomediastinal silhouette is within normal limits. "
              "No pneumothorax or pleural effusion.")
    output = ("The lungs are clear, cardiomediastal silhouette is within normal limits, no "
              "pneumothorax or pleural effusion.")
    assert readings.aligned_shares(output, report) == (1.0, 1.0)
    assert readings.read_summary(output, report).why == "echo"
    extract = "The cardiomediastinal silhouette is within normal limits."
    assert readings.read_summary(extract, report).why is None  # one sentence: extractive
