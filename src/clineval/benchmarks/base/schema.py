"""Check one config section against its dataclass schema (the plan's check of every section,
:mod:`clineval.config.schema`, and a benchmark's reading of its own: :func:`.settings.read`).

A schema is a structured config as OmegaConf declares one (a dataclass: typed fields, a
``MISSING`` default for a required key); its fields' metadata adds choices and ranges
(:func:`~clineval.benchmarks.base.settings.setting`). The section is walked against it once,
with OmegaConf's rules for what a value of each type may be (an ``int`` field takes ``3`` or
``"3"``, never ``3.0`` or ``true``; a ``str`` field any scalar), and never changed: a schema's
defaults and conversions never reach the composed config, nor the identities computed from it.
Merging each section into ``OmegaConf.structured(schema)`` finds the same problems, but took
1.7 s per demo plan (the walk: 23 ms) and names no key for a problem inside a list item.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from omegaconf import MISSING

#: A problem without a value to show (an unknown or a missing key).
NO_VALUE = object()
_TRUTH = {"true", "false", "yes", "no", "on", "off", "1", "0"}
_SYMBOLS = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<"}


@dataclass(frozen=True)
class SettingError(Exception):
    """A setting that its schema refuses: ``key`` (a full dotted path), its ``value``, what is
    wrong, and what would be valid."""

    key: str
    problem: str
    valid: str
    value: Any = NO_VALUE


def message(err: SettingError, origin: str | None = None) -> str:
    """``<key>[=<value>]: <problem> (from <origin>); <what is valid>``."""
    head = err.key if err.value is NO_VALUE else f"{err.key}={err.value!r}"
    return (f"{head}: {err.problem}" + (f" (from {origin})" if origin else "")
            + (f"; {err.valid}" if err.valid else ""))


def join_key(where: str, key: Any) -> str:
    """``key`` below the section at ``where`` (``""``: the root)."""
    return f"{where}.{key}" if where else str(key)


def _join(values: typing.Iterable[Any]) -> str:
    return ", ".join(sorted(map(str, values))) or "(none)"


def valid_keys(schema: type) -> str:
    return f"valid keys: {_join(f.name for f in dataclasses.fields(schema))}"


def _optional(tp: Any) -> tuple[Any, bool]:
    """``tp`` without ``None``, and whether ``None`` was allowed."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        inner = args[0] if len(args) == 1 else typing.Union[tuple(args)]  # noqa: UP007
        return inner, len(args) < len(typing.get_args(tp))
    return tp, False


def optional_type(tp: Any) -> Any:
    """``tp`` without ``None`` (``Demo | None``: ``Demo``)."""
    return _optional(tp)[0]


@cache
def hints(schema: type) -> dict[str, Any]:
    return typing.get_type_hints(schema)


def describe(tp: Any) -> str:
    """A type as a message names it (``an integer or null``)."""
    inner, optional = _optional(tp)
    origin = typing.get_origin(inner)
    if dataclasses.is_dataclass(inner):
        text = f"a mapping ({valid_keys(inner)})"
    elif origin is list:
        text = f"a list of {_plural(typing.get_args(inner)[0])}"
    elif origin is dict:
        text = f"a mapping to {_plural(typing.get_args(inner)[1])}"
    elif origin in (typing.Union, types.UnionType):
        text = " or ".join(describe(a) for a in typing.get_args(inner))
    else:
        text = {int: "an integer", float: "a number", bool: "true or false",
                str: "a string"}.get(inner, "any value")
    return f"{text} or null" if optional else text


def _plural(tp: Any) -> str:
    return re.sub(r"^an? ", "", describe(tp)).replace("integer", "integers").replace(
        "number", "numbers").replace("string", "strings")


def _scalar_fits(tp: Any, value: Any) -> bool:
    """Whether OmegaConf would take ``value`` for a field of scalar type ``tp``."""
    if isinstance(value, Mapping | list | tuple):
        return tp is Any
    if tp is bool:
        return isinstance(value, bool | int) or (isinstance(value, str)
                                                 and value.lower() in _TRUTH)
    if tp is int or tp is float:
        if isinstance(value, bool):
            return False
        if isinstance(value, int):
            return True
        if isinstance(value, float):
            return tp is float
        try:
            (int if tp is int else float)(value)
        except (TypeError, ValueError):
            return False
        return isinstance(value, str)
    return tp in (str, Any)


