"""What CLUE's prompts add to the standard ones (``benchmarks.base.standard``): templates per
dataset, the references as exemplar replies, and the paper's exemplar counts and answer styles.

Messages (the standard structure): a system message (role, task, answer format), then exemplars
as user/assistant turns (the assistant turn is the exemplar's reference in the answer format),
then the example as the user message. The exemplar mode follows the paper: few-shot with
direct answers (the references carry no reasoning), 3 exemplars at level 1, 1 at level 2 and
none for LongHealth, unless the task setting ``exemplars.count`` says otherwise. ``cot`` is
zero-shot chain of thought.
"""

from __future__ import annotations

import re
from typing import Any

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


def style(mode: dict[str, Any]) -> str:
    """Reasoning only for zero-shot CoT; the exemplar mode uses the paper's direct answers."""
    return "reasoning" if mode["reasoning"] and not int(mode["exemplars"]) else "direct"


def templates_for(templates: dict[str, Any], dataset: str) -> dict[str, Any]:
    """The templates entry of ``dataset``."""
    key = template_key(dataset)
    try:
        return templates["datasets"][key]
    except KeyError as err:
        raise ValueError(
            f"CLUE templates have no entry datasets.{key} (dataset {dataset!r})"
        ) from err
