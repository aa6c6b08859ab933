"""Exports of finished cells (docs/export.md): the ``export-eee`` step the ``export_eee`` rule
runs, and ``clineval export eee``, which writes the same documents for a plan's scored cells
into the Every Eval Ever datastore's layout.

An export reads the score summaries and rows, the requests and generations of a model's cells
of a task, and recomputes each cell's bootstrap intervals with the code and settings of the
cell's table (:mod:`clineval.workflow.steps.statistics`), so its numbers are the table's.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from clineval.benchmarks import get_benchmark
from clineval.benchmarks.base import scored_rows
from clineval.config.out_folder import writable_folder
from clineval.errors import ConfigError, DataError
from clineval.export import eee, eee_schema
from clineval.io import (
    Record,
    json_text,
    jsonl_line,
    read_identity,
    read_json,
    read_jsonl,
    write_text,
)
from clineval.provenance.record import make_record, write_record
from clineval.tables.statistics import bootstrap_of
from clineval.workflow.plan.identities import export_settings
from clineval.workflow.plan.jobs.export_eee import CELL_FILES, cell_files
from clineval.workflow.plan.layout import Plan
from clineval.workflow.steps.statistics import cell_intervals, cell_replicates

log = logging.getLogger("clineval")

def intervals(task: Record, entry: Record, summary: Record, rows: list[Record]) -> Record:
    """The cell's ``stats.json`` entry as its table computes it: n, and each headline
    metric's value and percentile bootstrap interval."""
    boot = bootstrap_of(entry)
    model, task_name, mode = entry["cell"].split("/")
    cell = {"cell": entry["cell"], "model": model, "task": task_name, "mode": mode, "rows": rows}
    draws = cell_replicates([cell], {task_name: task}, boot)
    headline = get_benchmark(task["benchmark"]).headline(summary["summary"])
    return cell_intervals([cell], {entry["cell"]: headline}, draws, boot.level)[entry["cell"]]


def read_cell(task: Record, entry: Record, files: Mapping[str, Path]) -> eee.CellInput:
    """One cell of an export from its files; a summary scored under another identity than the
    export names is an error (scores older than the plan)."""
    summary = read_json(files["summary"])
    if summary.get("scoring_identity") != entry["scoring"]:
        raise DataError(files["summary"], None, "scoring_identity",
                        f"expected {entry['scoring'][:16]} (the plan's), found "
                        f"{str(summary.get('scoring_identity'))[:16]}: score the cell first "
                        "(snakemake all_scores)")
    rows = scored_rows(read_jsonl(files["rows"], ("id",)))
    return eee.CellInput(
        entry=entry, summary=summary, rows=rows,
        requests={str(r["id"]): r for r in read_jsonl(files["requests"], ("id", "messages"))},
        generations={str(g["id"]): g for g in read_jsonl(files["generations"],
                                                         ("id", "output"))},
        meta=read_json(files["meta"]),
        intervals=intervals(task, entry, summary, rows))


def write(sha: str, ident: Record, cells: Sequence[eee.CellInput], aggregate_out: Path,
          samples_out: Path, schemas: Path | None, empty_samples: bool = True) -> list[Record]:
    """Build the export, check both documents against the Every Eval Ever schemas in
    ``schemas`` (None: no check) and write them; the instance records' file even when it has
    none only with ``empty_samples`` (the workflow's output; in the datastore the aggregate
    then names no companion file)."""
    document, records = eee.export(ident, sha, cells, str(int(time.time())))
    if schemas is not None:
        eee_schema.check_aggregate(schemas, document, aggregate_out)
        eee_schema.check_instances(schemas, records, samples_out)
    if records or empty_samples:
        write_text(samples_out, "".join(jsonl_line(r) for r in records))
    write_text(aggregate_out, json_text(document))
    return records


def export_eee(identity: Path, cells: Sequence[Mapping[str, Path]],
               outputs: Mapping[str, Path], record_out: Path) -> None:
    """The ``export-eee`` step: one model's export of a task (``outputs``: ``json``, the
    aggregate document, and ``jsonl``, the instance records) and its provenance record. The
    documents are validated when the schemas are found (:func:`eee_schema.find`)."""
    sha, ident = read_identity(identity)
    if len(cells) != len(ident["cells"]):
        raise DataError(identity, None, "cells", f"the manifest names {len(cells)} cells, the "
                        f"identity {len(ident['cells'])}")
    read = [read_cell(ident["task"], entry, files)
            for entry, files in zip(ident["cells"], cells, strict=True)]
    schemas = eee_schema.find()
    if schemas is None:
        log.info("%s: not validated (no Every Eval Ever %s schemas: %s)", outputs["json"],
                 eee_schema.VERSION, eee_schema.HOW)
    records = write(sha, ident, read, outputs["json"], outputs["jsonl"], schemas)
    inputs = {f"{entry['cell']}:{role}": files[role]
              for entry, files in zip(ident["cells"], cells, strict=True) for role in CELL_FILES}
    write_record(record_out, make_record("export", f"{ident['model_name']}/{ident['task_name']}",
                                         sha, inputs, dict(outputs), ident["credentialed"],
                                         counts={"instances": len(records)}))
    log.info("%s: %d instance records", outputs["json"], len(records))


