"""Job manifests: the one interface between a rule and its step.

Every rule runs ``clineval step <name> --manifest FILE``. The manifest, a JSON object written
from the plan's jobs (:func:`clineval.workflow.plan.jobs.plan_jobs`) when the workflow starts, names
the step and the job's files: its cells' identity files, inputs, outputs and provenance records,
by the same paths the rule declares as its outputs. :data:`FIELDS` says what each step's
manifest holds (each step declares its own); :func:`read_manifest` checks a manifest against it
before the step runs. Other fields (``model``, ``benchmark``, each entry's ``cell``, ...) name
the job for a reader.

A job's manifest is ``<results>/jobs/<step>/<job>.json`` (:meth:`Plan.manifest_file`), an input
of its rule. :func:`write_manifests` rewrites one only when its content changed, so its time
stamp, which Snakemake compares with the job's outputs, moves only when the job's files do.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from clineval.errors import DataError
from clineval.io import read_json, write_if_changed
from clineval.workflow.plan.jobs import steps
from clineval.workflow.plan.jobs.job import Job

#: Per step, its manifest's fields: ``path`` (a file or folder), ``path?`` (a path or null),
#: ``text``, ``flag`` (true or false), ``named`` (name -> path), ``[kind]`` (a list), or an
#: object with fields of its own.
FIELDS: dict[str, dict[str, Any]] = {declared.name: declared.fields for declared in steps()}


# -- reading ------------------------------------------------------------------------------------
def read_manifest(path: Path, step: str) -> dict[str, Any]:
    """The fields :data:`FIELDS` lists for ``step``, read from the manifest at ``path`` (paths
    as :class:`~pathlib.Path`); a manifest of another step, or a field that is missing or of
    another kind, is a :class:`DataError` naming the file and the field."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise DataError(path, None, None, "expected a job manifest (a JSON object)")
    if data.get("step") != step:
        raise DataError(path, None, "step", f"expected {step!r}, found {data.get('step')!r}")
    return _read(path, "", FIELDS[step], data)


def _read(path: Path, field: str, kind: Any, value: Any) -> Any:
    """``value`` of the manifest's ``field`` as ``kind`` (see :data:`FIELDS`) says."""
    if isinstance(kind, dict):
        if not isinstance(value, dict):
            raise _expected(path, field, "an object", value)
        inner = {name: f"{field}.{name}" if field else name for name in kind}
        for name, where in inner.items():
            if name not in value:
                raise DataError(path, None, where, "missing from the job manifest")
        return {name: _read(path, inner[name], sub, value[name]) for name, sub in kind.items()}
    if isinstance(kind, list):
        if not isinstance(value, list):
            raise _expected(path, field, "a list", value)
        return [_read(path, f"{field}[{i}]", kind[0], item) for i, item in enumerate(value)]
    if kind == "named":
        if not isinstance(value, dict):
            raise _expected(path, field, "an object of names and paths", value)
        return {name: _read(path, f"{field}.{name}", "path", item)
                for name, item in value.items()}
    if kind == "path?" and value is None:
        return None
    if kind in ("path", "path?"):
        if not isinstance(value, str) or not value:
            raise _expected(path, field, "a path", value)
        return Path(value)
    if not isinstance(value, {"text": str, "flag": bool}[kind]):
        raise _expected(path, field, "text" if kind == "text" else "true or false", value)
    return value


def _expected(path: Path, field: str, what: str, value: Any) -> DataError:
    return DataError(path, None, field, f"expected {what}, found {json.dumps(value)[:80]}")


# -- writing ------------------------------------------------------------------------------------
def manifest_text(manifest: dict[str, Any]) -> str:
    """A manifest as written: fields in the order made (a table's cells, the report's tables)."""
    return json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"


def write_manifests(jobs: Iterable[Job]) -> int:
    """Write every job's manifest whose content changed (atomically); return how many."""
    return sum(write_if_changed(Path(job.manifest_file), manifest_text(job.manifest))
               for job in jobs)
