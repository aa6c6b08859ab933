"""Job manifests: the one interface between a rule and its step.

Every rule runs ``clineval step <name> --manifest FILE``. The manifest, a JSON object written
from the :class:`~clineval.workflow.plan.layout.Plan` when the workflow starts, names the step and
the job's files: its cells' identity files, inputs, outputs and provenance records, by the same
plan paths the rule declares as its outputs. :data:`FIELDS` says what each step's manifest
holds; :func:`read_manifest` checks a manifest against it before the step runs. Other fields
(``model``, ``benchmark``, each entry's ``cell``, ...) name the job for a reader.

A job's manifest is ``<results>/jobs/<step>/<job>.json`` (:meth:`Plan.manifest_file`), an input
of its rule. :func:`write_manifests` rewrites one only when its content changed, so its time
stamp, which Snakemake compares with the job's outputs, moves only when the job's files do.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clineval.errors import DataError
from clineval.io import read_json, write_if_changed
from clineval.workflow.plan.grades import report_grades

if TYPE_CHECKING:
    from clineval.workflow.plan.layout import Cell, Plan

#: A table's files by format, in the order of :meth:`Plan.table_outputs`.
TABLE_FILES = ("csv", "md", "tex", "stats", "stats_md", "cells")
#: A figure's files by format, in the order of :meth:`Plan.figure_outputs`.
FIGURE_FILES = ("png", "svg")
#: An export's files, in the order of :meth:`Plan.export_outputs`.
EXPORT_FILES = ("json", "jsonl")

#: Per step, its manifest's fields: ``path`` (a file or folder), ``path?`` (a path or null),
#: ``text``, ``flag`` (true or false), ``named`` (name -> path), ``[kind]`` (a list), or an
#: object with fields of its own.
FIELDS: dict[str, dict[str, Any]] = {
    "derive": {"demo": "flag", "identity": "path", "examples": "path", "exemplars": "path",
               "record": "path"},
    "build-model": {"identity": "path", "out": "path", "record": "path"},
    "requests": {"model_dir": "path?", "cells": [{
        "identity": "path", "examples": "path", "exemplars": "path", "out": "path",
        "record": "path"}]},
    "generate": {"shard": "text", "model_dir": "path?", "summary": "path", "cells": [{
        "identity": "path", "requests": "path", "out": "path", "meta": "path", "cache": "path",
        "examples": "path?"}]},
    "merge-shards": {"requests": "path", "out": "path", "meta": "path",
                     "shards": [{"generations": "path", "meta": "path"}]},
    "score": {"cells": [{
        "identity": "path", "examples": "path", "requests": "path", "generations": "path",
        "rows": "path",
        "summary": "path", "record": "path"}]},
    "scoring-inputs": {"inputs": [{"identity": "path", "out": "path", "record": "path"}]},
    "table": {"identity": "path", "summaries": ["path"],
              "outputs": dict.fromkeys((*TABLE_FILES, "metrics"), "path"), "record": "path"},
    "figure": {"identity": "path", "tables": ["path"],
               "outputs": dict.fromkeys(FIGURE_FILES, "path"), "record": "path"},
    "report": {"identity": "path", "tables": "named", "figures": "named", "cells": "named",
               "grades": ["path"], "graded": [{"cell": "text", "identity": "path",
                                               "examples": "path", "generations": "path",
                                               "rows": "path"}],
               "out": "path", "record": "path"},
    "examples": {"identity": "path", "cells": [{
        "cell": "text", "identity": "path", "examples": "path", "requests": "path",
        "generations": "path", "rows": "path", "out": "path"}],
        "pairs": [{"a": "text", "b": "text", "out": "path"}], "index": "path",
        "record": "path"},
    "export-eee": {"identity": "path", "cells": [{
        "summary": "path", "rows": "path", "requests": "path", "generations": "path",
        "meta": "path"}], "outputs": dict.fromkeys(EXPORT_FILES, "path"), "record": "path"},
}


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
def _optional(path: Path | None) -> str | None:
    return None if path is None else str(path)


def derive(plan: Plan, task: str) -> dict[str, Any]:
    """The task's data job: its sources (a demo task writes them first) -> derived files."""
    derived = plan.derived(task)
    return {"step": "derive", "task": task,
            "demo": plan.cfg["tasks"][task]["data"].get("source") == "demo",
            "identity": str(plan.identity_file("data", task)),
            "examples": str(derived["examples"]), "exemplars": str(derived["exemplars"]),
            "record": str(plan.record_file("data", task))}


def build_model(plan: Plan, model: str) -> dict[str, Any]:
    """The job that builds a model (or judge) with ``build`` settings into its folder."""
    return {"step": "build-model", "model": model,
            "identity": str(plan.identity_file("models", model)),
            "out": str(plan.build_dir(model)), "record": str(plan.record_file("model", model))}


