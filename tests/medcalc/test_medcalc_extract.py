"""Answer extraction and correctness for MedCalc-Bench, official and robust settings.

The official expectations below were derived by reading ``extract_answer`` (evaluation/run.py)
and ``check_correctness`` (evaluation/evaluate.py, 2024-06-28) line by line, not by running them.
"""

from __future__ import annotations

import csv
import json
import math
import os
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clineval.benchmarks.medcalc.extract import (
    EXTRACTIONS,
    Extraction,
    correct_official,
    correct_robust,
    extract_official,
    extract_robust,
    judge,
    output_type_for,
)
from clineval.benchmarks.medcalc.extract_robust import FORMAT_EXAMPLE, robust_extract


def j(value: str) -> str:
    """A well-formed one-line answer as the zero-shot prompt requests it."""
    return '{"step_by_step_thinking": "Let me compute step by step.", "answer": "' + value + '"}'


PRETTY = '{\n  "step_by_step_thinking": "BMI = 70 / 1.7^2",\n  "answer": "%s"\n}'
D2 = ("25.238", "23.9761", "26.4999")  # creatinine clearance row: ground truth, lower, upper
F46 = ("1", "0.95", "1.05")  # Framingham risk row: ground truth in percent
GA = ("('35 weeks', '4 days')",) * 3  # gestational age row
DUE = ("03/14/2024",) * 3

# (output, calculator id, (ground truth, lower, upper), extracted answer, status, verdict)
OFFICIAL_CASES = [
    # decimal calculators: last number, str() of eval()
    (j("25.1"), 2, D2, "25.1", "ok", 1),
    (j("25.10"), 2, D2, "25.1", "ok", 1),
    ('{"answer": 25}', 2, D2, "25", "ok", 1),
    (j("25.238 mL/min"), 2, D2, "25.238", "ok", 1),
    (j("eGFR 25 mL/min/1.73 m²"), 2, D2, "25", "ok", 1),
    (j("25.1 mL/min (ref 90-120)"), 2, D2, "-120", "ok", 0),
    (j("1,234.5"), 2, D2, "234.5", "ok", 0),
    (j("1,025.2"), 2, D2, "25.2", "ok", 1),  # "025.2" is a valid float literal
    (j("025.2"), 2, D2, "25.2", "ok", 1),
    (j("05"), 2, D2, None, "error", 0),  # eval("05") is a SyntaxError inside extraction
    (j("24.1 kg/m2"), 6, ("24.1", "22.9", "25.3"), "2", "ok", 0),  # the "2" of m2 is last
    (j("53.1%"), 2, D2, "0.531", "ok", 0),
    (j("2500%"), 2, D2, "25.0", "ok", 1),
    (j("1%"), 46, F46, "0.01", "ok", 0),  # percent is divided by 100 even on a % scale
    (j("25.238 %"), 2, D2, "25.238", "ok", 1),  # "%" must touch the number
    (j("-25.2"), 2, D2, "-25.2", "ok", 0),
    (j("\u221225.2"), 2, D2, "25.2", "ok", 1),  # Unicode minus is not "-": sign lost
    (j("-0.828"), 38, ("-0.828", "-0.8694", "-0.7866"), "-0.828", "ok", 1),
    # decimal calculators: the str(...) expression branch
    (j("str(round(25.2345, 2))"), 2, D2, "25.23", "ok", 1),
    (j("str(round(25.2345, 2)"), 2, D2, "25.23", "ok", 1),  # missing ")" is added
    (j("str(sqrt(637))"), 2, D2, repr(math.sqrt(637)), "ok", 1),  # sqrt -> math.sqrt
    (j("str(np.sqrt(637))"), 2, D2, repr(math.sqrt(637)), "ok", 1),  # np.math.sqrt -> np.sqrt
    (j("str(5^2)"), 2, D2, "25", "ok", 1),  # ^ -> **
    (j("str(25 # approx)"), 2, D2, "25", "ok", 1),  # comment cut at #
    (j("str(math.log(5))"), 2, D2, None, "unparseable", 0),  # every "g" removed: math.lo
    (j("str(weight / height ** 2)"), 6, D2, None, "unparseable", 0),
    (j("str(max(25, 26))"), 2, D2, None, "unparseable", 0),  # max is not provided
    (j("str(1/0)"), 2, D2, None, "unparseable", 0),
    (j("str(__import__('os'))"), 2, D2, None, "unparseable", 0),
    (j("str(1e400)"), 2, D2, "inf", "ok", 0),  # eval("inf") fails in the check
    (j("str(1, 2)"), 2, D2, "(1, 2)", "ok", 0),  # tuple >= float raises
    (j("str(25 is odd)"), 46, F46, "True", "ok", 1),  # True == 1 lies in [0.95, 1.05]
    # answer field location
    (j("X.XX"), 2, D2, None, "not_found", 0),
    (j("str(short_and_direct_answer_of_the_question)"), 2, D2, None, "not_found", 0),
    (PRETTY % "25.1", 2, D2, None, "not_found", 0),  # value and "}" on different lines
    ('{"answer":\n"25.1"}', 2, D2, "25.1", "ok", 1),  # \s* may cross the newline
    ('{"answer": "3"} and then {"answer": "25.1"}', 2, D2, "25.1", "ok", 1),
    ('```json\n{"answer": "25.1"}\n```', 2, D2, "25.1", "ok", 1),
    ('{"Answer": "25.1"}', 2, D2, "25.1", "ok", 1),
    ('{"result": "25.1"}', 2, D2, None, "not_found", 0),
    ('{"answer": ""}', 2, D2, None, "unparseable", 0),
    ('{"answer": "3", "extra": {"level": "high"}}', 4, ("3",) * 3, "3", "ok", 1),
    # integer calculators
    (j("3 out of 5"), 4, ("3",) * 3, "3", "ok", 1),
    (j("1, 2, 3"), 4, ("3",) * 3, "3", "ok", 1),  # a list is counted
    (j("1,000"), 4, ("3",) * 3, "2", "ok", 0),  # thousands separator counted as a list
    (j("3,4 points"), 4, ("2",) * 3, "2", "ok", 1),
    (j("2.5"), 4, ("2",) * 3, "2.5", "ok", 1),  # round(2.5) == 2 (banker's rounding)
    (j("3.5"), 4, ("4",) * 3, "3.5", "ok", 1),
    (j("05"), 4, ("5",) * 3, "05", "ok", 0),  # extracted fine, eval("05") fails in check
    (j("00"), 4, ("0",) * 3, "00", "ok", 1),
    (j("CHA2DS2-VASc = 3"), 4, ("3",) * 3, "3", "ok", 1),
    (j("3 (CHA2DS2-VASc)"), 4, ("3",) * 3, "2", "ok", 0),
    (j("3 points (range 0-9)"), 4, ("3",) * 3, "-9", "ok", 0),
    (j("-1"), 16, ("-1",) * 3, "-1", "ok", 1),
    (j("\u22121"), 16, ("-1",) * 3, "1", "ok", 0),
    ('{"answer": 3}', 4, ("3",) * 3, "3", "ok", 1),
    (j("three"), 4, ("3",) * 3, None, "unparseable", 0),
    # dates
    (j("3/14/2024"), 13, DUE, "03/14/2024", "ok", 1),
    (j("03/14/2024."), 13, DUE, "03/14/2024", "ok", 1),
    (j("3/14/20245"), 13, DUE, "03/14/2024", "ok", 1),  # only the start is anchored
    (j("The estimated due date is 03/14/2024."), 13, DUE, None, "unparseable", 0),
    (j("2024-03-14"), 13, DUE, None, "unparseable", 0),
    (j("13/01/2024"), 13, DUE, None, "unparseable", 0),
    (j("02/31/2024"), 68, ("02/29/2024",) * 3, "02/31/2024", "ok", 0),  # strptime raises
    (j("12/31/2009"), 68, ("12/31/2009",) * 3, "12/31/2009", "ok", 1),
    # gestational age (69)
    (j("(35, 4)"), 69, GA, "(35, 4)", "ok", 1),
    (j("35 weeks, 4 days"), 69, GA, "(35, 4)", "ok", 1),
    (j("35 weeks and 4 days"), 69, GA, "(3, 5)", "ok", 0),  # backtracking splits "35"
    (j("35w 4d"), 69, GA, "(3, 5)", "ok", 0),
    ("{\"answer\": \"['35 weeks', '4 days']\"}", 69, GA, "(35, 4)", "ok", 1),
    (j("40"), 69, ("('4 weeks', '0 days')",) * 3, "(4, 0)", "ok", 1),
    (j("(05, 3)"), 69, ("('5 weeks', '3 days')",) * 3, "(05, 3)", "ok", 0),
    (j("5"), 69, GA, None, "error", 0),  # first regex fails: match.group on None
    ("no json at all", 69, GA, None, "not_found", 0),
    # a calculator id the official lists do not know: raw output returned, check raises
    (j("5"), 1, ("5",) * 3, j("5"), "error", 0),
]


