"""Abstentions: N/A labels, abstaining answers in both settings, the optional prompt leave."""

from __future__ import annotations

import json

import pytest

from clineval.benchmarks.medcalc.abstention import abstains
from clineval.benchmarks.medcalc.extract import EXTRACTIONS, judge
from clineval.benchmarks.medcalc.prompts import render

ABSTAINING = ["N/A", "n/a (no bicarbonate given)", "None", "null", "Unknown.",
              "Cannot be determined", "cannot calculate without the albumin",
              "Insufficient information", "insufficient data to compute the score",
              "Not enough information", "Unable to determine from the note", "Not applicable",
              "Indeterminate", "can't be computed"]
ANSWERING = ["5", "0", "none of the criteria are met: 0", "The score is 3", "3 (none missing)",
             "12.5 mL/min", "N 5"]


@pytest.mark.parametrize("text", ABSTAINING)
def test_abstaining_answers(text):
    assert abstains(text)


@pytest.mark.parametrize("text", ANSWERING)
def test_answers_that_do_not_abstain(text):
    assert not abstains(text)


def _judge(setting: str, output: str, truth: str, calculator: int = 33,
           kind: str = "integer") -> tuple[str, int]:
    extraction, correct = judge(setting, output, calculator_id=calculator, csv_output_type=kind,
                                ground_truth=truth, lower=truth, upper=truth)
    return extraction.status, correct


@pytest.mark.parametrize("setting", EXTRACTIONS)
@pytest.mark.parametrize("text", ["N/A", "cannot be determined", "Insufficient information"])
def test_na_rows_are_right_only_for_an_abstention(setting, text):
    assert _judge(setting, json.dumps({"answer": text}), "N/A") == ("abstained", 1)
    assert _judge(setting, json.dumps({"answer": "2"}), "N/A")[1] == 0  # any number is wrong
    assert _judge(setting, json.dumps({"answer": "0"}), "N/A", 2, "decimal")[1] == 0
    assert _judge(setting, json.dumps({"answer": "03/14/2024"}), "N/A", 13, "date")[1] == 0


def test_null_json_answer_abstains_in_the_robust_reading():
    assert _judge("robust", '{"answer": null}', "N/A") == ("abstained", 1)
    assert _judge("robust", "Final answer: not enough information", "N/A") == ("abstained", 1)


@pytest.mark.parametrize("setting", EXTRACTIONS)
def test_an_abstention_on_a_computable_row_is_wrong(setting):
    status, correct = _judge(setting, '{"answer": "N/A"}', "2")
    assert correct == 0
    assert status == ("abstained" if setting == "robust" else "unparseable")


def test_the_prompt_allows_abstention_only_when_asked():
    templates = {"system": {"direct": "SYS", "reasoning": "SYS"}, "user": "{note} {question}",
                 "answer_format": {"direct": "", "reasoning": ""}, "abstention": "SAY N/A."}
    example = {"note": "note", "question": "q"}
    mode = {"reasoning": False}
    assert render(example, mode, templates, [])[0]["content"] == "SYS"
    assert render(example, mode, templates, [], allow_abstention=True)[0]["content"] == (
        "SYS SAY N/A.")
