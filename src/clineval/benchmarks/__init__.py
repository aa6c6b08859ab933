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
import traceback
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from clineval.benchmarks.registry import add_include, module, one_line, source, sources
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


def _where(err: BaseException, folder: Path | None) -> str:
    """Where an exception was raised, for people: a syntax error's file and line, else the last
    line of the package's own (``folder``) that the traceback passed through, else its last."""
    if isinstance(err, SyntaxError) and err.filename:
        return f" ({err.filename}, line {err.lineno})"
    frames = [f for f in traceback.extract_tb(err.__traceback__)
              if not f.filename.startswith("<frozen")]
    own = [f for f in frames if folder is not None and Path(f.filename).is_relative_to(folder)]
    frame = (own or frames or [None])[-1]
    return f" ({frame.filename}, line {frame.lineno})" if frame is not None else ""


def _imported(name: str, part: str = "") -> ModuleType:
    """The benchmark's package (``part``: "") or its module ``part``; an import that raises is
    a ConfigError naming the package, where it comes from, the error and its file and line."""
    target = f"{module(name)}.{part}" if part else module(name)
    try:
        return importlib.import_module(target)
    except Exception as err:
        found = source(name)
        problem = err.msg if isinstance(err, SyntaxError) else one_line(err)  # no file twice
        raise ConfigError(f"benchmark {name!r} ({found.origin}): importing {target} raised "
                          f"{type(err).__name__}: {problem}"
                          f"{_where(err, found.package_folder())}") from None


def _member(found: ModuleType, name: str, attr: str) -> object:
    """``attr`` of the benchmark's module ``found`` (a ConfigError when it has none)."""
    if not hasattr(found, attr):
        raise ConfigError(f"benchmark {name!r} ({source(name).origin}): {found.__file__} "
                          f"defines no {attr}")
    return getattr(found, attr)


def get_settings(name: str) -> ModuleType:
    """The benchmark's declared settings: its package's ``settings`` module, with ``TASK`` (the
    schema of its tasks' own keys, or a function of a task picking one) and ``TABLES`` (each
    table layout it implements -> the schema of the layout's keys); docs/sdk.md."""
    found = _imported(name, "settings")
    for attr in ("TASK", "TABLES"):
        _member(found, name, attr)
    return found


def get_benchmark(name: str) -> Benchmark:
    """Import a benchmark package lazily (its dependencies load only when it is used)."""
    bench: Benchmark = _member(_imported(name, "benchmark"), name,  # type: ignore[assignment]
                               "BENCHMARK")
    if bench.name != name:
        raise ConfigError(f"benchmark {name!r} ({source(name).origin}): its BENCHMARK.name is "
                          f"{bench.name!r}; the two must agree")
    return bench


def get_commands(name: str) -> dict[str, Command]:
    """The benchmark's tools: its package's ``commands.COMMANDS`` (tool name -> Command)."""
    return _member(_imported(name, "commands"), name, "COMMANDS")  # type: ignore[return-value]


def title(name: str) -> str:
    """The benchmark's name for people (its package's ``TITLE``; the package alone is read)."""
    return str(_member(_imported(name), name, "TITLE"))


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