@pytest.mark.parametrize(
    ("output", "calc", "truth", "answer", "status", "verdict"), OFFICIAL_CASES
)
def test_official_table(
    output: str, calc: int, truth: tuple[str, str, str], answer: str | None, status: str,
    verdict: int,
) -> None:
    extraction = extract_official(output, calc)
    assert (extraction.answer, extraction.status) == (answer, status)
    gt, lower, upper = truth
    assert correct_official(extraction, gt, calc, lower, upper) == verdict
    got, ok = judge("official", output, calculator_id=calc, csv_output_type="decimal",
                    ground_truth=gt, lower=lower, upper=upper)
    assert (got, ok) == (extraction, verdict)


def test_official_table_is_large_enough() -> None:
    assert len(OFFICIAL_CASES) >= 40


def test_official_not_ok_is_never_correct() -> None:
    assert correct_official(Extraction(None, "unparseable"), "25", 2, "0", "100") == 0
    assert correct_official(Extraction("25", "error"), "25", 2, "0", "100") == 0


# (output, output type, (ground truth, lower, upper), extracted answer, status, verdict)
ROBUST_CASES = [
    (PRETTY % "24.1", "decimal", ("24.1", "22.9", "25.3"), "24.1", "ok", 1),
    ('```json\n{\n  "answer": "25.1"\n}\n```', "decimal", D2, "25.1", "ok", 1),
    # two answer fields with different values contradict each other: no answer
    ('{"answer": "3"}\n{"answer": "25.1"}\n{"note": "done"}', "decimal", D2, None, "not_found", 0),
    ('{"answer": "25.1"}\n{"answer": "25.10"}', "decimal", D2, "25.10", "ok", 1),
    ("{'step_by_step_thinking': 'x', 'answer': '25.1'}", "decimal", D2, "25.1", "ok", 1),
    ('{"answer": "25.1",}', "decimal", D2, "25.1", "ok", 1),
    ('{"ANSWER": 25.1}', "decimal", D2, "25.1", "ok", 1),
    ('{"result": {"answer": 25.1}}', "decimal", D2, "25.1", "ok", 1),
    ('{"answer": "25.1 mL/min}', "decimal", D2, "25.1", "ok", 1),  # broken JSON
    ("The answer is 25.1 mL/min.", "decimal", D2, "25.1", "ok", 1),
    ("Steps...\nAnswer: 25.1", "decimal", D2, "25.1", "ok", 1),
    ("Steps...\n**Final Answer:** 25.1", "decimal", D2, "25.1", "ok", 1),
    ("Thus CrCl = \\boxed{25.1} mL/min", "decimal", D2, "25.1", "ok", 1),
    ("Step 1: weight 70 kg\nCrCl is 25.1 mL/min", "decimal", D2, "25.1", "ok", 1),
    (j("24.1 kg/m² (normal 18.5-24.9)"), "decimal", ("24.1", "22.9", "25.3"), "24.1", "ok", 1),
    (j("24.1 kg/m² (normal = 18.5-24.9)"), "decimal", ("24.1", "22.9", "25.3"), "24.1", "ok", 1),
    (j("45 mL/min/1.73 m²"), "decimal", ("45", "42.75", "47.25"), "45", "ok", 1),
    (j("eGFR (mL/min/1.73 m²): 45"), "decimal", ("45", "42.75", "47.25"), "45", "ok", 1),
    (j("CKD-EPI 2021 eGFR: 45 mL/min/1.73 m²"), "decimal", ("45", "42.75", "47.25"), "45", "ok",
     1),
    (j("140 mEq/L"), "decimal", ("140", "133", "147"), "140", "ok", 1),
    (j("QTc 450 msec"), "decimal", ("450", "427.5", "472.5"), "450", "ok", 1),
    (j("FIB-4 index: 1.25"), "decimal", ("1.25", "1.19", "1.31"), "1.25", "ok", 1),
    (j("MELD 3.0 score: 22"), "integer", ("22",) * 3, "22", "ok", 1),
    (j("1,234.5"), "decimal", ("1234.5", "1172.8", "1296.2"), "1234.5", "ok", 1),
    (j("\u22123.5"), "decimal", ("-3.5", "-3.675", "-3.325"), "-3.5", "ok", 1),
    (j("-0.828"), "decimal", ("-0.828", "-0.8694", "-0.7866"), "-0.828", "ok", 1),
    (j("LDL = 215 - 10 - 77 = 128 mg/dL"), "decimal", ("128", "121.6", "134.4"), "128", "ok", 1),
    (j("str(round(25.2345, 2))"), "decimal", D2, "25.23", "ok", 1),
    (j("05.5"), "decimal", ("5.5", "5.2", "5.8"), "5.5", "ok", 1),
    # percentages: the number shown, or number/100 on a fraction-scale interval
    (j("1%"), "decimal", F46, "1%", "ok", 1),
    (j("53.1%"), "decimal", ("0.531", "0.504", "0.558"), "53.1%", "ok", 1),
    (j("53.1%"), "decimal", ("53.1", "50.4", "55.8"), "53.1%", "ok", 1),
    (j("0.531"), "decimal", ("53.1", "50.4", "55.8"), "0.531", "ok", 0),
    # integers
    (j("3 out of 5"), "integer", ("3",) * 3, "3", "ok", 1),
    (j("CHA2DS2-VASc = 3"), "integer", ("3",) * 3, "3", "ok", 1),
    (j("3 (CHA₂DS₂-VASc)"), "integer", ("3",) * 3, "3", "ok", 1),
    (j("CURB-65 score of 2"), "integer", ("2",) * 3, "2", "ok", 1),
    (j("HAS-BLED 2 points"), "integer", ("2",) * 3, "2", "ok", 1),
    (j("APACHE II score 15"), "integer", ("15",) * 3, "15", "ok", 1),
    (j("3 points (range 0-9)"), "integer", ("3",) * 3, "3", "ok", 1),
    (j("2.5"), "integer", ("3",) * 3, "2.5", "ok", 0),  # a score is whole: 2.5 is wrong
    (j("2.5"), "integer", ("2",) * 3, "2.5", "ok", 0),
    (j("2.0"), "integer", ("2",) * 3, "2", "ok", 1),
    (j("05"), "integer", ("5",) * 3, "5", "ok", 1),
    (j("1,000"), "integer", ("1000",) * 3, "1000", "ok", 1),
    (j("\u22121"), "integer", ("-1",) * 3, "-1", "ok", 1),
    ('{"answer": 3}', "integer", ("3",) * 3, "3", "ok", 1),
    (j("three"), "integer", ("3",) * 3, "3", "ok", 1),  # number words
    # dates
    (j("The estimated due date is 03/14/2024."), "date", DUE, "03/14/2024", "ok", 1),
    (j("3/14/2024"), "date", DUE, "03/14/2024", "ok", 1),
    (j("2024-03-14"), "date", DUE, "03/14/2024", "ok", 1),
    (j("March 14, 2024"), "date", DUE, "03/14/2024", "ok", 1),
    (j("14 March 2024"), "date", DUE, "03/14/2024", "ok", 1),
    (j("Mar. 14th, 2024"), "date", DUE, "03/14/2024", "ok", 1),
    (j("02/31/2024"), "date", ("02/29/2024",) * 3, None, "unparseable", 0),
    (j("03/15/2024"), "date", DUE, "03/15/2024", "ok", 0),
    # weeks and days
    (j("35 weeks and 4 days"), "weeks_days", GA, "(35, 4)", "ok", 1),
    (j("(35, 4)"), "weeks_days", GA, "(35, 4)", "ok", 1),
    (j("35w 4d"), "weeks_days", GA, "(35, 4)", "ok", 1),
    (j("[35, 4]"), "weeks_days", GA, "(35, 4)", "ok", 1),
    (j("35+4"), "weeks_days", GA, "(35, 4)", "ok", 1),
    (j("('35 weeks', '4 days')"), "weeks_days", GA, "(35, 4)", "ok", 1),
    ('{"answer": ["35 weeks", "4 days"]}', "weeks_days", GA, "(35, 4)", "ok", 1),
    ('{"answer": {"weeks": 35, "days": 4}}', "weeks_days", GA, "(35, 4)", "ok", 1),
    (j("34 weeks 11 days"), "weeks_days", GA, "(34, 11)", "ok", 1),  # same total days
    (j("35 weeks"), "weeks_days", ("('35 weeks', '0 days')",) * 3, "(35, 0)", "ok", 1),
    (j("40"), "weeks_days", ("('4 weeks', '0 days')",) * 3, None, "unparseable", 0),
    (j("35 4/7 weeks"), "weeks_days", GA, "(35, 4)", "ok", 1),
    # broken or incomplete JSON
    ('{"step_by_step_thinking": "He said "hi"", "answer": "25.1"}', "decimal", D2, "25.1", "ok",
     1),
    ('{"step_by_step_thinking": "line one\nline two", "answer": "25.1"}', "decimal", D2, "25.1",
     "ok", 1),
    ('<think>CrCl is 25 or 26</think>\n{"answer": "25.1"}', "decimal", D2, "25.1", "ok", 1),
    # nothing usable
    ('{"result": "25.1"}', "decimal", D2, None, "not_found", 0),
    ('{"step_by_step_thinking": "CrCl = 25.1 mL/min, so', "decimal", D2, None, "not_found", 0),
    ("", "decimal", D2, None, "not_found", 0),
    ('{"answer": null}', "decimal", D2, None, "not_found", 0),
    ("I cannot determine this from the note.", "decimal", D2, None, "not_found", 0),
    ("There is no calculator for id 25 in this note.", "decimal", D2, None, "not_found", 0),
    ("Reasoning first.\n25.1 mL/min", "decimal", D2, "25.1", "ok", 1),
    ("Reasoning first.\nCrCl = 25.1 mL/min", "decimal", D2, "25.1", "ok", 1),
]


