"""File locations in identities and records that are the same on every machine.

A file that comes with an installed package (the bundled sentence encoder, a file of clineval's
own package) lives under the Python environment, whose path differs between a clone, a CI
checkout and an auditor's machine. Such a path is written relative to its root
(``<site-packages>/…``, ``<clineval>/…``), so identities and records do not change with the
environment's location; any other path is written as given.
"""

from __future__ import annotations

import sysconfig
from functools import cache
from pathlib import Path

import clineval


@cache
def _roots() -> tuple[tuple[str, Path], ...]:
    return (("<clineval>", Path(clineval.__file__).resolve().parent),
            ("<site-packages>", Path(sysconfig.get_paths()["purelib"]).resolve()))


def portable(path: Path) -> str:
    """``path`` as identities and records name it."""
    if path.is_absolute():
        resolved = path.resolve()
        for name, root in _roots():
            if resolved.is_relative_to(root):
                return f"{name}/{resolved.relative_to(root).as_posix()}"
    return str(path)


def located(name: str) -> Path:
    """The file a :func:`portable` name stands for in this environment."""
    for root_name, root in _roots():
        if name.startswith(f"{root_name}/"):
            return root / name[len(root_name) + 1:]
    return Path(name)
