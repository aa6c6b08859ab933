"""MedCalc-Bench answer extraction and correctness, in two settings.

* ``official``: the official MedCalc-Bench evaluation reproduced exactly, quirks included (see
  :mod:`.extract_official`). Single deviation: model text is never handed to Python's ``eval``
  or ``exec``; a whitelisting AST evaluator (:mod:`.safe_eval`) reproduces ``eval`` for numbers,
  arithmetic, comparisons, tuples, ``min/pow/round/abs/int/float`` and common ``math``/``np``
  functions, and treats anything else as an evaluation error (arbitrary code is not executed).
* ``robust``: what a careful human grader would accept, driven by the row's output type, the
  calculator (a point score reads "3/9" as 3) and the patient note (an answer restating the
  note is no answer); see :mod:`.extract_robust` for every rule.

Nothing here raises on model text: any failure is an :class:`Extraction` with a non-"ok" status
and correctness 0.

Rows labelled ``N/A`` (no answer can be computed from the note) are correct exactly when the
output abstains (:mod:`.abstention`), in both settings. On a computable row an abstention is
wrong: the robust setting records it with status ``abstained``; the official setting keeps the
official code's verdict (an abstention holds no value it could accept).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, cast

from .abstention import ABSTAINED, answer_abstains
from .calculators import CALCULATORS
from .extract_official import WEEKS_DAYS_IDS, official_check, official_extract, raw_answer
from .extract_robust import answer_text, robust_check, robust_extract, without_copies

__all__ = [
    "EXTRACTIONS",
    "Extraction",
    "OutputType",
    "correct_official",
    "correct_robust",
    "extract_official",
    "extract_robust",
    "judge",
    "output_type_for",
    "point_score",
]

OutputType = Literal["decimal", "integer", "date", "weeks_days"]
EXTRACTIONS = ("official", "robust")
_OUTPUT_TYPES = ("decimal", "integer", "date", "weeks_days")
_DAY_COUNT = re.compile(r"^[\s\"'(]*(\d+)\s*(?:days?|d)?[\s\"').]*$", re.IGNORECASE)


@dataclass(frozen=True)
class Extraction:
    """An extracted answer: ``answer`` is None unless ``status == "ok"`` (see each setting)."""

    answer: str | None  # normalized answer text as the setting produces it ("N/A"-style -> None)
    status: str  # "ok" | "not_found" | "unparseable" | "error"
    detail: str = ""  # short human reason when not ok


def output_type_for(calculator_id: int, csv_output_type: str) -> OutputType:
    """The row's output type; calculator 69 (gestational age) is weeks_days, not "integer"."""
    if int(calculator_id) in WEEKS_DAYS_IDS:
        return "weeks_days"
    kind = str(csv_output_type).strip().lower()
    if kind not in _OUTPUT_TYPES:
        raise ValueError(f"unknown MedCalc-Bench output type {csv_output_type!r}")
    return cast(OutputType, kind)


def point_score(calculator_id: int) -> bool:
    """Whether the calculator's result is a point score (a rule-based calculator)."""
    calculator = CALCULATORS.get(int(calculator_id))
    return calculator is not None and calculator.point_score


def _failed(exc: Exception) -> Extraction:
    return Extraction(None, "error", f"{type(exc).__name__}: {exc}"[:200])


def extract_official(output: str, calculator_id: int) -> Extraction:
    """Official ``extract_answer``: ``answer`` is its returned string ("N/A" -> None)."""
    try:
        return Extraction(*official_extract(str(output), int(calculator_id)))
    except Exception as exc:  # defensive: the official pipeline would mark the row incorrect
        return _failed(exc)


def correct_official(
    extraction: Extraction, ground_truth: str, calculator_id: int, lower: str, upper: str
) -> int:
    """Official ``check_correctness`` verdict (1/0); any exception it would raise gives 0."""
    if extraction.status != "ok" or extraction.answer is None:
        return 0  # "N/A", "Not Found" and raising extractions are always incorrect officially
    try:
        return official_check(
            extraction.answer, str(ground_truth), calculator_id, str(lower), str(upper)
        )
    except Exception:
        return 0


def extract_robust(output: str, output_type: OutputType, *, note: str | None = None,
                   score: bool = False, question: str | None = None) -> Extraction:
    """Lenient extraction for ``output_type``; never raises on model text. ``note``: the
    patient note (numbers the answer copies from it are not its value); ``score``: the result
    is a point score ("3/9" is 3); ``question``: the row's question (its format examples are
    no answer)."""
    try:
        return Extraction(*robust_extract(str(output), output_type, note=note, point_score=score,
                                          question=question))
    except Exception as exc:
        return _failed(exc)


def correct_robust(
    extraction: Extraction, ground_truth: str, output_type: OutputType, lower: str, upper: str
) -> int:
    """Lenient verdict (1/0) for a robust extraction."""
    if extraction.status != "ok" or extraction.answer is None:
        return 0
    try:
        return robust_check(extraction.answer, str(ground_truth), output_type, str(lower),
                            str(upper))
    except Exception:
        return 0


def judge(
    setting: str,
    output: str,
    *,
    calculator_id: int,
    csv_output_type: str,
    ground_truth: str,
    lower: str,
    upper: str,
    days_label: bool = False,
    note: str | None = None,
    question: str | None = None,
) -> tuple[Extraction, int]:
    """Extract and score one output under ``setting`` ("official" or "robust").

    ``note``: the row's patient note; the robust setting never takes a number the answer copies
    from it (the official code does not look at the note). ``question``: the row's question;
    the robust setting takes none of the format examples it lists ("(i.e. (4 weeks, 3 days),
    ...)") for an answer (the official code reads them).

    ``days_label``: the gestational-age label was given as a number of days (the corrected
    layout, whose question asks for days); an answer that is a whole number of days is then
    compared in days, in both settings (the official code has no such answers).
    """
    if setting not in EXTRACTIONS:
        raise ValueError(f"unknown extraction setting {setting!r}; known: {', '.join(EXTRACTIONS)}")
    abstained = answer_abstains(setting, output)
    abstention = Extraction(ABSTAINED, "abstained", "the answer declines to give a value")
    if str(ground_truth).strip().upper() == ABSTAINED:  # an N/A row: only abstaining is right
        if abstained:
            return abstention, 1
        extraction, _ = judge(setting, output, calculator_id=calculator_id,
                              csv_output_type=csv_output_type, ground_truth="0", lower="0",
                              upper="0", note=note)
        return extraction, 0
    if days_label and int(calculator_id) in WEEKS_DAYS_IDS:
        text = raw_answer(output) if setting == "official" else answer_text(output)[0]
        if setting == "robust" and text:
            text = without_copies(text, note)
        if (days := _DAY_COUNT.match(text or "")) is not None:
            weeks, rest = divmod(int(days.group(1)), 7)
            extraction = Extraction(f"({weeks}, {rest})", "ok", "a number of days")
            return extraction, correct_robust(extraction, ground_truth, "weeks_days", lower, upper)
    if setting == "official":
        extraction = extract_official(output, calculator_id)
        return extraction, correct_official(extraction, ground_truth, calculator_id, lower, upper)
    if abstained:
        return abstention, 0
    output_type = output_type_for(calculator_id, csv_output_type)
    extraction = extract_robust(output, output_type, note=note, score=point_score(calculator_id),
                                question=question)
    return extraction, correct_robust(extraction, ground_truth, output_type, lower, upper)
