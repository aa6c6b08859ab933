"""Settings a task does not read are not part of it: null in the composed config.

A setting declared with ``used_when=(key, value)`` (:func:`clineval.benchmarks.base.settings.
setting`) is read only when its section's ``key`` has that value: an official file's path only
with ``source: official``, MedCalc-Bench's label file only with ``labels: file``. Where it is not
read, :func:`drop_unused` sets it to null before interpolations are resolved, so that copies of it
(``scoring.hosp: ${..data.hosp}``) follow, and no identity, grid folder or table depends on it.
A demo task therefore plans the same whatever the environment says: the task configs read the
official files' paths from variables (``${oc.env:CLINEVAL_MEDCALC_CSV,null}``), which a user
exports for a grid on real data (docs/results.md). Unset, those settings are null already, so
the identities of every grid stay as they were.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from clineval.benchmarks.base.schema import hints, join_key, optional_type
from clineval.config.schema.tasks import task_schema

if TYPE_CHECKING:
    from omegaconf import DictConfig


def drop_unused(cfg: DictConfig) -> list[str]:
    """Null every task setting that its section's ``used_when`` says is not read; returns the
    keys set to null. A task whose settings do not resolve is left to the resolution's error."""
    from omegaconf import DictConfig, OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    tasks = cfg.get("tasks")
    if not isinstance(tasks, DictConfig):
        return []
    dropped = []
    for name in list(tasks.keys()):
        node = tasks._get_node(name)
        if not isinstance(node, DictConfig):
            continue
        try:
            plain = OmegaConf.to_container(node, resolve=True)
        except OmegaConfBaseException:
            continue
        if isinstance(plain, dict):
            dropped += _drop(task_schema(plain), node, plain, f"tasks.{name}")
    return dropped


def _drop(schema: type, node: DictConfig, plain: dict[str, Any], where: str) -> list[str]:
    from omegaconf import DictConfig

    dropped = []
    types = hints(schema)
    for field in dataclasses.fields(schema):
        if field.name not in plain:
            continue
        rule = field.metadata.get("used_when")
        if rule is not None:
            key, value = rule
            if plain[field.name] is not None and plain.get(key) != value:
                node[field.name] = None
                dropped.append(join_key(where, field.name))
            continue
        inner = optional_type(types[field.name])
        child = node._get_node(field.name)
        if (dataclasses.is_dataclass(inner) and isinstance(child, DictConfig)
                and isinstance(plain[field.name], dict)):
            dropped += _drop(inner, child, plain[field.name], join_key(where, field.name))
    return dropped