def requests(plan: Plan, model: str, benchmark: str) -> dict[str, Any]:
    """The requests job of a model's cells of a benchmark; ``model_dir``: the tokenizer that
    fits them to the context of a model with a ``context`` block (else null)."""
    context = plan.cfg["models"][model].get("context")
    return {"step": "requests", "model": model, "benchmark": benchmark,
            "model_dir": _optional(plan.model_dir(model) if context else None),
            "cells": [{"cell": c.path,
                       "identity": str(plan.identity_file(c.model, c.task, c.mode, "requests")),
                       "examples": str(plan.derived(c.task)["examples"]),
                       "exemplars": str(plan.derived(c.task)["exemplars"]),
                       "out": str(plan.artifact("requests", c)),
                       "record": str(plan.record_file("requests", c.path))}
                      for c in plan.cells_of_group(model, benchmark)]}


def generate(plan: Plan, model: str, k: int, cache: Path) -> dict[str, Any]:
    """Generation job ``k`` of the model (:meth:`Plan.generation_outputs`); each cell appends
    to its file of the generation ``cache`` (shared by every grid; one file per shard), and a
    baseline also reads the task's examples."""
    count = plan.shards(model)
    generations, metas, summary = plan.generation_outputs(model, k)
    baseline = plan.backend(model).baseline
    suffix = ".jsonl" if count == 1 else f".shard-{k}-of-{count}.jsonl"
    return {"step": "generate", "model": model, "shard": f"{k}/{count}",
            "model_dir": _optional(plan.model_dir(model)), "summary": str(summary),
            "cells": [{"cell": c.path,
                       "identity": str(plan.identity_file(c.model, c.task, c.mode, "generation")),
                       "requests": str(plan.artifact("requests", c)),
                       "out": str(out), "meta": str(meta),
                       "cache": str(cache / f"{c.path}{suffix}"),
                       "examples": str(plan.derived(c.task)["examples"]) if baseline else None}
                      for c, out, meta in zip(plan.cells_of(model), generations, metas,
                                              strict=True)]}


def merge_shards(plan: Plan, cell: Cell, shards: list[tuple[Path, Path]]) -> dict[str, Any]:
    """The job that joins a cell's ``shards`` (generations, metadata) into its artifacts."""
    return {"step": "merge-shards", "cell": cell.path,
            "requests": str(plan.artifact("requests", cell)),
            "out": str(plan.artifact("generations", cell)),
            "meta": str(plan.artifact("generations", cell, ".meta.json")),
            "shards": [{"generations": str(gen), "meta": str(meta)} for gen, meta in shards]}


def score(plan: Plan, model: str, benchmark: str) -> dict[str, Any]:
    """The scoring job of a model's cells of a benchmark."""
    return {"step": "score", "model": model, "benchmark": benchmark,
            "cells": [{"cell": c.path,
                       "identity": str(plan.identity_file(c.model, c.task, c.mode, "scoring")),
                       "examples": str(plan.derived(c.task)["examples"]),
                       "requests": str(plan.artifact("requests", c)),
                       "generations": str(plan.artifact("generations", c)),
                       "rows": str(plan.artifact("scores", c)),
                       "summary": str(plan.artifact("scores", c, ".json")),
                       "record": str(plan.record_file("scores", c.path))}
                      for c in plan.cells_of_group(model, benchmark)]}


def scoring_inputs(plan: Plan, benchmark: str) -> dict[str, Any]:
    """The job that derives the benchmark's files from its scoring inputs."""
    return {"step": "scoring-inputs", "benchmark": benchmark,
            "inputs": [{"task": task, "role": role,
                        "identity": str(plan.identity_file("inputs", task, role)),
                        "out": str(path),
                        "record": str(plan.record_file("scoring_input", f"{task}/{role}"))}
                       for task, role, path in plan.derived_input_files(benchmark)]}


def table(plan: Plan, name: str) -> dict[str, Any]:
    """A table's job: its cells' summaries (their rows beside them) -> its files."""
    outputs = {**dict(zip(TABLE_FILES, plan.table_outputs(name), strict=True)),
               "metrics": plan.metrics_file(name)}
    return {"step": "table", "table": name,
            "identity": str(plan.identity_file("tables", name)),
            "summaries": [str(plan.artifact("scores", c, ".json")) for c in plan.tables[name]],
            "outputs": {fmt: str(path) for fmt, path in outputs.items()},
            "record": str(plan.record_file("table", name))}


def figure(plan: Plan, name: str) -> dict[str, Any]:
    """A figure's job: its tables' CSV and statistics -> PNG and SVG."""
    outputs = zip(FIGURE_FILES, plan.figure_outputs(name), strict=True)
    return {"step": "figure", "figure": name,
            "identity": str(plan.identity_file("figures", name)),
            "tables": [str(p) for p in plan.figure_inputs(name)],
            "outputs": {fmt: str(path) for fmt, path in outputs},
            "record": str(plan.record_file("figure", name))}


