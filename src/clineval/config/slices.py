"""A model's slice of the grid: fewer examples for an expensive model.

``grid.slices.<model>.limit`` sets the examples per cell, and ``tasks.<task>`` overrides it for
one task::

    grid:
      slices:
        smollm2_135m:
          limit: 8
          seed: 7                     # optional: another sample of 8
          tasks:
            medcalc: {limit: 12, offset: 12}   # the next 12 after the first 12
            clue_meqsum: {ids: ["q17", "q40"]}  # exactly these examples

The model still runs every (task, mode) of the grid, as every other model (one rule per
benchmark names each model's files); narrow the modes with grid.select or the task's modes.

The examples are ranked by the sha256 of their id (with a ``seed``: of ``"<seed>/<id>"``), and
a slice takes ``limit`` of them from ``offset`` on (0 unless set; no limit: the rest), kept in
the file's order: it does not depend on the file's order, a larger slice contains a smaller one
of the same seed and offset, slices of one seed at offsets ``0, n, 2n, ...`` are disjoint, and
another seed draws another sample. A task's ``ids`` take exactly those examples instead. A
task's keys override the model's; ``ids`` replace the model's other keys. Only the sliced
model's cells change; the other models run the whole task, and tables mark the sliced model's
rows.

A cell's identities hold its slice as ``slice`` (the limit), ``slice_seed``, ``slice_offset``
and ``slice_ids``, each only when set, so that a slice by limit keeps the identity it had
before seeds, offsets and ids existed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from clineval.errors import ConfigError

#: The identity key of each slice setting.
KEYS = {"limit": "slice", "seed": "slice_seed", "offset": "slice_offset", "ids": "slice_ids"}
#: How many missing ids an error names.
SHOWN = 5


def _settings(cfg: Mapping[str, Any], model: str, task: str) -> dict[str, Any]:
    """The set slice settings of the model on the task: the task's keys over the model's."""
    spec = (cfg["grid"].get("slices") or {}).get(model) or {}
    override = (spec.get("tasks") or {}).get(task) or {}
    if override.get("ids") is not None:
        return {"ids": [str(i) for i in override["ids"]]}
    merged = {key: override[key] if key in override else spec.get(key)
              for key in ("limit", "seed", "offset")}
    return {key: value for key, value in merged.items() if value is not None}


def validate_slices(cfg: Mapping[str, Any]) -> None:
    """Stop on a slice of a model or task the grid does not define, ``ids`` beside other keys,
    empty or repeated ``ids``, and a seed that would change nothing (the keys, types and ranges
    are checked by the grid's schema, config/schema/grid.py)."""
    slices = cfg["grid"].get("slices") or {}
    for model, spec in slices.items():
        where = f"grid.slices.{model}"
        if model not in cfg["models"]:
            raise ConfigError(f"{where}: no model {model!r} in this grid; models: "
                              f"{', '.join(cfg['models'])}")
        for task, override in ((spec or {}).get("tasks") or {}).items():
            if task not in cfg["tasks"]:
                raise ConfigError(f"{where}.tasks.{task}: no task {task!r} in this grid; "
                                  f"tasks: {', '.join(cfg['tasks'])}")
            _check_ids(f"{where}.tasks.{task}", override or {})
        for task in cfg["tasks"]:
            settings = _settings(cfg, model, task)
            if "seed" in settings and not {"limit", "offset"} & settings.keys():
                raise ConfigError(f"{where}: seed {settings['seed']} with neither a limit nor "
                                  f"an offset on task {task} takes every example; set a limit "
                                  "or an offset, or drop the seed")


def _check_ids(where: str, override: Mapping[str, Any]) -> None:
    ids = override.get("ids")
    if ids is None:
        return
    others = [key for key in ("limit", "seed", "offset") if override.get(key) is not None]
    if others:
        raise ConfigError(f"{where}: ids name the examples themselves; drop "
                          f"{', '.join(others)} or the ids")
    if not ids:
        raise ConfigError(f"{where}.ids: empty; list at least one example id, or drop ids")
    seen: set[str] = set()
    for value in map(str, ids):
        if value in seen:
            raise ConfigError(f"{where}.ids: {value!r} is listed twice")
        seen.add(value)


def identity(cfg: Mapping[str, Any], model: str, task: str) -> dict[str, Any]:
    """The slice keys of the cells of the model on the task (empty: the whole task)."""
    return {KEYS[key]: value for key, value in _settings(cfg, model, task).items()}


def is_sliced(cfg: Mapping[str, Any], model: str, task: str) -> bool:
    """Whether the model runs a slice of the task."""
    return bool(_settings(cfg, model, task))


def _rank(example_id: Any, seed: int | None) -> str:
    text = str(example_id) if seed is None else f"{seed}/{example_id}"
    return hashlib.sha256(text.encode()).hexdigest()


def take(examples: Sequence[dict[str, Any]], ident: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The examples of the slice an identity holds (all when it holds none), in their order in
    the file; ``ident["cell"]`` (``model/task/mode``) names the setting in errors."""
    ids, offset = ident.get("slice_ids"), ident.get("slice_offset") or 0
    limit, seed = ident.get("slice"), ident.get("slice_seed")
    model, task = str(ident.get("cell") or "?/?/?").split("/")[:2]
    if ids is not None:
        present = {str(e["id"]) for e in examples}
        missing = [i for i in ids if i not in present]
        if missing:
            raise ConfigError(
                f"grid.slices.{model}.tasks.{task}.ids: {len(missing)} of {len(ids)} ids are "
                f"not examples of task {task}; first: {', '.join(map(repr, missing[:SHOWN]))}")
        wanted = set(ids)
        return [e for e in examples if str(e["id"]) in wanted]
    if offset and offset >= len(examples):
        raise ConfigError(f"grid.slices.{model}: offset {offset} leaves no example of task "
                          f"{task}, which has {len(examples)}")
    if not offset and (limit is None or limit >= len(examples)):
        return list(examples)
    ranked = sorted(range(len(examples)), key=lambda i: _rank(examples[i]["id"], seed))
    keep = set(ranked[offset:None if limit is None else offset + limit])
    return [e for i, e in enumerate(examples) if i in keep]
