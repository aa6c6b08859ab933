"""Benchmark packages, looked up by the name a task config gives in ``benchmark``.

A benchmark is a package with a ``benchmark`` module (its ``BENCHMARK``), a ``settings`` module
(its typed settings) and, in its ``__init__``, ``TITLE`` (its name in the report and in
messages); a ``commands`` module, if any, declares its tools (``clineval <name> <tool>``,
:mod:`.base.commands`); a ``conf`` folder beside its modules, if any, holds its task, table and
figure configs (:func:`conf_folder`). The packages of this folder are built in; an installed
distribution or an include folder adds others (:mod:`.registry`, docs/extending.md). A package is
imported only when it is used.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from clineval.benchmarks.registry import add_include, module, source, sources
from clineval.errors import ConfigError

if TYPE_CHECKING:
    from clineval.benchmarks.base import Benchmark
    from clineval.benchmarks.base.commands import Command

__all__ = ["add_include", "conf_folder", "conf_folders", "get_benchmark", "get_commands",
           "get_settings", "names", "outside_folders", "title", "tools"]


def names() -> tuple[str, ...]:
    """Every benchmark's name, sorted: built in, installed and included."""
    return tuple(sources())


def tools() -> tuple[str, ...]:
    """The benchmarks with tools of their own (a ``commands`` module), sorted."""
    return tuple(name for name, s in sources().items()
                 if (folder := s.package_folder()) and (folder / "commands.py").is_file())


def __getattr__(attr: str) -> tuple[str, ...]:
    """``BENCHMARKS`` and ``TOOLS``: :func:`names` and :func:`tools` when read."""
    if attr == "BENCHMARKS":
        return names()
    if attr == "TOOLS":
        return tools()
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


def get_settings(name: str) -> ModuleType:
    """The benchmark's declared settings: its package's ``settings`` module, with ``TASK`` (the
    schema of its tasks' own keys, or a function of a task picking one) and ``TABLES`` (each
    table layout it implements -> the schema of the layout's keys); docs/sdk.md."""
    return importlib.import_module(f"{module(name)}.settings")


def get_benchmark(name: str) -> Benchmark:
    """Import a benchmark package lazily (its dependencies load only when it is used)."""
    bench = importlib.import_module(f"{module(name)}.benchmark").BENCHMARK
    if bench.name != name:
        raise ConfigError(f"benchmark {name!r} ({source(name).origin}): its BENCHMARK.name is "
                          f"{bench.name!r}; the two must agree")
    return bench


def get_commands(name: str) -> dict[str, Command]:
    """The benchmark's tools: its package's ``commands.COMMANDS`` (tool name -> Command)."""
    return importlib.import_module(f"{module(name)}.commands").COMMANDS


def title(name: str) -> str:
    """The benchmark's name for people (its package's ``TITLE``; the package alone is read)."""
    return str(importlib.import_module(module(name)).TITLE)


def conf_folder(name: str) -> Path | None:
    """The ``conf`` folder the benchmark's package carries (None: none; the built-in packages'
    configs are in the project's ``conf/``)."""
    folder = source(name).package_folder()
    return folder / "conf" if folder is not None and (folder / "conf").is_dir() else None


def conf_folders() -> list[Path]:
    """Every package's ``conf`` folder, by benchmark name: Hydra's search path after the
    project's config folder."""
    return [conf for name in sources() if (conf := conf_folder(name)) is not None]


def outside_folders() -> list[Path]:
    """The folders of the packages that are not built in (their code and configs)."""
    return [folder for s in sources().values()
            if not s.built_in and (folder := s.package_folder()) is not None]