@pytest.mark.parametrize(
    ("output", "kind", "truth", "answer", "status", "verdict"), ROBUST_CASES
)
def test_robust_table(
    output: str, kind: str, truth: tuple[str, str, str], answer: str | None, status: str,
    verdict: int,
) -> None:
    extraction = extract_robust(output, kind)  # type: ignore[arg-type]
    assert (extraction.answer, extraction.status) == (answer, status)
    gt, lower, upper = truth
    assert correct_robust(extraction, gt, kind, lower, upper) == verdict  # type: ignore[arg-type]


# The answer forms a careful grader reads without doubt (issue: the robust reading, more forms).
FORMS = [
    ("8,96", "decimal", "8.96"),  # decimal comma
    ("-0,261", "decimal", "-0.261"),
    ("1,512", "decimal", "1512"),  # three digits after a comma: thousands
    ("0,5 mg", "decimal", "0.5"),
    ("1\u2009512", "decimal", "1512"),  # thin-space thousands
    ("1\u202f512.5", "decimal", "1512.5"),  # narrow no-break space
    ("1\u00a0234", "decimal", "1234"),
    ("3.75 x 10^4", "decimal", "37500"),  # scientific notation
    ("3.75 × 10⁴", "decimal", "37500.0"),
    ("1.2 x 10^-3", "decimal", "0.0012"),
    ("3.75*10**4", "decimal", "37500.0"),
    ("3.75 x 10^{-3}", "decimal", "0.00375"),
    ("- 0.261", "decimal", "-0.261"),  # a minus sign apart from its number
    ("ratio = - 1.5", "decimal", "-1.5"),
    ("3 = 1 + 1 + 1", "integer", "3"),  # the value of an equation, on either side
    ("LDL = 215 - 87 = 128", "decimal", "128"),
    ("total = 2 + 3", "decimal", "5"),
    ("str(round((144.2 - 12), 1))", "decimal", "132.2"),  # unevaluated arithmetic
    ("(140 - 87) * 48 / (72 * 1.4)", "decimal", "25.238095238095237"),
    ("144.2 - 12 mEq/L", "decimal", "132.2"),
    ("\\frac{120}{4}", "decimal", "30.0"),  # LaTeX fractions
    ("$\\dfrac{3.5}{2} \\times 2$", "decimal", "3.5"),
    ("\\boxed{3.75 \\times 10^{4}}", "decimal", "37500.0"),
    ("Five", "integer", "5"),  # number words
    ("three points", "integer", "3"),
    ("twenty-one", "integer", "21"),
    ("10/26/23", "date", "10/26/2023"),  # two-digit years (strptime's %y pivot)
    ("1/5/99", "date", "01/05/1999"),
    ("28w4d", "weeks_days", "(28, 4)"),  # compact gestational ages
    ("24+5 weeks", "weeks_days", "(24, 5)"),
    ("1 days, 18 weeks", "weeks_days", "(18, 1)"),
    ("3.5", "integer", "3.5"),  # kept, so a non-integer score is wrong
    ("5-7", "integer", "5"),  # a range is not a subtraction
    ("24.1 kg/m² (normal 18.5-24.9)", "decimal", "24.1"),
    ("92.5 mL/min/1.73 m²", "decimal", "92.5"),
]


