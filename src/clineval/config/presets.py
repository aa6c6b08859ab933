"""Model presets: a grid lists many models as ``models.<name>: {preset: <conf/model file>}``.

Hydra composes one defaults-list entry per model slowly (seconds per hundred models), so large
grids name a model config of ``conf/model/`` per model instead, and this module expands each
entry after composition: the preset's YAML, with the entry's other keys merged over it (as a
grid's own keys merge over a defaults-list model). A model written either way has the same
config, hence the same identities. Interpolations stay unresolved until the whole config is.

A task's scoring may run a model (a judge, e.g. MedEval's rewriting judges): it names it the same
way anywhere under ``tasks.<task>.scoring`` (``{preset: <conf/model file>, ...overrides}``); the
expanded config keeps ``preset`` as the judge's name (its built files: results/models/<name>/).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clineval.config.locate import available, config_file
from clineval.config.yaml_files import read_yaml
from clineval.errors import ConfigError

if TYPE_CHECKING:
    from omegaconf import DictConfig

PRESET_KEY = "preset"


def _merge(base: Any, over: Any) -> Any:
    """``over`` merged into ``base`` the way OmegaConf merges configs: mappings key by key."""
    if isinstance(base, dict) and isinstance(over, dict):
        merged = dict(base)
        for key, value in over.items():
            merged[key] = _merge(base[key], value) if key in base else value
        return merged
    return over


def _load(conf_dir: Path, name: Any, where: str, cache: dict[str, dict[str, Any]]) -> Any:
    """The preset's YAML (read once per preset); the error lists the model configs."""
    if isinstance(name, str) and name in cache:
        return cache[name]
    known = available(conf_dir, "model")
    if not isinstance(name, str) or name not in known:
        raise ConfigError(
            f"{where}.{PRESET_KEY}={name!r} is not a model config; "
            f"presets in {conf_dir / 'model'}: {', '.join(known) or '(none)'}"
        )
    path = config_file(conf_dir, f"model/{name}.yaml")
    content = read_yaml(path) or {}
    if not isinstance(content, dict) or "defaults" in content:
        raise ConfigError(
            f"{path}: a preset must be a plain mapping without a defaults list; "
            f"add this model with a defaults-list entry (- /model@models.NAME: {name})"
        )
    cache[name] = content
    return content


def _expand_judges(node: Any, conf_dir: Path, where: str,
                   cache: dict[str, dict[str, Any]]) -> Any:
    """``node`` with every ``{preset: ...}`` mapping expanded (the name kept under ``preset``)."""
    if isinstance(node, dict):
        if PRESET_KEY in node:
            overrides = {k: v for k, v in node.items() if k != PRESET_KEY}
            return {**_merge(_load(conf_dir, node[PRESET_KEY], where, cache), overrides),
                    PRESET_KEY: node[PRESET_KEY]}
        return {k: _expand_judges(v, conf_dir, f"{where}.{k}", cache) for k, v in node.items()}
    return node


def expand_judge_presets(cfg: DictConfig, conf_dir: Path) -> DictConfig:
    """Expand the model presets that tasks' scoring settings name (judges), in place."""
    from omegaconf import DictConfig, OmegaConf, open_dict  # with Hydra, when composing

    tasks = cfg.get("tasks")
    if not isinstance(tasks, DictConfig):
        return cfg
    cache: dict[str, dict[str, Any]] = {}
    for name in list(tasks):
        scoring = tasks[name].get("scoring") if isinstance(tasks[name], DictConfig) else None
        if not isinstance(scoring, DictConfig):
            continue
        raw = OmegaConf.to_container(scoring, resolve=False)
        expanded = _expand_judges(raw, conf_dir, f"tasks.{name}.scoring", cache)
        if expanded != raw:
            with open_dict(cfg):
                tasks[name].scoring = expanded
    return cfg


def scoring_judges(scoring: Any) -> dict[str, dict[str, Any]]:
    """The expanded judge models under a task's (resolved) ``scoring``, by preset name."""
    found: dict[str, dict[str, Any]] = {}
    if isinstance(scoring, Mapping):
        if PRESET_KEY in scoring and "backend" in scoring:
            found[str(scoring[PRESET_KEY])] = {k: v for k, v in scoring.items()
                                               if k != PRESET_KEY}
        else:
            for value in scoring.values():
                found |= scoring_judges(value)
    return found


def expand_model_presets(cfg: DictConfig, conf_dir: Path) -> DictConfig:
    """Replace every ``models.<name>`` entry that has a ``preset`` key by the preset's config.

    The entry's other keys override the preset's. Entries without ``preset`` are left alone;
    the config is returned unchanged when there is none.
    """
    from omegaconf import DictConfig, OmegaConf, open_dict  # with Hydra, when composing

    models = cfg.get("models")
    if not isinstance(models, DictConfig):
        return cfg
    raw: dict[str, Any] = OmegaConf.to_container(models, resolve=False)  # type: ignore[assignment]
    if not any(isinstance(e, Mapping) and PRESET_KEY in e for e in raw.values()):
        return cfg
    cache: dict[str, dict[str, Any]] = {}
    expanded: dict[str, Any] = {}
    for name, entry in raw.items():
        if isinstance(entry, Mapping) and PRESET_KEY in entry:
            where = f"models.{name}"
            overrides = {k: v for k, v in entry.items() if k != PRESET_KEY}
            expanded[name] = _merge(_load(conf_dir, entry[PRESET_KEY], where, cache), overrides)
        else:
            expanded[name] = entry
    with open_dict(cfg):
        cfg.models = expanded
    return cfg
