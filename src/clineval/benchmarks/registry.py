"""Where the benchmark packages come from: this folder, installed distributions, include folders.

- **built in**: each package of ``clineval/benchmarks/`` with a ``benchmark.py``;
- **entry points**: each entry point of an installed distribution in the group
  :data:`GROUP`, named for the benchmark, whose value is the package (``pubmedqa =
  clineval_pubmedqa`` in ``[project.entry-points."clineval.benchmarks"]``);
- **include folders** (:data:`INCLUDE`, ``os.pathsep``-separated; ``clineval --include``,
  Snakemake's ``--config include=...``): a project folder whose ``pyproject.toml`` declares such
  entry points (as if installed), a benchmark package (a folder with ``benchmark.py``), or a
  folder of them.

Finding the names reads files and distribution metadata only: no package is imported until a task
uses it. A name two sources give is an error naming both.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path

from clineval.errors import ConfigError

#: The entry-point group of benchmark packages.
GROUP = "clineval.benchmarks"
#: Include folders, ``os.pathsep``-separated (the job processes of a run inherit it).
INCLUDE = "CLINEVAL_INCLUDE"
BUILT_IN = Path(__file__).parent
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Source:
    """A benchmark package: its import name, where it was found (for people), the folder to put
    on ``sys.path`` before importing it (include folders; None: importable as is) and, when known
    without importing, its folder."""

    name: str
    module: str
    origin: str
    path: Path | None = None
    folder: Path | None = None

    @property
    def built_in(self) -> bool:
        return self.module == f"clineval.benchmarks.{self.name}"

    def package_folder(self) -> Path | None:
        """The package's folder (an entry point's is looked up, its parents imported; one this
        environment cannot import is a ConfigError naming the distribution and the error)."""
        if self.folder is not None:
            return self.folder
        try:
            spec = importlib.util.find_spec(self.module)
        except Exception as err:  # a parent package that is missing or raises on import
            raise self.not_importable(f"{type(err).__name__}: {one_line(err)}") from None
        if spec is None:
            raise self.not_importable(f"No module named {self.module!r}")
        locations = spec.submodule_search_locations
        return Path(next(iter(locations))) if locations else None

    def not_importable(self, problem: str) -> ConfigError:
        """The error for a package of this source that Python cannot find or import."""
        return ConfigError(
            f"benchmark {self.name!r} ({self.origin}): its package {self.module} cannot be "
            f"imported here ({problem}); install it into this environment ({sys.executable} -m "
            "pip install -e <its project folder>) or name its folder with --include "
            "(docs/extending.md, Registering it)")


def one_line(err: BaseException) -> str:
    """An exception's message on one line (its lines joined by spaces)."""
    return " ".join(str(err).split())


def _built_in() -> list[Source]:
    return [Source(p.name, f"clineval.benchmarks.{p.name}", "built in", None, p)
            for p in sorted(BUILT_IN.iterdir())
            if p.name != "base" and (p / "benchmark.py").is_file()]


def _entry_point(name: str, value: str, where: str) -> tuple[str, str]:
    module, _, attr = value.partition(":")
    if attr or not module.strip():
        raise ConfigError(f"{where}: the value {value!r} must be the benchmark's package (its "
                          "import name, without ':')")
    return name, module.strip()


def _installed() -> list[Source]:
    found = []
    for point in entry_points(group=GROUP):
        dist = f"{point.dist.name} {point.dist.version}" if point.dist else "a distribution"
        where = f"entry point {point.name} = {point.value} of {dist}"
        found.append(Source(*_entry_point(point.name, point.value, where), where))
    return found


