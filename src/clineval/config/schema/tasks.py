"""The schema of a task config (``conf/task/*.yaml``, ``tasks.<name>``): the keys every task
has, declared here, with the keys of its benchmark (``benchmarks/<name>/settings.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, make_dataclass
from functools import cache
from typing import Any

from clineval.benchmarks import BENCHMARKS, get_settings
from clineval.benchmarks.base.settings import MISSING, Exemplars, setting
from clineval.config.schema.models import Resources, Truncation

#: Who may see a task's data: anyone, or only those under its data use agreement.
ACCESS = ("public", "credentialed")


@dataclass
class Budget:
    """``max_tokens`` of a task: the tokens an answer may take, per answer style
    (config/budget.py)."""

    direct: int | None = setting(None, ge=1)
    reasoning: int | None = setting(None, ge=1)


@dataclass
class Task:
    """The keys of every task; ``data``, ``exemplars`` and ``scoring`` are its benchmark's."""

    benchmark: str = setting(MISSING, choices=BENCHMARKS, noun="benchmarks")
    display_name: str = MISSING
    version: str = MISSING
    modes: list[str] = MISSING
    templates: Any = None  # prompt wording: a file under conf/, or the mapping itself
    access: str | None = setting(None, choices=ACCESS, noun="access levels")
    resources: Resources | None = None  # its scoring jobs on a cluster
    truncation: Truncation | None = None
    max_tokens: Budget | None = None  # the paper's answer budget per style
    data: dict[str, Any] = MISSING
    exemplars: Exemplars | None = None
    scoring: dict[str, Any] | None = None


@cache
def _combined(own: type) -> type:
    return make_dataclass(own.__name__, [], bases=(own, Task))


def task_schema(task: Mapping[str, Any]) -> type:
    """The schema of ``task``: the common keys and those its benchmark declares."""
    benchmark = task.get("benchmark")
    if benchmark not in BENCHMARKS:
        return Task
    declared = get_settings(benchmark).TASK
    return _combined(declared if isinstance(declared, type) else declared(task))
