"""CliBench requests: the paper's structure (clinician persona, task instruction, the case's
segments, question) in the wording of a replaceable template file.

Truncation (App. B.7): the profile and history diagnoses are never cut; the admission record,
radiology reports and lab results are one input field for the workflow's context fitting, and a
shortened field of ``n`` characters keeps the same share ``n / total`` of every segment, cut
from its end (the paper's proportional rule, by characters). The workflow records the cut per
request.
"""

from __future__ import annotations

from clineval.benchmarks.base import request_record
from clineval.benchmarks.base.prompts import fill
from clineval.io import Record

#: Truncatable segments, in prompt order.
SEGMENTS = ("record", "radiology", "labs")
FIELD = "inputs"
SEPARATOR = "\n"


def joined(example: Record) -> str:
    return SEPARATOR.join(example["segments"].get(s, "") for s in SEGMENTS
                          if s in example["segments"])


def shortened(example: Record, kept: str) -> Record:
    """``example`` with every segment cut to the share of characters ``kept`` has of all."""
    total = len(joined(example))
    ratio = 1.0 if total == 0 else min(1.0, len(kept) / total)
    if ratio >= 1.0:
        return example
    segments = {name: text[: int(len(text) * ratio)] for name, text in
                example["segments"].items()}
    return {**example, "segments": segments, "cut_ratio": ratio}


def _case(example: Record, spec: Record) -> str:
    parts = [fill(spec["segments"]["profile"], {"profile": example["profile"]})]
    if example.get("history"):
        parts.append(fill(spec["segments"]["history"], {"history": example["history"]}))
    for name in SEGMENTS:
        if name in example["segments"]:
            text = example["segments"][name] or spec["segments"]["empty"]
            parts.append(fill(spec["segments"][name], {name: text}))
    return "\n\n".join(parts)


def answer_style(mode: Record) -> str:
    """The answer format a mode's prompt asks for: ``reasoning`` (a "Final answer:" line after
    the reasoning; zero-shot chain of thought) or ``direct`` (the list alone)."""
    return "reasoning" if mode.get("reasoning") and not int(mode.get("exemplars", 0)) \
        else "direct"


def render(example: Record, mode: Record, templates: Record, exemplars: list[Record]
           ) -> list[dict[str, str]]:
    task = templates["tasks"][example["task"]]
    answer_format = templates["answer_format"][answer_style(mode)]
    system = fill(templates["system"], {"instruction": task["instruction"]})
    messages = [{"role": "system", "content": system}]
    user = templates["user"]
    for exemplar in exemplars:
        messages.append({"role": "user", "content": fill(user, {
            "case": _case(exemplar, templates), "question": task["question"],
            "answer_format": templates["answer_format"]["direct"]})})
        messages.append({"role": "assistant", "content": "\n".join(
            f"- {code}" for code in exemplar["gold"])})
    messages.append({"role": "user", "content": fill(user, {
        "case": _case(example, templates), "question": task["question"],
        "answer_format": answer_format})})
    return messages


def build_requests(mode: Record, templates: Record, examples: list[Record],
                   exemplars: list[Record], count: int) -> list[Record]:
    shots = exemplars[:count] if int(mode.get("exemplars", 0)) else []
    return [request_record(e["id"], render(e, mode, templates, shots), [x["id"] for x in shots])
            for e in examples]