@pytest.mark.parametrize(("text", "kind", "answer"), FORMS)
def test_robust_reads_more_answer_forms(text: str, kind: str, answer: str) -> None:
    extraction = extract_robust(j(text), kind)  # type: ignore[arg-type]
    assert extraction.status == "ok", extraction
    if kind in ("decimal", "integer"):  # the same number, however it is written
        assert Decimal(str(extraction.answer)) == Decimal(answer), extraction
    else:
        assert extraction.answer == answer


def test_a_non_integer_score_is_wrong_not_rounded() -> None:
    for text, verdict in (("3.5", 0), ("4", 1), ("4.0", 1), ("3.9", 0)):
        extraction = extract_robust(j(text), "integer")
        assert correct_robust(extraction, "4", "integer", "4", "4") == verdict, text


def test_robust_never_evaluates_with_eval(monkeypatch) -> None:
    import builtins

    def refuse(*args, **kwargs):
        raise AssertionError("eval called")

    monkeypatch.setattr(builtins, "eval", refuse)
    assert extract_robust(j("(2 + 3) * 4"), "decimal") == Extraction("20", "ok")
    assert extract_robust(j("str(__import__('os').getcwd())"), "decimal").status != "ok"


def test_output_type_for() -> None:
    assert output_type_for(69, "integer") == "weeks_days"
    assert output_type_for(13, "date") == "date"
    assert output_type_for(2, " Decimal ") == "decimal"
    assert output_type_for(4, "integer") == "integer"
    with pytest.raises(ValueError):
        output_type_for(4, "text")


