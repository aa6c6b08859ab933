"""Where a benchmark's files come from: the synthetic demo or the user's official files.

A task whose official file is not configured or not there raises :class:`MissingSource` from
``source_files``; the plan then reports the message once and runs the rest of the grid.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from clineval.errors import ConfigError

#: The sources a task may read: the project's synthetic demo in the official format, or the
#: user's copy of the official files.
SOURCE_KINDS = ("demo", "official")
#: The data-access tiers of official files: ``public``, anyone's; ``credentialed``, only for
#: those under its data use agreement (PhysioNet's for MIMIC); ``unreleased``, a benchmark's
#: data its authors have not released; ``private``, the user's own unreleased data. A
#: benchmark declares the least tier of each official file it reads (``source_tiers``); a
#: task's ``access`` may add a tier, never declare restricted files public.
TIERS = ("public", "credentialed", "unreleased", "private")
#: The tiers whose files may not leave the machine unless the config allows it.
RESTRICTED = TIERS[1:]
#: The tier of the demo's files: the project's synthetic data, anyone's.
SYNTHETIC = "synthetic"


class MissingSource(FileNotFoundError):
    """A task's source file is missing: which file, where to get it, which setting points at it.

    The workflow catches it per task, reports ``str(err)`` once and runs the other tasks.
    """

    def __init__(
        self,
        task: str,
        file_description: str,
        where: str,
        setting: str,
        configured: Path | str | None = None,
        benchmark: str = "CLUE",
    ):
        self.task = task
        self.file_description = file_description
        self.where = where
        self.setting = setting
        #: The configured path that is no file (None: the setting is not set).
        self.configured = configured
        state = "is not set" if not configured else f"is {str(configured)!r}, which is no file"
        super().__init__(
            f"{benchmark} task {task!r} skipped: it needs {file_description}. Get it from "
            f"{where}, then point the setting {setting!r} at it (it {state})."
        )


def require(
    path: Path | str | None,
    task: str,
    file_description: str,
    where: str,
    setting: str,
    benchmark: str = "CLUE",
) -> Path:
    """``path`` as a Path when it names an existing file, else raise ``MissingSource``."""
    if path is None or str(path).strip() == "" or not Path(path).is_file():
        raise MissingSource(task, file_description, where, setting, path, benchmark)
    return Path(path)


def demo_or_official(
    task: dict[str, Any],
    task_name: str,
    data_root: Path,
    demo_files: dict[str, str],
    official: Callable[[], dict[str, Path]],
) -> dict[str, Path]:
    """The task's source files: ``demo_files`` (names under ``data/demo/<task>/``) for the demo,
    else what ``official()`` returns (it raises :class:`MissingSource` for a missing file)."""
    source = task["data"].get("source")
    if source == "demo":
        base = data_root / "demo" / task_name
        return {name: base / file for name, file in demo_files.items()}
    if source == "official":
        return official()
    raise ConfigError(
        f"tasks.{task_name}.data.source={source!r}; use {' or '.join(SOURCE_KINDS)}"
    )