def unscored(plan: Plan, model: str, task: str) -> list[str]:
    """The model's cells of the task whose scores are missing or older than the plan."""
    found = []
    for cell, files in zip(plan.export_cells(model, task), cell_files(plan, model, task),
                           strict=True):
        summary = files["summary"]
        current = plan.identities[f"{cell.path}/scoring"]["sha"]
        if not summary.is_file() or read_json(summary).get("scoring_identity") != current:
            found.append(cell.path)
    return found


def export_to(plan: Plan, out: Path, models: Sequence[str] | None = None,
              schemas: Path | None = None) -> tuple[list[Path], list[str]]:
    """Each (model, task) of the plan whose cells are all scored, exported into ``out`` in the
    datastore's layout (``out/data/<task>/<developer>/<model>/<uuid>.json`` and
    ``<uuid>_samples.jsonl``) and validated against the schemas in ``schemas`` (None: not
    validated); the files written, and the cells not scored."""
    written: list[Path] = []
    missing: list[str] = []
    for model, task in plan.export_groups():
        if models and model not in models:
            continue
        waiting = unscored(plan, model, task)
        if waiting:
            missing += waiting
            continue
        key = f"export-eee/{model}/{task}"
        sha, ident = plan.identities[key]["sha"], plan.identities[key]["identity"]
        files = cell_files(plan, model, task)
        cells = [read_cell(ident["task"], entry, found)
                 for entry, found in zip(ident["cells"], files, strict=True)]
        aggregate, samples = (out / path for path in eee.datastore_files(ident, sha))
        records = write(sha, ident, cells, aggregate, samples, schemas, empty_samples=False)
        written += [aggregate, samples] if records else [aggregate]
    return written, missing


def out_folder(out: str | Path, data: Path) -> Path:
    """``--out`` checked before anything is written: a folder that can be written in, whose
    ``data/`` (the datastore's layout) is not the run's data folder."""
    folder = writable_folder(out, "--out")
    if (folder / "data").resolve() == data.resolve():
        raise ConfigError(f"--out {folder}: its data/ is the run's data folder ({data}); name a "
                          "folder of the export's own")
    return folder


def run(conf: Path, overrides: list[str], out: str | Path, models: list[str] | None,
        results: Path = Path("results"), data: Path = Path("data"), validate: bool = False,
        schemas: Path | None = None) -> int:
    """``clineval export eee``: 0 when every selected cell was exported, 1 when some were not
    scored yet (the others are written). ``validate`` (or ``schemas``, a folder of the schema
    files) checks every document against the Every Eval Ever schemas (:func:`eee_schema.required`)
    before it is written."""
    from clineval.workflow.plan.build import build_plan

    target = out_folder(out, data)
    folder = eee_schema.required(schemas) if validate or schemas else None
    plan = build_plan(conf, overrides, results=results, data_root=data)
    known = sorted({model for model, _ in plan.export_groups()})
    unknown = sorted(set(models or ()) - set(known))
    if unknown:
        raise ConfigError(f"--model {', '.join(unknown)}: no cell of the grid; its models: "
                          f"{', '.join(known)}")
    written, missing = export_to(plan, target, models, folder)
    for path in written:
        print(path)
    if written and not export_settings(plan.cfg)["organization"]:
        print("clineval: export.eee.organization is not set: the records name the evaluator "
              "'unknown' (set it before sharing them; docs/export.md)", file=sys.stderr)
    if missing:
        print(f"clineval: {len(missing)} cell(s) not scored under the plan's settings, e.g. "
              f"{missing[0]}: their model x task is not exported; run snakemake all_scores "
              "first (and this command where Snakemake ran, with the same overrides)",
              file=sys.stderr)
        return 1
    return 0


def export_job(job: Mapping[str, Any]) -> None:
    """:func:`export_eee` from a job's manifest (``clineval step export-eee``)."""
    export_eee(job["identity"], job["cells"], job["outputs"], job["record"])
