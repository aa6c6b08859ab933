"""Provenance records: what one workflow step read and wrote, by content hash.

Every step writes a record beside its artifacts (``docs/reproducibility.md`` lists where):

    {"schema": "clineval.provenance/1", "kind": "scores", "key": "<model>/<task>/<mode>",
     "identity": "<sha of the identity the step read>", "credentialed": false,
     "inputs":  {"<role>": {"path": "...", "sha256": "..."}, ...},
     "outputs": {"<role>": {"path": "...", "sha256": "..."}, ...}, ...}

``inputs`` are the files the step read (the identity is recorded by its hash), ``outputs`` the
files it wrote other than the record itself. The generation and score records of a cell whose
restricted data a remote model or judge received, as its config allows, also hold
``data_access``: the tier and the settings that allowed it. The records let ``clineval audit``
walk a table back to its data by hashes and let the workflow tell pulled artifacts from stale ones
(:mod:`clineval.workflow.run.settle`). They hold hashes, settings and counts, never prompt or
patient text, and never a secret.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from clineval.io import DataError, Record, read_json, write_json
from clineval.provenance.filehash import FileHashCache
from clineval.provenance.hashing import sha256_file
from clineval.provenance.location import located, portable

SCHEMA = "clineval.provenance/1"
KINDS = ("demo", "data", "scoring_input", "model", "requests", "generation", "scores", "table",
         "figure", "report", "export")


def file_entry(path: Path, hashes: Callable[[Path], str | None] | None = None) -> dict[str, str]:
    """A file's path (as the workflow names it) and the sha256 of its bytes (``hashes``, a
    :class:`FileHashes`, reads each file once across records)."""
    digest = hashes(path) if hashes else sha256_file(path)
    if digest is None:
        raise DataError(path, None, None, "the file does not exist")
    return {"path": portable(path), "sha256": digest}


def make_record(
    kind: str,
    key: str,
    identity: str,
    inputs: Mapping[str, Path],
    outputs: Mapping[str, Path],
    credentialed: bool,
    hashes: Callable[[Path], str | None] | None = None,
    **extra: Any,
) -> Record:
    """A record of one step; ``inputs`` and ``outputs`` map roles to files that exist now
    (``hashes`` shares the reading of inputs that several records list)."""
    if kind not in KINDS:
        raise ValueError(f"unknown provenance kind {kind!r}; kinds: {', '.join(KINDS)}")
    return {
        "schema": SCHEMA,
        "kind": kind,
        "key": key,
        "identity": identity,
        "credentialed": credentialed,
        "inputs": {role: file_entry(path, hashes) for role, path in sorted(inputs.items())},
        "outputs": {role: file_entry(path) for role, path in sorted(outputs.items())},
        **extra,
    }


def data_access(source: Mapping[str, Any]) -> Record:
    """The ``data_access`` entry of an identity or a record, for a record's keys: where a
    remote model or judge received restricted data because its config allows the tier
    (``{"tier": ..., "allowed_by": [settings]}``); empty for every other artifact."""
    return {"data_access": source["data_access"]} if source.get("data_access") else {}


def write_record(path: Path, record: Record) -> None:
    write_json(path, record)


def read_record(path: Path) -> Record:
    """Read a record; a file of another schema is an error naming the file and field."""
    record = read_json(path)
    if not isinstance(record, dict) or record.get("schema") != SCHEMA:
        found = record.get("schema") if isinstance(record, dict) else type(record).__name__
        raise DataError(path, None, "schema", f"expected {SCHEMA!r}, found {found!r}")
    for field in ("kind", "key", "identity", "inputs", "outputs"):
        if field not in record:
            raise DataError(path, None, field, "missing from the provenance record")
    return record


def prov_path(artifact: Path) -> Path:
    """The record beside a one-file artifact: ``<mode>.jsonl`` -> ``<mode>.prov.json``."""
    return artifact.with_name(artifact.name.split(".")[0] + ".prov.json")


class FileHashes:
    """sha256 of files now (None when missing), each file read at most once.

    With ``stat_cache`` (the plan's :class:`~clineval.provenance.filehash.FileHashCache`),
    files the plan hashed (sources, scoring inputs: possibly tens of GB) are read again only
    when their size or modification time changed; workflow artifacts are always read.
    """

    def __init__(self, stat_cache: FileHashCache | None = None) -> None:
        self.known: dict[Path, str | None] = {}
        self.stat_cache = stat_cache

    def __call__(self, path: Path) -> str | None:
        if path not in self.known:
            if not path.is_file():
                self.known[path] = None
            elif self.stat_cache is not None and self.stat_cache.knows(path):
                self.known[path] = self.stat_cache.sha256(path, str(path))
            else:
                self.known[path] = sha256_file(path)
        return self.known[path]


def changed_files(
    entries: Mapping[str, Mapping[str, str]], hashes: Callable[[Path], str | None] | None = None
) -> list[tuple[str, str, str | None]]:
    """``(role, recorded sha, current sha or None when missing)`` for files that differ now.

    ``hashes`` (a :class:`FileHashes`) shares file reads across calls.
    """
    hashes = hashes or FileHashes()
    changed = []
    for role, entry in sorted(entries.items()):
        current = hashes(located(entry["path"]))
        if current != entry["sha256"]:
            changed.append((role, entry["sha256"], current))
    return changed