def report(plan: Plan) -> dict[str, Any]:
    """The report's job: each table's Markdown and cells behind its values and each figure's
    PNG (and, with ``report.grades``, the graders' files and the report's cells) -> the HTML
    page."""
    tables, figures = plan.report_sources()
    grades, graded = report_grades(plan)
    return {"step": "report", "identity": str(plan.identity_file("report", "index")),
            "tables": {name: str(path) for name, path in tables.items()},
            "figures": {name: str(path) for name, path in figures.items()},
            "cells": {name: str(path) for name, path in plan.report_links().items()},
            "grades": [str(p) for p in grades],
            "graded": [{"cell": c.cell, "identity": str(c.identity), "examples": str(c.examples),
                        "generations": str(c.generations), "rows": str(c.rows)}
                       for c in graded],
            "out": str(plan.report_file()), "record": str(plan.record_file("report", "index"))}


def examples(plan: Plan) -> dict[str, Any]:
    """The explorer's job: every cell's examples, requests, generations and score rows -> a
    page per cell, per compared pair and their index."""
    return {"step": "examples", "identity": str(plan.identity_file("report", "examples")),
            "cells": [{"cell": c.path,
                       "identity": str(plan.identity_file(c.model, c.task, c.mode, "scoring")),
                       "examples": str(plan.derived(c.task)["examples"]),
                       "requests": str(plan.artifact("requests", c)),
                       "generations": str(plan.artifact("generations", c)),
                       "rows": str(plan.artifact("scores", c)),
                       "out": str(plan.example_page(c))} for c in plan.example_cells()],
            "pairs": [{"a": a.path, "b": b.path, "out": str(plan.pair_page(a, b))}
                      for a, b in plan.example_pairs()],
            "index": str(plan.example_outputs()[-1]),
            "record": str(plan.record_file("examples", "index"))}


def export_eee(plan: Plan, model: str, task: str) -> dict[str, Any]:
    """A model's Every Eval Ever export of a task: its cells' files -> the aggregate document
    and the instance records."""
    outputs = zip(EXPORT_FILES, plan.export_outputs(model, task), strict=True)
    return {"step": "export-eee", "model": model, "task": task,
            "identity": str(plan.identity_file("export-eee", model, task)),
            "cells": [{"cell": c.path,
                       "summary": str(plan.artifact("scores", c, ".json")),
                       "rows": str(plan.artifact("scores", c)),
                       "requests": str(plan.artifact("requests", c)),
                       "generations": str(plan.artifact("generations", c)),
                       "meta": str(plan.artifact("generations", c, ".meta.json"))}
                      for c in plan.export_cells(model, task)],
            "outputs": {fmt: str(path) for fmt, path in outputs},
            "record": str(plan.record_file("export", f"{model}/{task}"))}


def manifests(plan: Plan, cache: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Every job's manifest of the plan, with its file; ``cache``: the generation cache."""
    for kind, step, make in (("data", "derive", derive), ("models", "build-model", build_model)):
        for key in plan.identities:
            head, _, name = key.partition("/")
            if head == kind and "/" not in name:
                yield plan.manifest_file(step, name), make(plan, name)
    for bench in plan.benchmarks:
        if plan.derived_input_files(bench):
            yield plan.manifest_file("scoring-inputs", bench), scoring_inputs(plan, bench)
    for model, bench in plan.groups():
        yield plan.manifest_file("requests", model, bench), requests(plan, model, bench)
        yield plan.manifest_file("score", model, bench), score(plan, model, bench)
    for model in sorted({c.model for c in plan.cells}):
        count = plan.shards(model)
        parts = [plan.generation_outputs(model, k) for k in range(1, count + 1)]
        for k in range(1, count + 1):
            yield (plan.manifest_file("generate", model, f"{k}-of-{count}"),
                   generate(plan, model, k, cache))
        for i, cell in enumerate(plan.cells_of(model) if count > 1 else ()):
            yield (plan.manifest_file("merge-shards", cell.path),
                   merge_shards(plan, cell, [(gen[i], meta[i]) for gen, meta, _ in parts]))
    for name in plan.tables:
        yield plan.manifest_file("table", name), table(plan, name)
    for name in plan.figures:
        yield plan.manifest_file("figure", name), figure(plan, name)
    if "report/index" in plan.identities:
        yield plan.manifest_file("report", "index"), report(plan)
    if "report/examples" in plan.identities:
        yield plan.manifest_file("examples", "index"), examples(plan)
    for model, task in plan.export_groups():
        yield plan.manifest_file("export-eee", model, task), export_eee(plan, model, task)


def manifest_text(manifest: dict[str, Any]) -> str:
    """A manifest as written: fields in the order made (a table's cells, the report's tables)."""
    return json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"


def write_manifests(plan: Plan, cache: Path) -> int:
    """Write every job's manifest whose content changed (atomically); return how many."""
    return sum(write_if_changed(path, manifest_text(manifest))
               for path, manifest in manifests(plan, cache))
