"""The plan's check of recorded models' files: each file is read and checked when the plan is
made, before any job, and a file answers one task.

Each file the planned cells of a recorded model read (``recorded.path``, or its entry per task)
is read once per plan and checked as its job would read it
(:func:`clineval.inference.recorded_backend.read_file`): a missing file, bytes that are not
UTF-8, a line that is not a row of its layout (a missing id or output, an output that is not a
string), a second row for an id, an output longer than ``recorded.max_output_chars``; the one
line names the model's setting, the file, the line and the field. A file that passed is
remembered by its sha256 (the plan's file hashes, trusted while the file's size and mtime are
unchanged) with its layout and limit, in ``results/identity/recorded-checks.json``: later plans
do not read it again.

The rows of a file are matched by example id alone, and tasks share ids (the tasks of one
benchmark often do). The plan cannot see the tasks' ids before their data are derived, so a
file whose rows do not name their task may answer one of a model's planned tasks only: another
file per task (``recorded.path: {task: path}``), or a ``task`` field on each row, says which
rows answer which task.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from clineval.errors import ConfigError, DataError
from clineval.inference.recorded_backend import file_of, max_output_chars, read_file
from clineval.inference.registry import backend_of
from clineval.io import read_json, write_json
from clineval.provenance.filehash import FileHashCache
from clineval.workflow.plan.layout import Cell

#: The memo's entries hold the checks of this version (other versions' are checked again).
CHECKS = 1
MEMO = "recorded-checks.json"


class _Memo:
    """Files that passed the check, by their sha256, layout and limit: the tasks their rows
    name (None: rows that name none)."""

    def __init__(self, path: Path):
        self.path = path
        try:
            self.entries: dict[str, list[str] | None] = dict(read_json(path)) \
                if path.is_file() else {}
        except (DataError, ValueError, TypeError):  # unreadable: checked again
            self.entries = {}
        self.dirty = False

    def save(self) -> None:
        if self.dirty:
            write_json(self.path, self.entries)


def _tasks_named(path: Path, spec: Mapping[str, Any], where: str, hashes: FileHashCache,
                 memo: _Memo) -> list[str] | None:
    """The tasks the file's rows name (None: none), from the memo or read and checked
    (ConfigError: ``where`` and the file's problem, with its line and field)."""
    layout = spec.get("layout") or "jsonl"
    limit = max_output_chars(spec)
    key = f"{CHECKS}/{layout}/{limit}/{hashes.sha256(path, where)}"
    if key not in memo.entries:
        try:
            found = read_file(path, layout, None, limit)
        except DataError as err:
            raise ConfigError(f"{where}: {err}") from None
        memo.entries[key] = sorted(t for t in found.rows if t is not None) if found.tagged \
            else None
        memo.dirty = True
    return memo.entries[key]


def _files(name: str, spec: Mapping[str, Any], tasks: Sequence[str],
           known: Sequence[str]) -> dict[Path, list[str]]:
    """The model's files, each with the planned tasks it answers (ConfigError: a task of the
    mapping that the config does not define, a planned task the mapping gives no file)."""
    where = f"models.{name}.recorded.path"
    given = spec.get("path")
    if isinstance(given, Mapping):
        for task, path in given.items():
            if task not in known:
                raise ConfigError(f"{where}.{task}: no task {task!r} in the config; tasks: "
                                  f"{', '.join(sorted(known))}")
            if not isinstance(path, str) or not path:
                raise ConfigError(f"{where}.{task}={path!r}: expected the path of a file")
        lacking = [t for t in tasks if t not in given]
        if lacking:
            raise ConfigError(f"{where}: no file for task {lacking[0]} (the model runs it; the "
                              f"mapping names {', '.join(sorted(given)) or 'none'}): add "
                              f"{where}.{lacking[0]}=<file>")
    files: dict[Path, list[str]] = {}
    for task in tasks:
        files.setdefault(Path(str(file_of(spec, task))).expanduser(), []).append(task)
    return files


def check_recorded_files(cfg: Mapping[str, Any], cells: Sequence[Cell],
                         hashes: FileHashCache) -> None:
    """Every file of the planned recorded models read and checked, and each answers one task
    (ConfigError, one line: the setting, the file, and the line and field or the tasks)."""
    memo = _Memo(hashes.store.parent / MEMO)
    for name in sorted({c.model for c in cells}):
        model = cfg["models"][name]
        if not backend_of(model).recorded:
            continue
        spec = model["recorded"]
        tasks = sorted({c.task for c in cells if c.model == name})
        for path, answered in _files(name, spec, tasks, list(cfg["tasks"])).items():
            per_task = isinstance(spec.get("path"), Mapping)
            where = f"models.{name}.recorded.path" + (f".{answered[0]}" if per_task else "")
            named = _tasks_named(path, spec, where, hashes, memo)
            if named is None and len(answered) > 1:
                raise ConfigError(
                    f"models.{name}.recorded.path: {path} would answer tasks {answered[0]} and "
                    f"{answered[1]}, whose example ids may overlap, by example id alone: give "
                    f"a file per task (models.{name}.recorded.path={{{answered[0]}: ..., "
                    f"{answered[1]}: ...}}) or a `task` field on each row")
            lacking = [t for t in answered if named is not None and t not in named]
            if lacking:
                raise ConfigError(f"{where}: {path} has no row for task {lacking[0]} (its rows "
                                  f"name {', '.join(named or [])})")
    memo.save()
