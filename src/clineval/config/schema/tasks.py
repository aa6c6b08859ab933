"""The schema of a task config (``conf/task/*.yaml``, ``tasks.<name>``): the keys every task
has, declared here, with the keys of its benchmark (``benchmarks/<name>/settings.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, make_dataclass
from functools import cache
from typing import Any

from clineval.benchmarks import get_settings, names
from clineval.benchmarks.base.settings import MISSING, Exemplars, setting
from clineval.benchmarks.base.sources import RESTRICTED, SYNTHETIC, TIERS
from clineval.config.schema.models import Resources, Truncation

#: The data-access tiers a task may declare (``access``; null: its files' own): ``public``,
#: anyone's (MedCalc-Bench, MeQSum, LongHealth, Open-i); ``credentialed``, only for those under
#: its data use agreement (PhysioNet's for MIMIC, MedNLI, Problem Summary); ``unreleased``, a
#: benchmark's data its authors have not released, in the documented format the user fills
#: (MedDisK's knowledge base, MedEval's VA data); ``private``, the user's own unreleased data.
#: Each benchmark declares the least tier of its official files (``source_tiers``); ``access``
#: may add a tier to it, never declare restricted files public. The demo's files are the
#: project's synthetic data (``SYNTHETIC``), anyone's whatever the task declares. Every tier
#: but ``public`` (``RESTRICTED``) keeps a remote model away from the task's cells and its
#: artifacts off DVC remotes unless the config allows it (:mod:`clineval.workflow.plan.access`).
ACCESS = TIERS
__all__ = ["ACCESS", "RESTRICTED", "SYNTHETIC", "Task", "task_schema"]


@dataclass
class Budget:
    """``max_tokens`` of a task: the tokens an answer may take, per answer style
    (config/budget.py)."""

    direct: int | None = setting(None, ge=1)
    reasoning: int | None = setting(None, ge=1)


@dataclass
class Task:
    """The keys of every task; ``data``, ``exemplars`` and ``scoring`` are its benchmark's."""

    benchmark: str = setting(MISSING, choices=names, noun="benchmarks")
    display_name: str = MISSING
    version: str = MISSING
    modes: list[str] = MISSING
    templates: Any = None  # prompt wording: a file under conf/, or the mapping itself
    access: str | None = setting(None, choices=ACCESS, noun="data-access tiers")
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
    if benchmark not in names():
        return Task
    declared = get_settings(benchmark).TASK
    return _combined(declared if isinstance(declared, type) else declared(task))
