"""Benchmark packages, looked up by the name a task config gives in ``benchmark``.

A benchmark is a package of this folder with a ``benchmark`` module (its ``BENCHMARK``), a
``settings`` module (its typed settings) and, in its ``__init__``, ``TITLE`` (its name in the
report and in messages); a ``commands`` module, if any, declares its tools (``clineval <name>
<tool>``, :mod:`.base.commands`). The registry finds them by their files, so a new benchmark is
its package alone (docs/extending.md).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

from clineval.benchmarks.base import Benchmark
from clineval.benchmarks.base.commands import Command

_HERE = Path(__file__).parent

#: Every benchmark package's name, sorted.
BENCHMARKS = tuple(sorted(p.name for p in _HERE.iterdir()
                          if p.name != "base" and (p / "benchmark.py").is_file()))
#: The benchmarks with tools of their own (a ``commands`` module), sorted.
TOOLS = tuple(name for name in BENCHMARKS if (_HERE / name / "commands.py").is_file())


def _package(name: str) -> str:
    if name not in BENCHMARKS:
        raise KeyError(f"unknown benchmark {name!r}; known: {', '.join(BENCHMARKS)}")
    return f"{__name__}.{name}"


def get_settings(name: str) -> ModuleType:
    """The benchmark's declared settings: its package's ``settings`` module, with ``TASK`` (the
    schema of its tasks' own keys, or a function of a task picking one) and ``TABLES`` (each
    table layout it implements -> the schema of the layout's keys); docs/sdk.md."""
    return importlib.import_module(f"{_package(name)}.settings")


def get_benchmark(name: str) -> Benchmark:
    """Import a benchmark package lazily (its dependencies load only when it is used)."""
    return importlib.import_module(f"{_package(name)}.benchmark").BENCHMARK


def get_commands(name: str) -> dict[str, Command]:
    """The benchmark's tools: its package's ``commands.COMMANDS`` (tool name -> Command)."""
    return importlib.import_module(f"{_package(name)}.commands").COMMANDS


def title(name: str) -> str:
    """The benchmark's name for people (its package's ``TITLE``; the package alone is read)."""
    return str(importlib.import_module(_package(name)).TITLE)
