"""``clineval dvc remote``: where ``dvc pull`` fetches from, and what to do when it cannot.

DVC answers a pull from a remote that holds nothing (a fresh clone's default remote
folder does not exist yet) with a list of missing cache files; this says why and what to run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

HOW = ("docs/reproducibility.md, 'The remote'")


@dataclass(frozen=True)
class Remote:
    name: str
    url: str
    default: bool


def remotes(root: Path) -> list[Remote]:
    """The remotes of the DVC project at ``root``, as DVC reads its config (``.dvc/config``
    and ``config.local``; a relative local URL resolved)."""
    try:
        from dvc.exceptions import DvcException
        from dvc.repo import Repo
    except ImportError as err:
        raise RuntimeError("dvc is not installed (pip install dvc)") from err
    try:
        config = Repo(str(root)).config
    except DvcException as err:
        raise RuntimeError(f"{root} is not a DVC project: {err}") from err
    default = config["core"].get("remote")
    return [Remote(name, str(spec.get("url", "")), name == default)
            for name, spec in config.get("remote", {}).items()]


def diagnose(found: list[Remote]) -> tuple[int, str]:
    """(exit status, message) for the remotes of a project."""
    default = next((r for r in found if r.default), None)
    if default is None:
        names = ", ".join(r.name for r in found) or "none"
        return 1, (f"no default DVC remote (remotes: {names}): `dvc pull` has nowhere to fetch "
                   "from. Add one that holds a pushed run: dvc remote add -d store "
                   f"/path/or/s3://bucket/prefix ({HOW}); or build the results with "
                   "`snakemake all_tables`")
    if re.match(r"^[a-z][a-z0-9+]*://", default.url) and not default.url.startswith("file://"):
        return 0, (f"default remote {default.name!r}: {default.url}; `dvc status -c` shows "
                   "what it lacks")
    path = Path(default.url.removeprefix("file://"))
    if not path.is_dir():
        return 1, (f"default remote {default.name!r} is the folder {path}, which does not "
                   "exist: nothing was pushed there, so `dvc pull` finds no file. Point the "
                   f"remote at a store that holds a pushed run (dvc remote modify --local "
                   f"{default.name} url /path/to/store), or build the results here with "
                   f"`snakemake all_tables` and fill the store with `dvc push` ({HOW})")
    objects = sum(1 for p in path.rglob("*") if p.is_file())
    if not objects:
        return 1, (f"default remote {default.name!r} is the folder {path}, which is empty: "
                   "run `dvc push` where the results were built, or point the remote at "
                   f"another store ({HOW})")
    return 0, f"default remote {default.name!r}: {path} ({objects} files)"
