"""MedDisK prompts (the paper's §3.2.1 and Figure 7), in the task's language.

Two kinds, following the model (its prompt kind, config/prompt_kind.py) unless the task
setting ``prompt.kind`` overrides it (``auto``, the default, follows the model):

- ``instruction`` (chat models: instruction-tuned): the aspect instruction with the test
  disease, the demonstration sentences, then the question, as one user message.
- ``completion`` (base models): the demonstration sentences, then the test stem to complete
  (``<disease>的<aspect>包括``). For a model of prompt kind ``completion`` (no chat template) the
  text is sent as it is; a chat model given it (an override) gets it as its user message.

The exemplar mode (``one_shot``, ``exemplars.count``: 5 as the paper) shows the demonstration
diseases' values for the same aspect; ``zero_shot`` (not the paper's) shows none. An empty value
renders as the template's ``none``; a demonstration whose value is not annotated is left out.
"""

from __future__ import annotations

from typing import Any

from clineval.benchmarks.base import request_record
from clineval.benchmarks.base.exemplars import exemplar_count
from clineval.benchmarks.base.prompts import fill
from clineval.io import Record

KINDS = ("instruction", "completion")
#: The MedDisK prompt of each model prompt kind (``prompt.kind: auto``).
BY_MODEL = {"chat": "instruction", "completion": "completion"}

#: The paper's demonstrations per prompt.
PAPER_DEMOS = 5


def value_text(value: Any, wording: Record) -> str:
    """A KB value as prompt text: items joined, empty as ``none``, numbers as digits."""
    if isinstance(value, list):
        return wording["item_separator"].join(value) if value else wording["none"]
    if isinstance(value, str):
        return value or wording["none"]
    return str(value)


def _fields(example: Record, disease: str) -> dict[str, str]:
    return {"disease": disease, "label": example["label"], "verb": example["verb"]}


def sentence(example: Record, disease: str, value: Any, wording: Record) -> str:
    """One demonstration (or oracle) sentence: ``<disease>的<label><verb><value>。``."""
    return fill(wording["sentence"], {**_fields(example, disease),
                                      "value": value_text(value, wording)})


def demonstrations(example: Record, demos: list[Record], wording: Record) -> tuple[list[str],
                                                                                   list[str]]:
    """(sentences, demo disease ids) for the example's aspect."""
    shown = [d for d in demos if d["values"].get(example["aspect"]) is not None]
    return ([sentence(example, d["disease"], d["values"][example["aspect"]], wording)
             for d in shown], [d["id"] for d in shown])


def instruction_text(example: Record, wording: Record) -> str:
    custom = (wording.get("instructions") or {}).get(example["aspect"])
    fields = {
        **_fields(example, example["disease"]),
        "definition": (wording.get("definitions") or {}).get(example["aspect"], ""),
        "format": wording["formats"][example["type"]],
    }
    return fill(custom or wording["instruction"], fields)


def render(example: Record, demos: list[Record], wording: Record, kind: str) -> tuple[str,
                                                                                     list[str]]:
    """The user message and the demonstration ids it shows."""
    sentences, ids = demonstrations(example, demos, wording)
    if kind == "completion":
        stem = fill(wording["stem"], _fields(example, example["disease"]))
        return wording["demo_separator"].join([*sentences, stem]), ids
    parts = [instruction_text(example, wording)]
    if sentences:
        parts.append(wording["examples_intro"] + wording["demo_separator"].join(sentences))
    parts.append(fill(wording["question"], _fields(example, example["disease"]))
                 + (wording.get("answer_prefix") or ""))
    return "\n".join(parts), ids


def prompt_of(task: Record, prompt_kind: str) -> str:
    """``instruction`` or ``completion``: the task's ``prompt.kind``, or the model's (``auto``)."""
    kind = (task.get("prompt") or {}).get("kind") or "auto"
    if kind == "auto":
        if prompt_kind not in BY_MODEL:
            raise ValueError(f"model prompt kind {prompt_kind!r}; kinds: {', '.join(BY_MODEL)}")
        return BY_MODEL[prompt_kind]
    if kind not in KINDS:
        raise ValueError(f"prompt.kind={kind!r}; kinds: auto, {', '.join(KINDS)}")
    return kind


def build_requests(task: Record, mode: Record, templates: Record, examples: list[Record],
                   exemplars: list[Record], prompt_kind: str = "chat") -> list[Record]:
    """One single-message request per example, with the demonstrations of the exemplar mode;
    raw text (``completion``) for a model of prompt kind ``completion``."""
    kind = prompt_of(task, prompt_kind)
    count = exemplar_count(task, PAPER_DEMOS) if int(mode["exemplars"]) else 0
    if len(exemplars) < count:
        raise ValueError(f"MedDisK: {count} demonstration disease(s) requested, "
                         f"{len(exemplars)} available")
    demos = exemplars[:count]
    leaked = {e["disease_id"] for e in examples} & {d["id"] for d in demos}
    if leaked:
        raise ValueError(f"MedDisK demonstration disease(s) {sorted(leaked)} are also evaluated")
    requests = []
    for example in examples:
        wording = templates.get(example["lang"])
        if wording is None:
            raise ValueError(f"MedDisK templates have no {example['lang']!r} entry")
        text, ids = render(example, demos, wording, kind)
        requests.append(request_record(example["id"], [{"role": "user", "content": text}], ids,
                                       completion=prompt_kind == "completion"))
    return requests
