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
from pathlib import Path

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


def available(conf_dir: Path, group: str) -> list[str]:
    """Names of the options of a config group (the YAML files in ``conf/<group>/``)."""
    return sorted(p.stem for p in (conf_dir / group).glob("*.yaml"))


def add_conf_argument(parser: argparse.ArgumentParser) -> None:
    """``--conf DIR``; resolve the value with :func:`find_conf` (None: the default search)."""
    parser.add_argument(
        "--conf", type=Path, default=None,
        help=f"the config folder (default: ${ENV}, else ./conf, else the checkout's conf/)",
    )
