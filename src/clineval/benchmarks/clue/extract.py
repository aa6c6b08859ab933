"""Raw model output -> prediction, per CLUE dataset; never raises on model text.

Chain of thought: the CoT templates ask for a last line starting with ``Final answer:``; the answer
is what follows the last such marker. Without a marker the whole output is the answer, so the same
extraction serves every mode.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from clineval.metrics.codes import extract_codes

#: The marker the CoT templates ask for (conf/templates/clue.yaml).
ANSWER_MARKER = "Final answer:"
NLI_LABELS = ("entailment", "neutral", "contradiction")
#: The statuses of an output from which an answer was read.
ANSWERED = frozenset({"label", "leading_label", "phrase", "bare_letter", "codes"})

_MARKER = re.compile(re.escape(ANSWER_MARKER), re.IGNORECASE)
_LABEL = re.compile(r"\b(entailment|neutral|contradiction)\b", re.IGNORECASE)
_LEADING = re.compile(r"(entailment|neutral|contradiction)\W*?(?:[.:;,!)\n]|$)", re.IGNORECASE)
_PHRASE = re.compile(r"(?i:the\s+correct\s+answer\s+is)\W{0,3}([A-Z])\b")
_BARE_LETTER = re.compile(r"^\W{0,3}([A-Z])(?:\s*[:.)]|\s*$)")


@dataclass(frozen=True)
class Extraction:
    """``prediction``: label, letter, text or code list (``None``: nothing usable);
    ``status`` says how it was found."""

    prediction: Any
    status: str


def answer_part(output: str) -> tuple[str, bool]:
    """The text after the last ``Final answer:`` marker (stripped), and whether there was one."""
    matches = list(_MARKER.finditer(output))
    if not matches:
        return output.strip(), False
    return output[matches[-1].end() :].strip(), True


def nli_label(output: str) -> Extraction:
    """The one NLI label the answer names; if it names several, the one that opens the answer
    as a sentence of its own ("Contradiction. ... not entailment")."""
    text, _ = answer_part(output)
    found = [m.group(1).lower() for m in _LABEL.finditer(text)]
    if not found:
        return Extraction(None, "no_label")
    if len(set(found)) == 1:
        return Extraction(found[0], "label")
    leading = _LEADING.match(text.lstrip(" \t\n*\"'`([."))
    if leading:
        return Extraction(leading.group(1).lower(), "leading_label")
    return Extraction(None, "ambiguous")


def option_letter(output: str, choices: list[str] | None) -> Extraction:
    """The capital letter after "The correct answer is" (first occurrence), else a bare leading
    letter. Looser than the CLUE evaluation, which required a colon after the letter."""
    text, _ = answer_part(output)
    allowed = set(choices or "ABCDEF")
    match = _PHRASE.search(text)
    if match:
        letter = match.group(1)
        return Extraction(letter, "phrase") if letter in allowed else Extraction(None, "bad_letter")
    match = _BARE_LETTER.match(text)
    if match and match.group(1) in allowed:
        return Extraction(match.group(1), "bare_letter")
    return Extraction(None, "no_answer")


def code_list(output: str) -> Extraction:
    """ICD-10 codes by the CLUE pattern, dotless, in order, repeats kept."""
    text, _ = answer_part(output)
    codes = extract_codes(text)
    return Extraction(codes, "codes" if codes else "no_codes")


def summary_text(output: str) -> Extraction:
    """The answer text; the whole output when there is no marker."""
    text, marked = answer_part(output)
    return Extraction(text, "marked" if marked else "whole_output")


def extract(example: dict[str, Any], output: str) -> Extraction:
    """Dispatch on the example's dataset."""
    dataset = example["dataset"]
    if dataset == "mednli":
        return nli_label(output)
    if dataset.startswith("longhealth_"):
        return option_letter(output, example.get("choices"))
    if dataset == "medisumcode":
        return code_list(output)
    if dataset in ("meqsum", "problem_summary", "medisumqa"):
        return summary_text(output)
    raise ValueError(f"example {example['id']!r}: unknown CLUE dataset {dataset!r}")