def test_judge_dispatch_and_unknown_setting() -> None:
    assert EXTRACTIONS == ("official", "robust")
    pretty = PRETTY % "25.1"
    kwargs = dict(calculator_id=2, csv_output_type="decimal", ground_truth=D2[0], lower=D2[1],
                  upper=D2[2])
    assert judge("official", pretty, **kwargs)[1] == 0  # type: ignore[arg-type]
    assert judge("robust", pretty, **kwargs) == (Extraction("25.1", "ok"), 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        judge("lenient", pretty, **kwargs)  # type: ignore[arg-type]


_CALCS = [(2, "decimal"), (4, "integer"), (13, "date"), (69, "integer"), (1, "decimal")]


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=300), calc=st.sampled_from(_CALCS),
       setting=st.sampled_from(EXTRACTIONS))
def test_judge_never_raises_on_model_text(text: str, calc: tuple[int, str], setting: str) -> None:
    for output in (text, j(text), '{"answer": "str(' + text + ')"}'):
        extraction, correct = judge(setting, output, calculator_id=calc[0],
                                    csv_output_type=calc[1], ground_truth="3", lower="2",
                                    upper="4")
        assert extraction.status in ("ok", "not_found", "unparseable", "error", "abstained")
        assert correct in (0, 1)
        assert correct == 0 or extraction.status == "ok"


_FLOATS = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None)
@given(x=_FLOATS, places=st.integers(0, 6), bounds=st.tuples(_FLOATS, _FLOATS),
       quoted=st.booleans())
def test_settings_agree_on_well_formed_decimals(
    x: float, places: int, bounds: tuple[float, float], quoted: bool
) -> None:
    value = f"{x:.{places}f}"
    lower, upper = (f"{b:.3f}" for b in sorted(bounds))
    output = j(value) if quoted else '{"step_by_step_thinking": "s", "answer": ' + value + "}"
    official, ok_official = judge("official", output, calculator_id=2, csv_output_type="decimal",
                                  ground_truth=value, lower=lower, upper=upper)
    robust, ok_robust = judge("robust", output, calculator_id=2, csv_output_type="decimal",
                              ground_truth=value, lower=lower, upper=upper)
    number = float(value) if "." in value else int(value)
    assert official == Extraction(str(number), "ok")
    assert robust.status == "ok" and float(robust.answer or "nan") == float(value)
    assert ok_official == ok_robust == int(float(lower) <= float(value) <= float(upper))


@settings(max_examples=300, deadline=None)
@given(n=st.integers(-10**6, 10**6), truth=st.integers(-3, 3), quoted=st.booleans())
def test_settings_agree_on_well_formed_integers(n: int, truth: int, quoted: bool) -> None:
    truth_text = str(n + truth if truth % 2 else n)
    output = j(str(n)) if quoted else '{"step_by_step_thinking": "s", "answer": ' + str(n) + "}"
    results = [
        judge(s, output, calculator_id=4, csv_output_type="integer", ground_truth=truth_text,
              lower=truth_text, upper=truth_text)
        for s in EXTRACTIONS
    ]
    assert [r[0] for r in results] == [Extraction(str(n), "ok")] * 2
    assert results[0][1] == results[1][1] == int(str(n) == truth_text)


# Rows of the real test set whose own ground truth, given as a one-line JSON answer, the official
# setting rejects. Empty: every ground-truth string survives the official extraction and check.
OFFICIAL_REJECTS_OWN_TRUTH: list[int] = []


def _csv_path() -> Path | None:
    root = os.environ.get("CLINEVAL_DATA_DIR")
    return Path(root) / "medcalc-bench-v1.0" / "test_data.csv" if root else None


@pytest.mark.skipif(_csv_path() is None,
                    reason="set CLINEVAL_DATA_DIR to the directory holding medcalc-bench-v1.0/")
def test_real_rows_accept_their_own_ground_truth() -> None:
    path = _csv_path()
    assert path is not None and path.is_file(), f"missing {path}"
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 1047
    rejected: dict[str, list[tuple[int, str, str]]] = {s: [] for s in EXTRACTIONS}
    for row in rows:
        truth = row["Ground Truth Answer"]
        output = json.dumps({"step_by_step_thinking": "Worked it out.", "answer": truth})
        for setting in EXTRACTIONS:
            extraction, correct = judge(
                setting, output, calculator_id=int(row["Calculator ID"]),
                csv_output_type=row["Output Type"], ground_truth=truth,
                lower=row["Lower Limit"], upper=row["Upper Limit"],
            )
            if not correct:
                rejected[setting].append((int(row["Row Number"]), truth, str(extraction)))
    assert [r[0] for r in rejected["official"]] == OFFICIAL_REJECTS_OWN_TRUTH, rejected["official"]
    assert rejected["robust"] == []


# ------------------------------------------------------------ issue 26: more answer families
# Each family: (answer text, output type, point score, value a careful grader reads or None).

