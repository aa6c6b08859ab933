"""Where the config lives, so every ``clineval`` command works from any directory, and the
options each of its groups offers.

``--conf`` wins when given. Otherwise: ``$CLINEVAL_CONF``; else ``./conf`` when it holds a
``config.yaml`` (a project's own config, or the checkout's root); else the ``conf/`` of the
checkout clineval runs from (``src/clineval/`` two levels below it: a clone, or an editable
install of one).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

from clineval.benchmarks.registry import GROUP, INCLUDE
from clineval.errors import ConfigError

#: The checkout's config folder, beside ``src/`` (absent for a wheel installed elsewhere).
PROJECT_CONF = Path(__file__).resolve().parents[3] / "conf"
ENV = "CLINEVAL_CONF"


def find_conf(given: Path | None = None) -> Path:
    """The config folder to compose from (absolute); ConfigError names what was tried."""
    tried: list[str] = []
    if given is not None:
        candidates = [(given, "--conf")]
    elif os.environ.get(ENV):
        candidates = [(Path(os.environ[ENV]), f"${ENV}")]
    else:
        candidates = [(Path("conf"), "./conf"), (PROJECT_CONF, "the checkout's conf/")]
    for path, where in candidates:
        if (path / "config.yaml").is_file():
            return path.resolve()
        tried.append(f"{where} ({path.resolve()})")
    raise ConfigError(
        f"no config.yaml in {' or '.join(tried)}; pass --conf DIR (the folder holding "
        f"config.yaml) or set {ENV}"
    )


def search_path(conf_dir: Path) -> list[Path]:
    """Where config files are found, first first: ``conf_dir``, then the ``conf`` folder of each
    benchmark package that carries one (a package from outside the project)."""
    from clineval.benchmarks import conf_folders

    return [conf_dir, *conf_folders()]


def config_file(conf_dir: Path, relative: str | Path, benchmark: str | None = None) -> Path:
    """The first ``<folder>/<relative>`` that exists: in ``conf_dir``, then in the ``conf``
    folder of ``benchmark``'s package, or of every package when no benchmark is named
    (:func:`search_path`); ``conf_dir/<relative>`` when none does."""
    from clineval.benchmarks import conf_folder

    if benchmark is None:
        folders = search_path(conf_dir)
    else:
        folders = [conf_dir, *filter(None, [conf_folder(benchmark)])]
    return next((f / relative for f in folders if (f / relative).is_file()), conf_dir / relative)


def available(conf_dir: Path, group: str) -> list[str]:
    """Names of the options of a config group (the YAML files in ``conf/<group>/`` and in the
    same group of each package's own ``conf``)."""
    return sorted({p.stem for folder in search_path(conf_dir)
                   for p in (folder / group).glob("*.yaml")})


def add_conf_argument(parser: argparse.ArgumentParser) -> None:
    """``--conf DIR``; resolve the value with :func:`find_conf` (None: the default search).
    With ``--include`` (:func:`add_include_argument`)."""
    parser.add_argument(
        "--conf", type=Path, default=None,
        help=f"the config folder (default: ${ENV}, else ./conf, else the checkout's conf/)",
    )
    add_include_argument(parser)


def add_include_argument(parser: argparse.ArgumentParser) -> None:
    """``--include DIR`` (repeatable), for ``--help``: :func:`included` reads it before the
    parser is built, whatever the command."""
    parser.add_argument(
        "--include", type=Path, action="append", metavar="DIR",
        help=f"benchmark packages from outside the project: a project folder whose "
             f"pyproject.toml declares '{GROUP}' entry points, a package or a folder of "
             f"packages (repeatable; added to ${INCLUDE}, which the run's jobs inherit)",
    )


def included(argv: Sequence[str]) -> tuple[list[Path], list[str]]:
    """The ``--include`` folders of a command line, whatever its command, and the rest of it."""
    early = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    early.add_argument("--include", type=Path, action="append", default=[])
    found, rest = early.parse_known_args(list(argv))
    return found.include, rest
