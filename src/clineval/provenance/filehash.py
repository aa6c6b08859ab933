"""File hashes cached by size and modification time, so large inputs are read once."""

from __future__ import annotations

import json
from pathlib import Path

from clineval.errors import ConfigError
from clineval.io import write_json
from clineval.provenance.hashing import sha256_file


class FileHashCache:
    """sha256 of files, remembered in a JSON file keyed by absolute path, size and mtime."""

    def __init__(self, store: Path):
        self.store = store
        self.entries: dict[str, dict[str, object]] = (
            json.loads(store.read_text(encoding="utf-8")) if store.is_file() else {}
        )
        self.dirty = False
        #: Absolute paths hashed through this cache (the files a plan read beyond conf/).
        self.used: set[str] = set()

    def knows(self, path: Path) -> bool:
        """The file was hashed before (it is a source or a scoring input of some plan)."""
        return str(path.resolve()) in self.entries

    def sha256(self, path: Path, what: str) -> str:
        if not path.is_file():
            raise ConfigError(f"{what}: {path} does not exist")
        stat = path.stat()
        key = str(path.resolve())
        self.used.add(key)
        entry = self.entries.get(key)
        if entry and entry["size"] == stat.st_size and entry["mtime_ns"] == stat.st_mtime_ns:
            return str(entry["sha256"])
        digest = sha256_file(path)
        self.entries[key] = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": digest}
        self.dirty = True
        return digest

    def save(self) -> None:
        if self.dirty:
            write_json(self.store, self.entries)
            self.dirty = False
