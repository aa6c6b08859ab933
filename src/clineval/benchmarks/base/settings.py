"""Typed settings: how a benchmark declares the task and table settings it reads.

A benchmark's ``settings.py`` declares its sections as dataclasses, once: ``TASK`` (the
benchmark's own task keys: ``data``, ``scoring``, ``exemplars``, ... with their types) and
``TABLES`` (each table layout it implements -> the layout's own keys). The plan checks every
composed config against them before any job runs (:mod:`clineval.config.schema`): a key the
schema lacks, a value of another type, a number out of its range and a value outside its
choices stop the run with the key, where it came from and what is valid.

Field types are those of OmegaConf's structured configs: ``int``, ``float``, ``bool``, ``str``,
``Optional``, ``list``, ``dict``, a nested dataclass, ``Any`` (not checked). A field without a
default (:data:`MISSING`) is required. :func:`setting` adds choices and ranges; choices are
the names the code implements (a registry or a mapping), never a copied list; ``used_when``
says when a setting is read at all (an official file's path: only with ``source: official``),
and where it is not, the composed config holds null instead (:mod:`clineval.config.unused`), so
that no identity depends on it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, make_dataclass
from typing import Any

from omegaconf import MISSING

__all__ = ["MISSING", "OFFICIAL", "Exemplars", "TaskSchema", "by_mode_table", "setting"]

#: Choices as given: the names themselves, or a function returning them (read when checked).
Choices = Collection[Any] | Callable[[], Collection[Any]]
#: A task's schema: one dataclass, or a function of the task's settings that picks one (the
#: keys of ``data`` that depend on ``data.dataset``, say).
TaskSchema = type | Callable[[Mapping[str, Any]], type]
#: ``used_when`` of a setting that names a user's official file: read only when the section's
#: ``source`` is ``official`` (the demo writes and reads its own files).
OFFICIAL = ("source", "official")


def setting(default: Any = MISSING, *, factory: Callable[[], Any] | None = None,
            choices: Choices | None = None, noun: str | None = None,
            normalize: Callable[[Any], Any] | None = None,
            ge: float | None = None, gt: float | None = None,
            le: float | None = None, lt: float | None = None,
            used_when: tuple[str, Any] | None = None) -> Any:
    """A dataclass field with the checks its value must pass beyond its type.

    ``choices``: the valid values (of each item, for a list or a mapping's values); ``noun``:
    what they are, for messages (``extraction settings``); ``normalize``: how the code reads a
    value before comparing it with the choices (``"v1.2"`` as ``"1.2"``; a ValueError: not
    valid); ``ge``/``gt``/``le``/``lt``: bounds of a number (of each item, for a list);
    ``used_when``: ``(key, value)``, the setting is read only when the section's ``key`` has
    that value (:data:`OFFICIAL`), else the plan sees null (its default must be null).
    """
    if used_when is not None and default is not None:
        raise ValueError(f"a setting used only when {used_when} must default to null")
    metadata = {key: value for key, value in (("choices", choices), ("noun", noun),
                                              ("normalize", normalize), ("ge", ge),
                                              ("gt", gt), ("le", le), ("lt", lt),
                                              ("used_when", used_when))
                if value is not None}
    if factory is not None:
        return field(default_factory=factory, metadata=metadata)
    return field(default=default, metadata=metadata)


@dataclass
class Exemplars:
    """``exemplars``: how many the exemplar modes show (null: the paper's number)."""

    count: int | None = setting(None, ge=0)


def by_mode_table(name: str, benchmark: str, default: str = "accuracy") -> type:
    """The keys of a by-mode table layout ``name`` (the default table,
    :mod:`clineval.tables.by_mode`): ``metrics``, any headline metric the module ``benchmark``'s
    ``BENCHMARK`` declares (imported when checked; default ``[default]``), ``decimals``,
    ``percent`` (values as %) and ``mode_labels``."""
    from clineval.benchmarks.base.headline import choices

    def declared() -> list[str]:
        return choices(importlib.import_module(benchmark).BENCHMARK.metrics)

    schema = make_dataclass("ByMode", [
        ("metrics", list[str], setting(factory=lambda: [default], choices=declared,
                                       noun="metrics")),
        ("decimals", int, setting(2, ge=0)),
        ("percent", bool, True),
        ("mode_labels", dict[str, str] | None, None),
    ])
    schema.__doc__ = f"``{name}``: the headline metrics by model and prompting mode."
    return schema
