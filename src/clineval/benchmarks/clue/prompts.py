"""Render CLUE examples as chat messages for each mode, from the task's templates.

Messages: a system message (role, task, answer format), then exemplars as user/assistant turns
(the assistant turn is the exemplar's reference in the answer format), then the example as the
user message. The exemplar mode follows the paper: few-shot with direct answers (the references
carry no reasoning), 3 exemplars at level 1, 1 at level 2 and none for LongHealth, unless the
task setting ``exemplars.count`` says otherwise. ``cot`` is zero-shot chain of thought.
"""

from __future__ import annotations

import re
from typing import Any

from clineval.benchmarks.base import request_record
from clineval.benchmarks.base.prompts import fill

#: The paper's exemplar count per dataset (Appendix B.3).
PAPER_SHOTS = {
    "mednli": 3,
    "meqsum": 3,
    "problem_summary": 3,
    "longhealth_task1": 0,
    "longhealth_task2": 0,
    "longhealth_task3": 0,
    "medisumqa": 1,
    "medisumcode": 1,
}
_OPTION = re.compile(r"^\s*([A-Z])\s*:\s*(.*)$")


def template_key(dataset: str) -> str:
    """The templates entry of a dataset (LongHealth's three tasks share one)."""
    return "longhealth" if dataset.startswith("longhealth_") else dataset


def reference_text(example: dict[str, Any]) -> dict[str, str]:
    """``reference`` as text (codes joined by ", "), and LongHealth's chosen option line."""
    reference = example["reference"]
    values = {"reference": ", ".join(reference) if isinstance(reference, list) else reference}
    if template_key(example["dataset"]) == "longhealth":
        for line in example["fields"].get("options", "").splitlines():
            match = _OPTION.match(line)
            if match and match.group(1) == reference:
                values["reference_option"] = f"{match.group(1)}: {match.group(2).strip()}"
        values.setdefault("reference_option", reference)
    return values


def _style(mode: dict[str, Any]) -> str:
    """Reasoning only for zero-shot CoT; the exemplar mode uses the paper's direct answers."""
    return "reasoning" if mode["reasoning"] and not int(mode["exemplars"]) else "direct"


def _templates_for(templates: dict[str, Any], dataset: str) -> dict[str, Any]:
    key = template_key(dataset)
    try:
        return templates["datasets"][key]
    except KeyError as err:
        raise ValueError(
            f"CLUE templates have no entry datasets.{key} (dataset {dataset!r})"
        ) from err


def render(
    example: dict[str, Any],
    mode: dict[str, Any],
    templates: dict[str, Any],
    exemplars: list[dict[str, Any]],
) -> list[dict[str, str]]:
    """System message, exemplar turns, user message."""
    spec = _templates_for(templates, example["dataset"])
    answer_format = spec["answer_format"][_style(mode)]
    system = fill(spec["system"], {"answer_format": answer_format})
    messages = [{"role": "system", "content": system}]
    for exemplar in exemplars:
        turn = {**exemplar["fields"], "answer_format": answer_format}
        reply = fill(spec["answer"], reference_text(exemplar))
        messages.append({"role": "user", "content": fill(spec["user"], turn)})
        messages.append({"role": "assistant", "content": reply})
    user = {**example["fields"], "answer_format": answer_format}
    messages.append({"role": "user", "content": fill(spec["user"], user)})
    return messages


def exemplar_count(task: dict[str, Any], mode: dict[str, Any], dataset: str) -> int:
    """0 outside the exemplar mode; else ``exemplars.count`` if set, else the paper's count."""
    if not int(mode["exemplars"]):
        return 0
    configured = (task.get("exemplars") or {}).get("count")
    return PAPER_SHOTS[dataset] if configured is None else int(configured)


def build_requests(
    task: dict[str, Any],
    mode: dict[str, Any],
    templates: dict[str, Any],
    examples: list[dict[str, Any]],
    exemplars: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """One request per example; exemplars are the first ``count`` of the example's dataset."""
    pool: dict[str, list[dict[str, Any]]] = {}
    for exemplar in exemplars:
        pool.setdefault(exemplar["dataset"], []).append(exemplar)
    evaluated = {e["id"] for e in examples}
    leaked = sorted(evaluated & {e["id"] for e in exemplars})
    if leaked:
        raise ValueError(f"CLUE exemplar id(s) {leaked[:5]} are also evaluated examples")
    requests = []
    for example in examples:
        dataset = example["dataset"]
        if dataset not in PAPER_SHOTS:
            raise ValueError(f"example {example['id']!r}: unknown CLUE dataset {dataset!r}")
        count = exemplar_count(task, mode, dataset)
        chosen = pool.get(dataset, [])[:count]
        if len(chosen) < count:
            raise ValueError(
                f"CLUE {dataset}: {count} exemplar(s) requested, {len(chosen)} available"
            )
        messages = render(example, mode, templates, chosen)
        requests.append(request_record(example["id"], messages, [e["id"] for e in chosen]))
    return requests
