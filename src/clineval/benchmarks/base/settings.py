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

A benchmark reads its settings through the same schema, never as a plain mapping with its
defaults written again: :func:`read_own` (a task's or a table's own keys) and :func:`read` (any
section) check a section once and give an instance of its dataclass, read-only, each
value of its field's type, each default the schema's.
"""

from __future__ import annotations

import dataclasses
import importlib
import types
import typing
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, make_dataclass
from functools import cache
from typing import Any, TypeVar

from omegaconf import MISSING

from clineval.benchmarks.base.schema import (
    SettingError,
    check_field,
    check_section,
    hints,
    join_key,
    message,
    optional_type,
)
from clineval.errors import ConfigError

__all__ = [
    "MISSING",
    "OFFICIAL",
    "Exemplars",
    "HeldOut",
    "TaskSchema",
    "by_mode_table",
    "read",
    "read_own",
    "setting",
]

T = TypeVar("T")

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


@dataclass
class HeldOut(Exemplars):
    """``exemplars`` held out of the test examples by seeded rank (``StandardBenchmark.derive``):
    ``seed`` picks which."""

    seed: int = 0


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


def read(schema: type[T], section: Mapping[str, Any] | None, where: str) -> T:
    """The typed settings of ``section`` (found at ``where``, a dotted key; null: empty): an
    instance of ``schema`` whose fields cannot be reassigned, each value of its field's type
    (``"3"`` for an ``int`` as 3, a list as a tuple), an absent key as the schema's default,
    and a nested section read the same way (absent or null: its defaults, where it has one for
    every key). ConfigError names the first setting the schema refuses."""
    given = {} if section is None else section
    try:
        check_section(schema, given, where)
    except SettingError as err:
        raise ConfigError(message(err)) from None
    return _build(schema, given, where)


def read_own(schema: TaskSchema, section: Mapping[str, Any], where: str) -> Any:
    """:func:`read` of the keys of ``section`` that ``schema`` declares: a task's own keys
    (``TASK`` of its benchmark's ``settings.py``, or the function of the task that picks it)
    or a table's layout keys; the keys every task or table has are the platform's, checked
    with the plan. A required key ``section`` lacks reads as None: a step's task holds only
    the sections its identity holds (a scoring step's, say, no ``data``)."""
    declared = schema if isinstance(schema, type) else schema(section)
    fields = dataclasses.fields(declared)
    own = {f.name: section[f.name] for f in fields if f.name in section}
    try:
        for f in fields:
            if f.name in own:
                check_field(hints(declared)[f.name], f.metadata, own[f.name],
                            join_key(where, f.name))
    except SettingError as err:
        raise ConfigError(message(err)) from None
    return _build(declared, own, where)


def _build(schema: type[T], section: Mapping[str, Any], where: str) -> T:
    values: dict[str, Any] = {}
    for f in dataclasses.fields(schema):
        tp = hints(schema)[f.name]
        if section.get(f.name) is not None:
            values[f.name] = _typed(tp, section[f.name], join_key(where, f.name))
        elif _defaults_only(tp):
            values[f.name] = _build(optional_type(tp), {}, join_key(where, f.name))
        elif f.name not in section and f.default_factory is not dataclasses.MISSING:
            values[f.name] = _typed(tp, f.default_factory(), join_key(where, f.name))
        elif f.name in section or _required(f):
            values[f.name] = None
    built = schema(**values)
    if not schema.__dataclass_params__.frozen:  # type: ignore[attr-defined]
        built.__class__ = _read_only(schema)
    return built


def _required(f: dataclasses.Field[Any]) -> bool:
    return f.default in (MISSING, dataclasses.MISSING) and f.default_factory is dataclasses.MISSING


def _defaults_only(tp: Any) -> bool:
    """Whether ``tp`` is a section whose every key has a default (null reads as those)."""
    inner = optional_type(tp)
    return dataclasses.is_dataclass(inner) and not any(
        _required(f) for f in dataclasses.fields(inner))


def _typed(tp: Any, value: Any, where: str) -> Any:
    """``value`` (checked against ``tp``) as a value of ``tp``."""
    inner = optional_type(tp)
    origin = typing.get_origin(inner)
    if value is None or inner is Any or origin in (typing.Union, types.UnionType):
        return value
    if dataclasses.is_dataclass(inner):
        return _build(inner, value, where)  # type: ignore[arg-type]
    if origin is list:
        return tuple(_typed(typing.get_args(inner)[0], v, f"{where}[{i}]")
                     for i, v in enumerate(value))
    if origin is dict:
        return {k: _typed(typing.get_args(inner)[1], v, join_key(where, k))
                for k, v in value.items()}
    if inner is bool and isinstance(value, str):
        return value.lower() in ("true", "yes", "on", "1")
    return inner(value) if inner in (int, float, bool, str) else value


@cache
def _read_only(schema: type) -> type:
    """``schema`` whose instances refuse to have a field reassigned or deleted."""

    def refuse(self: Any, name: str, *value: Any) -> None:
        raise dataclasses.FrozenInstanceError(f"settings are read-only: cannot set {name!r}")

    return type(schema.__name__, (schema,), {
        "__setattr__": refuse, "__delattr__": refuse, "__qualname__": schema.__qualname__,
        "__module__": schema.__module__, "__doc__": schema.__doc__})
