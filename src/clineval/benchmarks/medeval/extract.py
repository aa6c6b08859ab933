"""Raw outputs -> predictions: label words of the NLU sentence tasks, texts of the NLG tasks.

Label extraction (App. D's *qualified* answers): the output is lower-cased, a leading
``Label:``/``Answer:`` is dropped and punctuation becomes space; the answer is qualified when
exactly one of the task's label words occurs as a whole word (``lenient``, the paper's
definition: "including only one of normal or abnormal"), or, under ``strict``, when the cleaned
answer is that one word and nothing else, digits included (App. D: "we expect the model to
return a single word"; "1. abnormal" is not). Anything else is unqualified (prediction None).

Generated texts (``answer_span``): ``slot`` (default) reads the answer the prompt's open label
asks for: an output that echoes the prompt's frame (starts with ``Report:`` / ``Sentence:``)
is answered after its first ``Summary:`` / ``Rewrite:`` (none: an empty answer), and the answer
ends where a frame label of the task starts another example; a rewrite framed in the model's
own words (``Original sentence: "…" Rewritten sentence: "…"``) is read the same way, and a
rewrite is its first line, quotes dropped (:func:`readings.rewrite_slot`). ``whole`` keeps the
output, a leading ``Rewrite:``/``Summary:`` label dropped. Labels are the paper's (App. C),
matched as written (capitalised). Whether the text read is a copy of the prompt (and so
unqualified) is decided by :mod:`clineval.benchmarks.medeval.readings`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from clineval.benchmarks.medeval import readings

MODES = ("lenient", "strict")
SPANS = ("slot", "whole")
_LEAD = re.compile(r"^\s*(?:label|answer)\s*[:\-]\s*", re.IGNORECASE)
_TEXT_LEAD = re.compile(r"^\s*(?:rewrite|rewritten sentence|summary)\s*:\s*", re.IGNORECASE)
_WORD = re.compile(r"[a-z]+")
_TOKEN = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Label:
    prediction: str | None
    qualified: bool


def extract_label(output: str, labels: Sequence[str], mode: str = "lenient") -> Label:
    """The label word of an NLU answer (see the module docstring)."""
    if mode not in MODES:
        raise ValueError(f"label extraction {mode!r}; use {' or '.join(MODES)}")
    answer = _LEAD.sub("", output.strip(), count=1).lower()
    if mode == "strict":
        tokens = _TOKEN.findall(answer)
        hit = tokens[0] if len(tokens) == 1 and tokens[0] in labels else None
        return Label(hit, hit is not None)
    words = _WORD.findall(answer)
    present = sorted({w for w in words if w in labels})
    if len(present) == 1:
        return Label(present[0], True)
    return Label(None, False)


def clean_text(output: str) -> str:
    """A rewrite or summary without a leading answer label."""
    return _TEXT_LEAD.sub("", output.strip(), count=1).strip()


def answer_text(output: str, kind: str, span: str = "slot") -> str:
    """The rewrite or summary in ``output`` (``kind``: rewriting or summarization) by
    ``span`` (see the module docstring), as written: whether it is a copy is decided by
    :mod:`clineval.benchmarks.medeval.readings`."""
    if span not in SPANS:
        raise ValueError(f"answer span {span!r}; use {' or '.join(SPANS)}")
    if span == "whole":
        return clean_text(output)
    if kind == "rewriting":
        return readings.rewrite_slot(output)
    return readings.read_frame(output, kind).answer
