"""Render MedCalc-Bench examples as chat messages for each mode, from the task's templates."""

from __future__ import annotations

import json
from typing import Any

from clineval.benchmarks.base import request_record
from clineval.benchmarks.base.exemplars import shown_exemplars
from clineval.benchmarks.base.prompts import fill


def _exemplar_block(templates: dict[str, Any], exemplar: dict[str, Any], question: str) -> str:
    response = json.dumps(
        {"step_by_step_thinking": exemplar["thinking"], "answer": exemplar["answer"]}
    )
    values = {"note": exemplar["note"], "question": question, "response": response}
    return fill(templates["exemplar"], values)


def render(
    example: dict[str, Any],
    mode: dict[str, Any],
    templates: dict[str, Any],
    exemplars: list[dict[str, Any]],
    allow_abstention: bool = False,
) -> list[dict[str, str]]:
    """System message (role, answer format, optional leave to abstain, exemplars as the paper
    placed them) + user message."""
    style = "reasoning" if mode["reasoning"] else "direct"
    system = templates["system"][style]
    if allow_abstention:
        system += " " + templates["abstention"]
    for exemplar in exemplars:
        system += _exemplar_block(templates, exemplar, example["question"])
    user = fill(
        templates["user"],
        {
            "note": example["note"],
            "question": example["question"],
            "answer_format": templates["answer_format"][style],
        },
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def build_requests(
    task: dict[str, Any],
    mode: dict[str, Any],
    templates: dict[str, Any],
    examples: list[dict[str, Any]],
    exemplars: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """One request per example; the exemplar mode uses exemplar(s) of the same calculator."""
    count = shown_exemplars(task, mode, int(mode["exemplars"]))
    by_calc: dict[int, list[dict[str, Any]]] = {}
    for exemplar in exemplars:
        by_calc.setdefault(exemplar["calculator_id"], []).append(exemplar)
    missing = sorted(
        {e["calculator_id"] for e in examples if count and e["calculator_id"] not in by_calc}
    )
    if missing:
        raise ValueError(
            f"no one-shot exemplar for calculator id(s) {missing}: configure "
            "tasks.<task>.exemplars.source=official with official_path, or use calculators "
            "the project implements"
        )
    requests = []
    for example in examples:
        chosen = by_calc.get(example["calculator_id"], [])[:count]
        messages = render(example, mode, templates, chosen, bool(task.get("allow_abstention")))
        requests.append(request_record(example["id"], messages, [e["id"] for e in chosen]))
    return requests