def _project(folder: Path) -> list[Source] | None:
    """The entry points a project folder's ``pyproject.toml`` declares (None: none)."""
    project = folder / "pyproject.toml"
    if not project.is_file():
        return None
    try:
        declared = tomllib.loads(project.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{project}: {err}") from None
    points = declared.get("project", {}).get("entry-points", {}).get(GROUP)
    if not points:
        return None
    found = []
    for name, value in points.items():
        where = f"entry point {name} = {value} of {project}"
        name, module = _entry_point(name, str(value), where)
        top = module.split(".")[0]
        root = folder / "src" if (folder / "src" / top).is_dir() else folder
        found.append(Source(name, module, where, root, root.joinpath(*module.split("."))))
    return found


def _included(folder: Path) -> list[Source]:
    if not folder.is_dir():
        raise ConfigError(f"include folder {folder} (${INCLUDE} or --include) is not a folder")
    declared = _project(folder)
    if declared is not None:
        return declared
    where = f"include folder {folder}"
    if (folder / "benchmark.py").is_file():
        return [Source(folder.name, folder.name, where, folder.parent, folder)]
    found = [Source(p.name, p.name, where, folder, p) for p in sorted(folder.iterdir())
             if (p / "benchmark.py").is_file()]
    if not found:
        raise ConfigError(f"{where} (${INCLUDE} or --include) holds no benchmark package (a "
                          "folder with benchmark.py) and no pyproject.toml declaring entry "
                          f"points in the group {GROUP!r}")
    return found


def include_folders() -> list[Path]:
    """The include folders now named (:data:`INCLUDE`), in order."""
    return [Path(p) for p in os.environ.get(INCLUDE, "").split(os.pathsep) if p]


def add_include(folders: list[str] | list[Path] | str | None) -> None:
    """Name more include folders (absolute), before the others: for this process and for the
    processes it starts (a run's jobs). A string is ``os.pathsep``-separated."""
    if isinstance(folders, str):
        folders = folders.split(os.pathsep)
    new = [str(Path(f).expanduser().resolve()) for f in folders or [] if str(f)]
    known = [str(p) for p in include_folders()]
    joined = [*dict.fromkeys([*new, *known])]
    if joined:
        os.environ[INCLUDE] = os.pathsep.join(joined)


def _same(one: Source, other: Source) -> bool:
    """Whether two sources are one package (installed in editable mode and included, say)."""
    if one.module != other.module:
        return False
    folders = [s.package_folder() for s in (one, other)]
    return None not in folders and len({f.resolve() for f in folders if f}) == 1


@cache
def _sources(include: str, path: tuple[str, ...]) -> dict[str, Source]:
    """The sources for these include folders, with the distributions ``path`` (``sys.path``)
    holds."""
    found: dict[str, Source] = {}
    folders = [Path(p).expanduser().resolve() for p in include.split(os.pathsep) if p]
    for source in [*_built_in(), *_installed(), *(s for f in folders for s in _included(f))]:
        if not _NAME.fullmatch(source.name):
            raise ConfigError(f"benchmark name {source.name!r} ({source.origin}) is not a "
                              "Python identifier (letters, digits, '_')")
        other = found.get(source.name)
        if other is None:
            found[source.name] = source
        elif not _same(other, source):
            raise ConfigError(f"two benchmarks are named {source.name!r}: {other.origin}, and "
                              f"{source.origin}; uninstall, rename or stop including one")
    return dict(sorted(found.items()))


def sources() -> dict[str, Source]:
    """Every benchmark package by name, sorted (ConfigError: a clash, a bad include folder)."""
    return _sources(os.environ.get(INCLUDE, ""), tuple(sys.path))


def source(name: str) -> Source:
    """The package of benchmark ``name`` (KeyError: unknown, listing every source's)."""
    found = sources()
    if name not in found:
        known = ", ".join(n if s.built_in else f"{n} ({s.origin})" for n, s in found.items())
        folders = os.pathsep.join(map(str, include_folders())) or "none"
        raise KeyError(f"unknown benchmark {name!r}; known: {known} (built in, entry points in "
                       f"the group {GROUP!r}, include folders: {folders})")
    return found[name]


def module(name: str) -> str:
    """The import name of benchmark ``name``'s package, importable once this returns."""
    found = source(name)
    if found.path is not None and str(found.path) not in sys.path:
        sys.path.insert(0, str(found.path))
    return found.module