SPACE_THOUSANDS = [
    ("1 512 MME/day", "decimal", False, "1512"),  # a plain space between digit groups
    ("10 000", "decimal", False, "10000"),
    ("1 512.5 mL", "decimal", False, "1512.5"),
    ("Total: 1 234 567 MME", "decimal", False, "1234567"),
    ("1 51 mL", "decimal", False, "1"),  # "51" is not a group of three: two numbers
    ("3 points", "integer", True, "3"),
]
UNBALANCED_CODE = [
    ("round((140 - 87) * 48 / (72 * 1.4), 2", "decimal", False, "25.24"),  # a ")" missing
    ("(140 - 87) * 48 / (72 * 1.4", "decimal", False, "25.238095238095237"),
    ("str(round(25.2345, 2)))", "decimal", False, "25.23"),  # one ")" too many
    ("((2 + 3) * 4", "integer", True, "20"),
    ("math.sqrt((170 * 70) / 3600", "decimal", False, "1.818118685772619"),
]
UNITS_IN_ARITHMETIC = [
    ("70 kg / (1.75 m)^2", "decimal", False, "22.857142857142858"),
    ("(140 - 87 years) * 48 kg / (72 * 1.4 mg/dL)", "decimal", False, "25.238095238095237"),
    ("144.2 mEq/L - 12 mEq/L", "decimal", False, "132.2"),
    ("70 kg x 1.2", "decimal", False, "84"),
    ("24.1 kg/m² (normal 18.5-24.9)", "decimal", False, "24.1"),  # not arithmetic: kept
    ("102.2 kg (224.1 lbs)", "decimal", False, "102.2"),
]
LATEX_APPROX = [
    ("\\frac{120}{4} \\approx 30", "decimal", False, "30"),  # the value after \approx
    ("\\frac{121}{4} \\approx 30.25 \\text{ mL/min}", "decimal", False, "30.25"),
    ("$\\dfrac{3.5}{2} = 1.75$", "decimal", False, "1.75"),
    ("\\boxed{\\frac{120}{4} \\approx 30}", "decimal", False, "30"),
    ("\\frac{70}{1.75^2} \\simeq 22.9 kg/m^2", "decimal", False, "22.9"),
]
SCORE_OF_MAX = [
    ("3/9", "integer", True, "3"),  # a point score: the numerator
    ("HEART score: 3/10", "integer", True, "3"),
    ("3 / 9 points", "integer", True, "3"),
    ("1.5/12.5", "decimal", True, "0.12"),  # not two whole numbers: a division
    ("3/9", "decimal", False, "0.3333333333333333"),  # not a point score: a division
]
NAMED = [
    ("Wells-DVT-1", "integer", True, None),  # a name joined to a number: no value
    ("CCI-10", "integer", True, None),
    ("Wells-DVT-1: 2", "integer", True, "2"),  # the value after the name
    ("Wells DVT score: 1", "integer", True, "1"),
    ("FIB-4 index: 1.25", "decimal", False, "1.25"),
]
SIGNED_RESTATEMENT = [
    ("1.3 L excess (deficit = -1.3 L)", "decimal", False, "-1.3"),
    ("2.5 L (deficit = 2.5 L)", "decimal", False, "2.5"),  # no sign: the value as stated
    ("1.3 L (range -2 to 2 L)", "decimal", False, "1.3"),  # another magnitude: not a restatement
]
FREE_TEXT = [  # a number inside free text counts only when it is stated as the value
    ("A 14 year old Hispanic female with a 3 year history of type 2 diabetes on sitagliptin",
     "decimal", False, None),
    ("A 17-year-old girl comes to the clinic with a sore throat for the past 3 weeks",
     "integer", True, None),
    ("Pneumonia Severity Index (PSI) is a measure of the severity of pneumonia based on the "
     "2022 World Health Report", "integer", True, None),
    ("A 2019-01-01 12:30:52.11.20.00.1.1.1", "integer", True, None),  # a date, a clock time
    ("1.1.1.1.1.1.1", "integer", True, None),  # a chain of dots is no number
    ("Glasgow-Blatchford: BUN 27 mmol/L, hemoglobin 11.5 g/dL", "integer", True, None),
    ("BUN 27 mmol/L", "decimal", False, "27"),  # units fit a lab value
    ("The patient's CHA2DS2-VASc Score is 2.", "integer", True, "2"),
    ("The patient's body surface area is approximately 2.22 m².", "decimal", False, "2.22"),
    ("The man, who has a fever of 38.5 °C, has a HAS-BLED score of 3 points overall", "integer",
     True, "3"),
    ("The answer is 60. The answer is 60. The answer is 60.", "decimal", False, "60"),
    ("12.5 mL/min/1.73 m², which is low for a man of 70 years", "decimal", False, "12.5"),
]
FAMILIES = {
    "space_thousands": SPACE_THOUSANDS, "unbalanced_code": UNBALANCED_CODE,
    "units_in_arithmetic": UNITS_IN_ARITHMETIC, "latex_approx": LATEX_APPROX,
    "score_of_max": SCORE_OF_MAX, "named": NAMED, "signed_restatement": SIGNED_RESTATEMENT,
    "free_text": FREE_TEXT,
}


def _read(text: str, kind: str, score: bool) -> Extraction:
    return extract_robust(json.dumps({"answer": text}), kind, score=score)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "kind", "score", "value"),
    [case for cases in FAMILIES.values() for case in cases],
    ids=[f"{family}-{i}" for family, cases in FAMILIES.items() for i in range(len(cases))],
)
def test_robust_answer_families(text: str, kind: str, score: bool, value: str | None) -> None:
    extraction = _read(text, kind, score)
    if value is None:
        assert extraction.answer is None and extraction.status != "ok", extraction
    else:
        assert extraction.status == "ok", extraction
        assert Decimal(str(extraction.answer).rstrip("%")) == Decimal(value), extraction


def test_latex_whose_backslashes_json_ate() -> None:
    # written by a model as raw JSON: "\f", "\a" and "\b" are escapes (or invalid ones)
    raw = '{"answer": "\\frac{121}{4} \\approx 30.25"}'.replace("\\\\", "\\")
    assert extract_robust(raw, "decimal") == Extraction("30.25", "ok")
    boxed = '{"answer": "\\boxed{\\frac{120}{4} \\approx 30}"}'.replace("\\\\", "\\")
    assert extract_robust(boxed, "decimal") == Extraction("30", "ok")


def test_score_of_max_follows_the_calculator() -> None:
    """judge() reads "3/9" as 3 for a rule-based (point score) calculator only."""
    from clineval.benchmarks.medcalc.calculators import CALCULATORS
    from clineval.benchmarks.medcalc.extract import point_score

    assert point_score(4) and point_score(8) and point_score(48)  # CHA2DS2-VASc, Wells' PE, PERC
    assert not point_score(2) and not point_score(46) and not point_score(23)  # CrCl, FRS, MELD Na
    scores = [c for c in CALCULATORS.values() if c.point_score]
    assert len(scores) == 19  # the paper's 19 rule-based calculators
    assert {c.category for c in scores} == {"risk", "severity", "diagnosis"}
    score = judge("robust", j("3/9"), calculator_id=4, csv_output_type="integer",
                  ground_truth="3", lower="3", upper="3")
    assert score == (Extraction("3", "ok"), 1)
    ratio = judge("robust", j("3/9"), calculator_id=64, csv_output_type="decimal",
                  ground_truth="0.333", lower="0.316", upper="0.350")
    assert ratio[1] == 1 and ratio[0].answer is not None and ratio[0].answer.startswith("0.333")


