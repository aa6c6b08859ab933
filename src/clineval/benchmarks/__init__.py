"""Benchmark packages, looked up by the name a task config gives in ``benchmark``."""

from __future__ import annotations

import importlib
from types import ModuleType

from clineval.benchmarks.base import Benchmark

_MODULES = {
    "clibench": "clineval.benchmarks.clibench.benchmark",
    "clue": "clineval.benchmarks.clue.benchmark",
    "medeval": "clineval.benchmarks.medeval.benchmark",
    "medcalc": "clineval.benchmarks.medcalc.benchmark",
    "meddisk": "clineval.benchmarks.meddisk.benchmark",
}

BENCHMARKS = tuple(sorted(_MODULES))


def get_settings(name: str) -> ModuleType:
    """The benchmark's declared settings: its package's ``settings`` module, with ``TASK`` (the
    schema of its tasks' own keys, or a function of a task picking one) and ``TABLES`` (each
    table layout it implements -> the schema of the layout's keys); docs/sdk.md."""
    if name not in _MODULES:
        raise KeyError(f"unknown benchmark {name!r}; known: {', '.join(BENCHMARKS)}")
    return importlib.import_module(_MODULES[name].rpartition(".")[0] + ".settings")


def get_benchmark(name: str) -> Benchmark:
    """Import a benchmark package lazily (its dependencies load only when it is used)."""
    if name not in _MODULES:
        raise KeyError(f"unknown benchmark {name!r}; known: {', '.join(BENCHMARKS)}")
    return importlib.import_module(_MODULES[name]).BENCHMARK
