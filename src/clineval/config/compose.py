"""Compose the Hydra config for a grid and turn Hydra's errors into readable ones; a
leaderboard gets the columns of the grid's benchmarks (:mod:`clineval.config.leaderboard`)."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from clineval.config.leaderboard import complete_leaderboards
from clineval.config.locate import available, search_path
from clineval.config.presets import expand_judge_presets, expand_model_presets
from clineval.config.schema import SettingError, message
from clineval.config.schema.origin import Origins
from clineval.config.unused import drop_unused
from clineval.config.yaml_files import yaml_error
from clineval.errors import ConfigError

if TYPE_CHECKING:
    from omegaconf import DictConfig

GROUPS = ("grid", "model", "task", "mode", "table")


def parse_overrides(raw: str | Sequence[str] | None) -> list[str]:
    """Accept overrides as a list or one shell-quoted string (``"grid=x a.b=1"``)."""
    if raw is None:
        return []
    if isinstance(raw, str):
        return shlex.split(raw)
    return [str(item) for item in raw]


def _catalogue(conf_dir: Path) -> str:
    return "\n".join(f"  {g}: {', '.join(available(conf_dir, g)) or '(none)'}" for g in GROUPS)


def compose_config(conf_dir: Path, overrides: Sequence[str] = ()) -> DictConfig:
    """Compose ``conf/config.yaml`` with Hydra overrides; errors list what exists. Task
    settings the task does not read are null (:mod:`clineval.config.unused`)."""
    # imported here: the workflow's start and its steps read a composed plan without Hydra
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.errors import HydraException
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException
    from yaml import YAMLError

    conf_dir = conf_dir.resolve()
    # the configs benchmark packages carry (conf/task, conf/table, ...), after the project's
    extra = [f"file://{folder.resolve()}" for folder in search_path(conf_dir)[1:]]
    searched = [f"hydra.searchpath=[{','.join(extra)}]"] if extra else []
    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(config_dir=str(conf_dir), version_base="1.3"):
            cfg = compose(config_name="config", overrides=[*overrides, *searched])
    except YAMLError as err:  # a config file that does not parse: its file and line
        raise yaml_error(err) from None
    except (HydraException, OmegaConfBaseException) as err:
        raise ConfigError(
            f"cannot compose the config from {conf_dir} with overrides {list(overrides)}:\n"
            f"{err}\nAvailable options:\n{_catalogue(conf_dir)}"
        ) from err
    finally:
        GlobalHydra.instance().clear()
    cfg = expand_judge_presets(expand_model_presets(cfg, conf_dir), conf_dir)
    drop_unused(cfg)  # what a task does not read (a demo task's official paths) is null
    try:
        OmegaConf.resolve(cfg)
    except OmegaConfBaseException as err:
        raise ConfigError(f"cannot resolve interpolations in the config: {err}") from err
    _complete_leaderboards(cfg, conf_dir, overrides)
    return cfg


def _complete_leaderboards(cfg: DictConfig, conf_dir: Path, overrides: Sequence[str]) -> None:
    """Each leaderboard table with the columns of the grid's benchmarks
    (:mod:`clineval.config.leaderboard`); a setting it refuses is named with its origin."""
    from omegaconf import DictConfig, OmegaConf

    tables, tasks = cfg.get("tables"), cfg.get("tasks")
    if not isinstance(tables, DictConfig) or not isinstance(tasks, DictConfig):
        return
    try:
        completed = complete_leaderboards(
            OmegaConf.to_container(tables), OmegaConf.to_container(tasks))  # type: ignore[arg-type]
    except SettingError as err:
        raise ConfigError(message(err, Origins(conf_dir, overrides))) from None
    for name, spec in completed.items():
        tables[name] = spec
