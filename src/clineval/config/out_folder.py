"""The folder a command writes into (``--out``, ``--dir``), checked before anything is written."""

from __future__ import annotations

import os
from pathlib import Path

from clineval.errors import ConfigError


def writable_folder(value: str | Path, setting: str) -> Path:
    """``value`` as a folder to write into: a path that is not empty, not a file and not below
    one, whose nearest existing folder this process may write in (ConfigError naming
    ``setting`` otherwise)."""
    if not str(value).strip():
        raise ConfigError(f"{setting} {str(value)!r}: an empty path; name the folder to write "
                          "into")
    folder = Path(value).expanduser()
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        what = ("a file, not a folder" if existing == folder
                else f"{existing} is a file, not a folder to make it in")
        raise ConfigError(f"{setting} {folder}: {what}")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(f"{setting} {folder}: the folder {existing} cannot be written in "
                          "(permission denied or a read-only file system)")
    return folder
