"""Check a composed config before any job runs; every message lists what exists."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from clineval.benchmarks import BENCHMARKS
from clineval.config.compose import ConfigError, available
from clineval.config.prompt_kind import KINDS as PROMPT_KINDS
from clineval.config.slices import validate_slices
from clineval.figures import spec as figure_spec
from clineval.inference.openai_backend import CLIENT_DEFAULTS
from clineval.inference.vllm_backend import ENGINE_DEFAULTS as VLLM_ENGINE_DEFAULTS
from clineval.tables import statistics

BACKENDS = ("baseline", "transformers", "vllm", "openai")
#: Backends that send prompts to a server: they must say whether credentialed data may go there.
REMOTE_BACKENDS = ("openai",)
MODEL_KEYS = {
    "id",
    "revision",
    "backend",
    "display_name",
    "size",
    "smoke",
    "path",
    "build",
    "context",
    "sampling",
    "engine",
    "api",
    "client",
    "baseline",
    "resources",
    "access",
    "prompt_kind",
}
MODEL_REQUIRED = ("id", "revision", "backend", "display_name")
SAMPLING_KEYS = {
    "temperature",
    "top_p",
    "top_k",
    "max_tokens",
    "seed",
    "repetition_penalty",
    "stop",
    "json_schema",
}
#: Sampling keys a backend does not implement (refused rather than silently ignored).
SAMPLING_UNSUPPORTED = {"transformers": {"stop", "json_schema"}}
CONTEXT_KEYS = {"max_model_len", "truncation", "chars_per_token"}
ENGINE_KEYS = {
    "transformers": {"device", "dtype", "batch_size"},
    "vllm": set(VLLM_ENGINE_DEFAULTS),
}
API_KEYS = {"base_url", "model", "api_key_env"}
ACCESS_KEYS = {"allow_credentialed_data"}
TASK_REQUIRED = ("benchmark", "display_name", "version", "modes", "data")
MODE_REQUIRED = ("description", "reasoning", "exemplars")
TABLE_REQUIRED = ("title", "caption", "layout", "modes")


def _names(kind: str, names: Iterable[str]) -> str:
    names = sorted(names)
    return f"{kind}: {', '.join(names) if names else '(none)'}"


def _unknown(label: str, wanted: Iterable[str], known: Iterable[str], hint: str) -> None:
    missing = sorted(set(wanted) - set(known))
    if missing:
        raise ConfigError(f"unknown {label} {', '.join(map(repr, missing))}; {hint}")


def _require(where: str, section: Mapping[str, Any], keys: Iterable[str]) -> None:
    for key in keys:
        if section.get(key) is None:
            raise ConfigError(f"{where}: required key {key!r} is missing or null")


def _section(where: str, model: Mapping[str, Any], key: str, allowed: set[str]) -> dict[str, Any]:
    section = model.get(key) or {}
    if not isinstance(section, Mapping):
        raise ConfigError(f"{where}.{key} must be a mapping, got {section!r}")
    _unknown(f"key(s) in {where}.{key}", section, allowed, _names("allowed", allowed))
    return dict(section)


def _forbid(where: str, model: Mapping[str, Any], backend: str, keys: Iterable[str]) -> None:
    given = sorted(k for k in keys if model.get(k) is not None)
    if given:
        raise ConfigError(f"{where}: key(s) {', '.join(given)} do not apply to a {backend} model")


def validate_model(name: str, model: Mapping[str, Any]) -> None:
    where = f"models.{name}"
    _unknown(f"key(s) in {where}", model, MODEL_KEYS, _names("allowed keys", MODEL_KEYS))
    _require(where, model, MODEL_REQUIRED)
    backend = model["backend"]
    if backend not in BACKENDS:
        raise ConfigError(
            f"{where}.backend={backend!r} is not available; {_names('backends', BACKENDS)}"
        )
    access = _section(where, model, "access", ACCESS_KEYS)
    if model.get("prompt_kind", "auto") not in PROMPT_KINDS:  # config/prompt_kind.py
        raise ConfigError(f"{where}.prompt_kind={model['prompt_kind']!r}; "
                          f"{_names('kinds', PROMPT_KINDS)}")
    if backend == "baseline":
        _require(where, model, ("baseline",))
        return
    context = _section(where, model, "context", CONTEXT_KEYS)
    sampling = _section(where, model, "sampling", SAMPLING_KEYS)
    _require(f"{where}.sampling", sampling, ("temperature", "max_tokens", "seed"))
    _forbid(f"{where}.sampling", sampling, backend, SAMPLING_UNSUPPORTED.get(backend, ()))
    if backend in REMOTE_BACKENDS:
        _forbid(where, model, backend, ("path", "build", "engine"))
        if model.get("prompt_kind") == "completion":
            raise ConfigError(f"{where}.prompt_kind=completion: the {backend} backend sends "
                              "chat requests only")
        _require(f"{where}.api", _section(where, model, "api", API_KEYS), ("base_url", "model"))
        _section(where, model, "client", set(CLIENT_DEFAULTS))
        if not isinstance(access.get("allow_credentialed_data"), bool):
            raise ConfigError(
                f"{where}.access.allow_credentialed_data must be true or false: a {backend} "
                "model sends prompts to a server, so its config must say whether credentialed "
                "data (MIMIC, ...) may go there"
            )
        return
    _forbid(where, model, backend, ("api", "client"))
    if model.get("path") is None and model.get("build") is None:
        raise ConfigError(f"{where}: a {backend} model needs `path` (local weights) or `build`")
    _section(where, model, "engine", ENGINE_KEYS[backend])
    if backend == "vllm":
        _require(f"{where}.context", context, ("max_model_len",))


def _selected(cfg: Mapping[str, Any], group: str) -> list[str]:
    chosen = (cfg["grid"].get("select") or {}).get(group)
    return [n for n in cfg[group] if chosen is None or n in chosen]


def check_credentialed(cfg: Mapping[str, Any]) -> None:
    """Stop when a task on credentialed data meets a remote model not allowed to receive it."""
    tasks = [t for t in _selected(cfg, "tasks") if cfg["tasks"][t].get("access") == "credentialed"]
    for name in _selected(cfg, "models"):
        model = cfg["models"][name]
        allowed = (model.get("access") or {}).get("allow_credentialed_data") is True
        if tasks and model["backend"] in REMOTE_BACKENDS and not allowed:
            raise ConfigError(
                f"models.{name} ({model['backend']} backend) would receive credentialed data "
                f"from task(s) {', '.join(sorted(tasks))}, and its "
                "access.allow_credentialed_data is not true. Data use agreements such as "
                "MIMIC's forbid sharing with third parties: drop the model or the task from "
                "the grid (grid.select), or set the flag only for a server you are allowed to use"
            )


def table_tasks(spec: Mapping[str, Any]) -> list[str]:
    """The tasks a table spec shows: ``tasks`` (a list) or the single ``task``."""
    return list(spec["tasks"]) if "tasks" in spec else [spec["task"]]


def _check_leaderboard(where: str, table: Mapping[str, Any], shown: list[str]) -> None:
    columns = table.get("columns")
    if not columns:
        raise ConfigError(f"{where}.columns: a leaderboard needs columns "
                          "({label, tasks, mode, metric}, one per benchmark)")
    for i, column in enumerate(columns):
        _require(f"{where}.columns[{i}]", column, ("label", "tasks", "mode", "metric"))
        _unknown(f"task(s) in {where}.columns[{i}].tasks", column["tasks"], shown,
                 _names(f"tasks of {where}", shown))
        if column["mode"] not in table["modes"]:
            raise ConfigError(f"{where}.columns[{i}].mode={column['mode']!r} is not one of "
                              f"{where}.modes {list(table['modes'])}")


def validate(cfg: Mapping[str, Any], conf_dir: Path) -> None:
    """Raise ConfigError on the first problem; the message says what would be valid."""
    for key in ("grid", "models", "tasks", "modes"):
        if not cfg.get(key):
            raise ConfigError(
                f"the grid defines no {key!r}; grids: {', '.join(available(conf_dir, 'grid'))}"
            )
    models, tasks, modes = cfg["models"], cfg["tasks"], cfg["modes"]
    tables = cfg.get("tables") or {}
    for name, model in models.items():
        validate_model(name, model)
    check_credentialed(cfg)
    for name, mode in modes.items():
        _require(f"modes.{name}", mode, MODE_REQUIRED)
    for name, task in tasks.items():
        _require(f"tasks.{name}", task, TASK_REQUIRED)
        if task["benchmark"] not in BENCHMARKS:
            raise ConfigError(
                f"tasks.{name}.benchmark={task['benchmark']!r} is unknown; "
                + _names("benchmarks", BENCHMARKS)
            )
        _unknown(
            f"mode(s) in tasks.{name}.modes",
            task["modes"],
            available(conf_dir, "mode"),
            _names("modes in conf/mode", available(conf_dir, "mode")),
        )
    select = cfg["grid"].get("select") or {}
    figures = cfg.get("figures") or {}
    validate_slices(cfg)
    unknown_select = sorted(set(select) - {"models", "tasks", "modes", "tables", "figures"})
    if unknown_select:
        raise ConfigError(f"unknown key(s) {', '.join(unknown_select)} in grid.select; "
                          "allowed: models, tasks, modes, tables, figures")
    for group, defined in (("tables", tables), ("figures", figures)):
        if select.get(group) is not None:
            _unknown(f"{group[:-1]}(s) in grid.select.{group}", select[group], list(defined),
                     _names(f"{group} in this grid", list(defined)))
    for group, defined in (("models", models), ("tasks", tasks), ("modes", modes)):
        chosen = select.get(group)
        if chosen is not None:
            _unknown(
                f"{group[:-1]}(s) in grid.select.{group}",
                chosen,
                defined,
                f"{_names(f'{group} in this grid', defined)}; "
                f"{_names(f'defined in conf/{group[:-1]}', available(conf_dir, group[:-1]))}",
            )
    for name, table in tables.items():
        where = f"tables.{name}"
        _require(where, table, TABLE_REQUIRED)
        if ("task" in table) == ("tasks" in table):
            raise ConfigError(f"{where} needs exactly one of 'task' (a name) or 'tasks' (a list)")
        shown = table_tasks(table)
        _unknown(f"task(s) in {where}", shown, tasks, _names("tasks in this grid", tasks))
        if table["layout"] == "leaderboard":
            _check_leaderboard(where, table, shown)
        elif len({tasks[t]["benchmark"] for t in shown}) != 1:
            raise ConfigError(f"{where}: all of its tasks must belong to one benchmark (only a "
                              "table with layout: leaderboard spans benchmarks)")
        _unknown(
            f"mode(s) in {where}.modes", table["modes"], modes, _names("modes in this grid", modes)
        )
        if table.get("models") is not None:
            _unknown(
                f"model(s) in {where}.models", table["models"], models, _names("models", models)
            )
        try:
            statistics.settings(table, list(models), list(models))
        except ValueError as err:
            raise ConfigError(f"{where}: {err}") from err
    for name, figure in figures.items():
        try:
            figure_spec.check(f"figures.{name}", figure, list(tables), list(models), list(modes))
        except ValueError as err:
            raise ConfigError(str(err)) from err