def test_signed_restatement_is_scored_with_its_sign() -> None:
    output = j("1.3 L excess (deficit = -1.3 L)")
    extraction, correct = judge("robust", output, calculator_id=38, csv_output_type="decimal",
                                ground_truth="-1.3", lower="-1.365", upper="-1.235")
    assert (extraction.answer, correct) == ("-1.3", 1)


NOTE = ("A 69-year-old man presents in the intensive care unit with septic shock. Potassium is "
        "5.2 mEq/L. On admission two days earlier, his bicarbonate was 28 mEq/L and his sodium "
        "was 141 mEq/L; chloride 104 mEq/L and albumin 2.1 g/dL.")


def test_an_answer_restating_the_note_is_no_answer() -> None:
    copied = '{"answer": "A 69-year-old man presents in the intensive care unit with septic ' \
             'shock. Potassium is 5.2 mEq/L. On admission two days earlier his bicarbonate was 28"}'
    assert extract_robust(copied, "decimal").answer == "5.2"  # without the note: "is 5.2"
    extraction = extract_robust(copied, "decimal", note=NOTE)
    assert (extraction.answer, extraction.status) == (None, "not_found")
    assert "restates the patient note" in extraction.detail
    got = judge("robust", copied, calculator_id=65, csv_output_type="decimal",
                ground_truth="5.2", lower="4.94", upper="5.46", note=NOTE)
    assert got[1] == 0 and got[0].status == "not_found"
    # the official setting never looks at the note
    kwargs = dict(calculator_id=65, csv_output_type="decimal", ground_truth="5.2", lower="4.94",
                  upper="5.46")
    assert judge("official", copied, **kwargs, note=NOTE) == judge("official", copied, **kwargs)


def test_a_value_after_a_copied_opening_still_counts() -> None:
    # the copied words are blanked; what the answer adds of its own is read by the same rules
    answer = ('{"answer": "A 69-year-old man presents in the intensive care unit with septic '
              'shock; his albumin corrected anion gap is 20.25 mEq/L"}')
    assert extract_robust(answer, "decimal", note=NOTE) == Extraction("20.25", "ok")


def test_short_copies_are_not_restatements() -> None:
    from clineval.benchmarks.medcalc.extract_robust import COPY_RUN, copied_spans

    assert COPY_RUN == 8
    assert copied_spans("Potassium is 5.2 mEq/L", NOTE) == []  # 5 words: no restated stretch
    # but the value is the note's potassium with its unit, given with no work: a copy
    copied = extract_robust(j("Potassium is 5.2 mEq/L"), "decimal", note=NOTE)
    assert (copied.answer, copied.status) == (None, "not_found")
    worked = ('{"step_by_step_thinking": "The anion gap is sodium minus chloride and bicarbonate, '
              'so with potassium 5.2 mEq/L it is 141 - 104 - 28 = 9.", "answer": "Potassium is '
              '5.2 mEq/L"}')
    assert extract_robust(worked, "decimal", note=NOTE).answer == "5.2"  # read as it is derived
    text = "septic shock. Potassium is 5.2 mEq/L. On admission two days"
    assert copied_spans(text, NOTE) == [(0, len(text))]  # punctuation and case aside
    assert copied_spans(text, None) == []


REAL = Path(__file__).parents[1] / "fixtures" / "real_outputs"
# Recorded rows of SmolLM2-135M that the rules of issue 26 score differently: (fixture, row id)
# -> the robust result now. Row 51 copies the (synthetic) patient note into the answer field;
# it was read as 5.2 from the copied "Potassium is 5.2 mEq/L".
RESCORED = {("medcalc__zero_shot", "51"): ("not_found", None, 0)}


@pytest.mark.parametrize("name", ["medcalc__zero_shot", "medcalc__cot", "medcalc__one_shot"])
def test_recorded_real_outputs(name: str) -> None:
    """The recorded real outputs score as recorded, except the rows issue 26's rules change."""
    from clineval.benchmarks.medcalc.scoring import score_row

    recorded = json.loads((REAL / f"{name}.json").read_text(encoding="utf-8"))
    examples = {e["id"]: e for e in recorded["examples"]}
    for generation, row in zip(recorded["generations"], recorded["rows"], strict=True):
        now = score_row(examples[generation["id"]], generation["output"], EXTRACTIONS)
        assert now["official"] == row["official"], generation["id"]  # the official code: same
        expected = RESCORED.get((name, generation["id"]))
        if expected is None:
            assert now["robust"] == row["robust"], generation["id"]
        else:
            robust = now["robust"]
            assert (robust["status"], robust["extracted"], robust["correct"]) == expected
            assert "restates the patient note" in robust["detail"]
            assert row["robust"]["status"] == "ok" or row["robust"] == robust  # before or after


@settings(max_examples=200, deadline=None)
@given(x=_FLOATS, places=st.integers(0, 3), words=st.integers(0, 40))
def test_a_well_formed_answer_is_read_whatever_the_note_says(
    x: float, places: int, words: int
) -> None:
    """A short answer is never a restatement, even when the note holds the same number."""
    value = f"{x:.{places}f}"
    note = " ".join(["The patient was seen today"] * words + [f"and the value was {value}."])
    extraction = extract_robust(j(value), "decimal", note=note)
    assert extraction.status == "ok" and Decimal(str(extraction.answer)) == Decimal(value)


GESTATION_QUESTION = (
    "What is the patient's estimated gestational age? Your answer should be a tuple, specifying "
    "the number of weeks and days (i.e. (4 weeks, 3 days), (0 weeks, 5 days), (1 week, 5 days), "
    "(8 weeks, 0 days)).")


