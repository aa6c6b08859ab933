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
ends where a frame label of the task starts another example. ``whole`` keeps the output, a
leading ``Rewrite:``/``Summary:`` label dropped. Labels are the paper's (App. C), matched as
written (capitalised).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

MODES = ("lenient", "strict")
SPANS = ("slot", "whole")
_LEAD = re.compile(r"^\s*(?:label|answer)\s*[:\-]\s*", re.IGNORECASE)
_TEXT_LEAD = re.compile(r"^\s*(?:rewrite|rewritten sentence|summary)\s*:\s*", re.IGNORECASE)
_WORD = re.compile(r"[a-z]+")
_TOKEN = re.compile(r"[^\W_]+")
#: Per generation task: the labels of the prompt's input and the label the answer follows.
FRAMES = {"summarization": (("Report:",), "Summary:"),
          "rewriting": (("Sentence:", "Diagnostic:"), "Rewrite:")}


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
    ``span`` (see the module docstring)."""
    if span not in SPANS:
        raise ValueError(f"answer span {span!r}; use {' or '.join(SPANS)}")
    if span == "whole":
        return clean_text(output)
    inputs, label = FRAMES[kind]
    text = output.strip()
    if text.startswith(inputs):  # the prompt's frame echoed: the answer follows its label
        at = text.find(label)
        text = "" if at < 0 else text[at + len(label):]
    text = clean_text(text)
    labels = "|".join(re.escape(name) for name in (*inputs, label))
    following = re.search(rf"(?:^|(?<=\s))(?:{labels})", text)
    return text[: following.start()].strip() if following else text