def _fits(tp: Any, value: Any) -> bool:
    """Whether ``value`` has the shape of ``tp`` (nested sections are checked on their own)."""
    inner, optional = _optional(tp)
    if value is None:
        return optional or inner is Any
    origin = typing.get_origin(inner)
    if dataclasses.is_dataclass(inner) or origin is dict:
        return isinstance(value, Mapping)
    if origin is list:
        return isinstance(value, list | tuple)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(a, value) for a in typing.get_args(inner))
    return _scalar_fits(inner, value)


def _check_value(meta: Mapping[str, Any], value: Any, key: str, ranges: bool) -> None:
    """``value`` (a scalar) among the field's choices and, with ``ranges``, in its range."""
    if value is None or isinstance(value, Mapping | list | tuple):
        return
    if "choices" in meta:
        given = meta["choices"]
        choices = list(given() if callable(given) else given)
        try:
            read = meta["normalize"](value) if "normalize" in meta else value
        except (TypeError, ValueError):
            read = None
        if read not in choices:
            raise SettingError(key, "unknown value",
                               f"valid {meta.get('noun', 'values')}: {_join(choices)}", value)
    bounds = [(name, meta[name]) for name in _SYMBOLS if ranges and name in meta]
    if bounds and not _in_range(value, bounds):
        raise SettingError(key, "out of range", "valid values: " + " and ".join(
            f"{_SYMBOLS[n]} {b}" for n, b in bounds), value)


def _in_range(value: Any, bounds: list[tuple[str, float]]) -> bool:
    """Whether a number (or a string OmegaConf reads as one) lies within ``bounds``."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return True  # not a number: its type is checked apart
    return all({"ge": number >= b, "gt": number > b, "le": number <= b, "lt": number < b}[n]
               for n, b in bounds)


def check_section(schema: type, section: Any, where: str) -> None:
    """Raise :class:`SettingError` for the first problem of ``section`` (found at ``where``):
    a value outside its choices (first: a misspelled kind, a layout say, picks no schema of
    its own, whose keys would all be unknown), an unknown key, a value of another type, a
    missing required key, a number out of range; nested sections in the same order."""
    if not isinstance(section, Mapping):
        raise SettingError(where, "wrong type", f"expected {describe(schema)}", section)
    fields = dataclasses.fields(schema)
    for f in fields:
        inner = _optional(hints(schema)[f.name])[0]
        scalar = typing.get_origin(inner) not in (list, dict) and not dataclasses.is_dataclass(
            inner)
        if f.name in section and scalar:
            _check_value(f.metadata, section[f.name], join_key(where, f.name), ranges=False)
    known = {f.name for f in fields}
    for name in section:
        if name not in known:
            raise SettingError(join_key(where, name), "unknown key", valid_keys(schema))
    for f in fields:
        key = join_key(where, f.name)
        if f.name not in section:
            if f.default == MISSING and f.default_factory is dataclasses.MISSING:
                raise SettingError(key, "required key is missing",
                                   f"expected {describe(hints(schema)[f.name])}")
            continue
        check_field(hints(schema)[f.name], f.metadata, section[f.name], key)


def check_field(tp: Any, meta: Mapping[str, Any], value: Any, key: str) -> None:
    """A field's value: its type, then its items (a list's, a mapping's values) or its
    section, and its choices and range (of each item)."""
    if not _fits(tp, value):
        raise SettingError(key, "wrong type", f"expected {describe(tp)}", value)
    if value is None:
        return
    inner = _optional(tp)[0]
    origin = typing.get_origin(inner)
    if dataclasses.is_dataclass(inner):
        check_section(inner, value, key)
    elif origin is list:
        for i, item in enumerate(value):
            check_field(typing.get_args(inner)[0], meta, item, f"{key}[{i}]")
    elif origin is dict:
        for name, item in value.items():
            check_field(typing.get_args(inner)[1], meta, item, join_key(key, name))
    else:
        _check_value(meta, value, key, ranges=True)
