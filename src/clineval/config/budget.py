"""A cell's generation budget: how many tokens its answers may take (``max_tokens``).

Each task gives a budget per answer style (``max_tokens: {direct: N, reasoning: M}``: its
paper's, or a labelled placeholder where the paper gives none), since a chain of thought needs
room that a direct answer does not; the style of a cell is its benchmark's reading of the mode
(``Benchmark.style``: CLUE's few-shot answers are direct, MedEval asks for direct answers only).
A model may set ``sampling.max_tokens`` to override the budget of every cell it runs (a smoke
model, a server's limit); null takes the task's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from clineval.benchmarks import get_benchmark
from clineval.errors import ConfigError


def max_tokens(model_name: str, model: Mapping[str, Any], task_name: str,
               task: Mapping[str, Any], mode: Mapping[str, Any]) -> int | None:
    """The cell's ``max_tokens`` (None: a model without sampling, a baseline)."""
    sampling = model.get("sampling")
    if sampling is None:
        return None
    if sampling.get("max_tokens") is not None:
        return int(sampling["max_tokens"])
    style = get_benchmark(task["benchmark"]).style(mode)
    budget = (task.get("max_tokens") or {}).get(style)
    if budget is None:
        raise ConfigError(
            f"models.{model_name}.sampling.max_tokens is null and tasks.{task_name}.max_tokens."
            f"{style} is not set: give the task a budget for {style} answers, or the model one "
            "for every cell")
    return int(budget)


def with_max_tokens(model: Mapping[str, Any], budget: int | None) -> dict[str, Any]:
    """``model`` with ``sampling.max_tokens`` set to the cell's ``budget``."""
    if budget is None:
        return dict(model)
    return {**model, "sampling": {**model["sampling"], "max_tokens": budget}}