@pytest.mark.parametrize("output", ['{"answer": "4 weeks, 3 days"}',
                                    "The answer is (0 weeks, 5 days).", "(8 weeks, 0 days)"])
def test_a_bare_format_example_is_no_answer(output):
    answer, status, detail = robust_extract(output, "weeks_days", question=GESTATION_QUESTION)
    assert (answer, status) == (None, "not_found")
    assert detail.startswith(FORMAT_EXAMPLE)


def test_a_derivation_ending_on_a_format_example_is_its_answer():
    output = ('{"step_by_step_thinking": "The last period began 31 days before the visit, so '
              'she is 4 weeks and 3 days pregnant.", "answer": "(4 weeks, 3 days)"}')
    assert robust_extract(output, "weeks_days", question=GESTATION_QUESTION) == ("(4, 3)", "ok", "")
    assert robust_extract('{"answer": "(5 weeks, 3 days)"}', "weeks_days",
                          question=GESTATION_QUESTION)[:2] == ("(5, 3)", "ok")


def test_a_copied_sentence_repeated_in_a_loop_restates_the_note():
    """SmolLM2's looped answer repeats the note's last sentence back to back; each repeat
    restates the note as its first copy does, so no number of it is the answer."""
    note = ("A 69-year-old man presents with septic shock. Labs: Na 145 mmol/L, Cl 113 mmol/L, "
            "HCO3 12 mEq/L. Serum albumin is 39 g/L.")
    looped = ('{"answer": "Labs: Na 145 mmol/L, Cl 113 mmol/L, HCO3 12 mEq/L, Serum albumin is '
              '39 g/L. Serum albumin is 39 g/L. Serum albumin is 39 g/L. Serum albumin is ')
    assert robust_extract(looped, "decimal", note=note)[:2] == (None, "not_found")
    derived = '{"answer": "Na 145 mmol/L, Cl 113 mmol/L, HCO3 12 mEq/L: gap 145 - 125 = 20"}'
    assert robust_extract(derived, "decimal", note=note)[:2] == ("20", "ok")


# Copies a hand grader of fresh SmolLM2-135M answers found read as values: a value of the note
# with its unit or label, a blood pressure, a format example of the question, two answers.
COPY_NOTE = ("A 58-year-old woman. Labs: hemoglobin 13.1 g/dL, sodium 128 mEq/L, glucose 400 "
             "mg/dL. Blood pressure 100/70 mmHg. Patient has taken 47.069 mg of PredniSONE PO.")
DATE_QUESTION = (
    "Using Naegele's Rule for estimated due date based on the last menstrual period and cycle "
    "length, what is the the patient's estimated due date? Your response should be in the "
    "format of M/D/Y (ie 08/31/2023, 07/03/2000) with just the date and not other text. ")


@pytest.mark.parametrize("answer", ["13.1 g/dL", "Hemoglobin 13.1 g/dL", "hemoglobin 13.1",
                                    "Patient has taken 47.069 mg", "47.069 mg of PredniSONE"])
def test_a_note_value_with_its_unit_or_label_is_no_answer(answer):
    found = extract_robust(j(answer), "decimal", note=COPY_NOTE)
    assert (found.answer, found.status) == (None, "not_found")
    assert "restates the patient note" in found.detail
    assert extract_robust(j(answer), "decimal").status == "ok"  # without the note: read


def test_a_bare_number_of_the_note_is_still_read():
    # a computed value may equal one of the note's (a 1:1 steroid conversion: the released
    # GPT-4o mini answers hold ten such right answers), so a bare number is read
    assert extract_robust(j("47.069"), "decimal", note=COPY_NOTE).answer == "47.069"


def test_a_note_value_beside_a_derived_value_leaves_it():
    answer = j("Na 128 mEq/L, glucose 400 mg/dL: 128 + 0.024 * (400 - 100) = 135.2")
    assert extract_robust(answer, "decimal", note=COPY_NOTE).answer == "135.2"


@pytest.mark.parametrize("answer", ["100/70 mmHg", "100 / 70 mm Hg", "BP 100/70",
                                    "blood pressure: 120/80"])
def test_a_blood_pressure_is_no_value(answer):
    for note in (COPY_NOTE, None):  # copied from the note or not: no calculator gives one
        found = extract_robust(j(answer), "decimal", note=note)
        assert (found.answer, found.status) == (None, "not_found"), (answer, note)
    assert extract_robust(j("140/70"), "decimal").answer == "2.0"  # a bare ratio: arithmetic


@pytest.mark.parametrize("answer", ["2023, 07/03/2000", "07/03/2000", "08/31/2023",
                                    "08/31/2023, 07/03/2000"])
def test_the_date_format_examples_of_the_question_are_no_answer(answer):
    found = extract_robust(j(answer), "date", question=DATE_QUESTION)
    assert (found.answer, found.status) == (None, "not_found")
    assert found.detail.startswith(FORMAT_EXAMPLE)
    assert extract_robust(j("07/04/2000"), "date", question=DATE_QUESTION).answer == "07/04/2000"


def test_a_stretch_across_two_examples_is_a_copy_even_after_work():
    work = ('{"step_by_step_thinking": "The last period began on 09/26/1999 and the cycle is '
            '28 days, so the due date is 280 days later.", "answer": "%s"}')
    assert extract_robust(work % "07/03/2000", "date", question=DATE_QUESTION).answer == \
        "07/03/2000"  # one example's value, derived: read as derived
    assert extract_robust(work % "2023, 07/03/2000", "date",
                          question=DATE_QUESTION).status == "not_found"


def test_two_different_answer_fields_are_no_answer():
    found = extract_robust('{"answer": "5"}\n{"answer": "7"}', "integer")
    assert (found.answer, found.status) == (None, "not_found")
    assert found.detail.startswith("two different answers")
    assert extract_robust('{"answer": "5"}\n{"answer": "5.0"}', "integer").answer == "5"
    assert extract_robust('{"answer": "5"} {"note": "x"}', "integer").answer == "5"
