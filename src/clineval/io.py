"""Atomic writes and JSONL reading with errors that name the file, line and field."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, TextIO

from clineval.errors import DataError

#: A JSON object: a row of a JSONL file, a record, a block of settings. The one name for it.
Record = dict[str, Any]


def ordinary_mode(directory: bool = False) -> int:
    """The mode of a new ordinary file (folder) under the process's umask: 0644 (0755) under
    umask 022."""
    mask = os.umask(0)
    os.umask(mask)
    return (0o777 if directory else 0o666) & ~mask


def make_ordinary(folder: Path) -> None:
    """Give every file directly in ``folder`` the mode of a new ordinary file: libraries that
    write with ``mkstemp`` (safetensors) leave 0600, which hides results from other readers."""
    for path in folder.iterdir():
        if path.is_file() and not path.is_symlink():
            path.chmod(ordinary_mode())


@contextmanager
def atomic_writer(path: Path, binary: bool = False) -> Iterator[IO[Any]]:
    """Write text (bytes when ``binary``) to a temporary file beside ``path`` and move it in
    place on success."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, ordinary_mode())  # mkstemp's 0600 would hide results from other readers
        with (os.fdopen(fd, "wb") if binary
              else os.fdopen(fd, "w", encoding="utf-8", newline="\n")) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextmanager
def atomic_directory(path: Path) -> Iterator[Path]:
    """Fill a temporary folder beside ``path`` and move it in place (replacing ``path``) on
    success; on failure nothing of it is left."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
    try:
        tmp.chmod(ordinary_mode(directory=True))  # mkdtemp's 0700 would hide it
        yield tmp
        if path.exists():
            shutil.rmtree(path)
        tmp.rename(path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def write_text(path: Path, text: str) -> None:
    with atomic_writer(path) as handle:
        handle.write(text)


def write_bytes(path: Path, data: bytes) -> None:
    with atomic_writer(path, binary=True) as handle:
        handle.write(data)


def json_text(obj: Any) -> str:
    """The text :func:`write_json` writes (sorted keys, indented)."""
    return json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def jsonl_line(record: dict[str, Any]) -> str:
    """One line as :func:`write_jsonl` writes it."""
    return json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n"


def write_json(path: Path, obj: Any) -> None:
    write_text(path, json_text(obj))


def write_jsonl(path: Path, records: Iterable[dict[str, Any]]) -> None:
    with atomic_writer(path) as handle:
        for record in records:
            handle.write(jsonl_line(record))


def write_if_changed(path: Path, text: str) -> bool:
    """Rewrite ``path`` only when its content differs, so its time stamp marks real changes."""
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    write_text(path, text)
    return True


def open_text(path: Path) -> TextIO:
    """Open ``path`` for reading text (CSV-ready: no newline translation); ``.gz`` files are
    decompressed on the fly; a missing file is a :class:`DataError` naming it."""
    try:
        if path.suffix == ".gz":
            return gzip.open(path, "rt", encoding="utf-8-sig", newline="")
        return path.open(encoding="utf-8-sig", newline="")  # a byte-order mark is dropped
    except FileNotFoundError as err:
        raise DataError(path, None, None, "file not found") from err


def read_json(path: Path) -> Any:
    """A JSON file; a file that is not JSON is an error naming the line, and saying when the
    text stops before the document ends (a truncated file)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as err:
        raise DataError(path, None, None, "file not found") from err
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        cut = (" (the file stops before the document ends: a truncated file?)"
               if err.pos >= len(text.rstrip()) else "")
        raise DataError(path, None, None, f"invalid JSON ({err.msg}): expected a complete JSON "
                        f"document{cut}", line=err.lineno) from err


def read_identity(path: Path) -> tuple[str, dict[str, Any]]:
    """An identity file written by the plan: its ``sha`` and the ``identity`` it hashes."""
    data = read_json(path)
    return data["sha"], data["identity"]


def json_line_error(path: Path | str, number: int, text: str, err: json.JSONDecodeError,
                    last: bool) -> DataError:
    """The error for a line that is not JSON: the key it breaks in (when one is open), what was
    expected, and, on the last line of the file, that the file looks cut off."""
    keys = re.findall(r'"((?:[^"\\]|\\.)*)"\s*:', text[: err.pos])
    cut = " (the last line is cut off: a truncated file?)" if last else ""
    return DataError(path, number, keys[-1] if keys else None,
                     f"expected one complete JSON object on the line, got text that is not JSON "
                     f"at column {err.colno} ({err.msg}){cut}")


def user_cache(kind: str, variable: str) -> Path:
    """A per-user cache folder outside any checkout: ``$<variable>`` when set, else
    ``$XDG_CACHE_HOME/clineval/<kind>`` (``~/.cache/clineval/<kind>``)."""
    if os.environ.get(variable):
        return Path(os.environ[variable]).expanduser()
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "clineval" / kind


def read_jsonl(path: Path, required: Iterable[str] = ()) -> list[dict[str, Any]]:
    """Read a JSONL file; every line must be an object holding the ``required`` fields."""
    required = tuple(required)
    records: list[dict[str, Any]] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError as err:
        raise DataError(path, None, None, "file not found") from err
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise json_line_error(path, number, line, err, number == len(lines)) from err
        if not isinstance(record, dict):
            raise DataError(path, number, None, "expected a JSON object")
        for field in required:
            if field not in record:
                raise DataError(path, number, field, "missing: expected the field on every line")
        records.append(record)
    return records
