"""A model's slice of the grid: fewer examples for an expensive model.

``grid.slices.<model>.limit`` sets the examples per cell, and ``tasks.<task>.limit`` overrides
it for one task::

    grid:
      slices:
        smollm2_135m:
          limit: 8
          tasks:
            medcalc: {limit: 12}

The model still runs every (task, mode) of the grid, as every other model (one rule per
benchmark names each model's files); narrow the modes with grid.select or the task's modes.

A slice of ``n`` examples is the ``n`` whose sha256 of the example id is smallest (kept in the
file's order): it does not depend on the file's order, and a larger slice contains a smaller
one. Only the sliced model's cells change; the other models run the whole task, and tables mark
the sliced model's rows.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from clineval.errors import ConfigError


def validate_slices(cfg: Mapping[str, Any]) -> None:
    """Stop on a slice of a model or task the grid does not define (the keys and limits are
    checked by the grid's schema, config/schema/grid.py)."""
    slices = cfg["grid"].get("slices") or {}
    for model, spec in slices.items():
        where = f"grid.slices.{model}"
        if model not in cfg["models"]:
            raise ConfigError(f"{where}: no model {model!r} in this grid; models: "
                              f"{', '.join(cfg['models'])}")
        for task in (spec or {}).get("tasks") or {}:
            if task not in cfg["tasks"]:
                raise ConfigError(f"{where}.tasks.{task}: no task {task!r} in this grid; "
                                  f"tasks: {', '.join(cfg['tasks'])}")


def limit_of(cfg: Mapping[str, Any], model: str, task: str) -> int | None:
    """The examples per cell of the model on the task (None: all)."""
    spec = (cfg["grid"].get("slices") or {}).get(model) or {}
    override = (spec.get("tasks") or {}).get(task) or {}
    return override.get("limit", spec.get("limit"))


def take(examples: Sequence[dict[str, Any]], limit: int | None) -> list[dict[str, Any]]:
    """The slice of ``limit`` examples (all when None), in their order in the file."""
    if limit is None or limit >= len(examples):
        return list(examples)
    ranked = sorted(range(len(examples)),
                    key=lambda i: hashlib.sha256(str(examples[i]["id"]).encode()).hexdigest())
    keep = set(ranked[:limit])
    return [e for i, e in enumerate(examples) if i in keep]
