"""Entry points the Snakemake rules call. Each reads its settings from an identity file."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clineval.benchmarks import get_benchmark
from clineval.benchmarks.base.headline import find
from clineval.config import slices
from clineval.io import (
    DataError,
    json_text,
    read_identity,
    read_json,
    read_jsonl,
    write_bytes,
    write_json,
    write_jsonl,
    write_text,
)
from clineval.progress import progress
from clineval.provenance.location import located
from clineval.provenance.manifest import environment
from clineval.provenance.record import (
    FileHashes,
    data_access,
    make_record,
    prov_path,
    write_record,
)
from clineval.tables.format import (
    RECORDED_MARK,
    SLICE_MARK,
    reading_note,
    recorded_note,
    sizes_text,
    slice_note,
)
from clineval.tables.leaderboard import LAYOUT as LEADERBOARD
from clineval.tables.leaderboard import build_leaderboard
from clineval.workflow.plan.code_changes import record_code

log = logging.getLogger("clineval")


def _task_from_data(ident: dict[str, Any]) -> dict[str, Any]:
    return {"data": ident["data"], "exemplars": ident["exemplars"], "version": ident["version"]}


def derive(
    identity: Path, examples_out: Path, exemplars_out: Path, record_out: Path,
    write_demo: bool = False,
) -> None:
    """Official (or demo) files -> examples.jsonl and exemplars.jsonl with stable ids;
    ``write_demo``: first write the task's synthetic demo sources."""
    sha, ident = read_identity(identity)
    bench = get_benchmark(ident["benchmark"])
    sources = {k: Path(v["path"]) for k, v in ident["sources"].items()}
    if write_demo:
        bench.write_demo(_task_from_data(ident), sources)
    examples, exemplars = bench.derive(_task_from_data(ident), sources)
    ids = [e["id"] for e in examples]
    if len(set(ids)) != len(ids):
        raise DataError(sources.get("csv", "<sources>"), None, "id", "example ids are not unique")
    for exemplar in exemplars:
        if exemplar.get("replaced"):
            log.info("exemplar %s replaces %s, whose note is a test note",
                     exemplar["id"], exemplar["replaced"])
        if exemplar.get("same_note_as"):
            log.warning(
                "exemplar %s has the same note as evaluated example(s) %s; the task setting "
                "exemplars.replace_leaked=true uses the project's own exemplar instead",
                exemplar["id"],
                ", ".join(exemplar["same_note_as"]),
            )
    write_jsonl(exemplars_out, exemplars)
    write_jsonl(examples_out, examples)
    record = make_record(
        "data", ident["task"], sha, sources,
        {"examples": examples_out, "exemplars": exemplars_out},
        ident["credentialed"],
        demo=ident["data"].get("source") == "demo",
        counts={"examples": len(examples), "exemplars": len(exemplars)},
    )
    write_record(record_out, record)
    record_code(identity, ident)
    log.info("derived %d examples and %d exemplars", len(examples), len(exemplars))


def build_model(identity: Path, out_dir: Path, record_out: Path) -> None:
    """Build the model folder a config describes: a GGUF file prepared for transformers (from
    the model cache when it was prepared before), or the tiny random-weights smoke model."""
    from clineval.inference import gguf_model, tiny_model

    sha, ident = read_identity(identity)
    extra: dict[str, Any] = {}
    if gguf_model.is_gguf(ident["build"]):
        prepared = gguf_model.prepare(ident["build"], out_dir)
        if prepared["gguf_sha256"] != ident["gguf"]["sha256"]:
            raise DataError(identity, None, "gguf", f"the GGUF file now has sha256 "
                            f"{prepared['gguf_sha256']}, the plan hashed "
                            f"{ident['gguf']['sha256']}: run the workflow again")
        extra["prepared"] = prepared
        log.info("prepared %s (sha256 %s) into %s", prepared["gguf"],
                 prepared["gguf_sha256"][:16], out_dir)
    else:
        tiny_model.build(ident["build"], out_dir)
    files = {p.name: p for p in sorted(out_dir.iterdir()) if p.is_file() and p != record_out}
    write_record(record_out, make_record("model", ident["model"], sha, {}, files, False,
                                         **extra))


def derive_scoring_inputs(jobs: list[tuple[Path, Path, Path]]) -> None:
    """Build the files a benchmark derives from its scoring inputs (CliBench's title
    embeddings), one ``(identity, out, record)`` each, before any of its scoring jobs; the
    named inputs are checked against the hashes the plan saw."""
    hashes = FileHashes()
    for identity, out, record_out in progress(jobs, "scoring inputs", unit="files"):
        sha, ident = read_identity(identity)
        inputs = checked_inputs(ident, hashes)
        kept = get_benchmark(ident["benchmark"]).derive_scoring_input(
            ident["role"], ident["settings"], inputs, out)
        write_record(record_out, make_record(
            "scoring_input", f"{ident['task']}/{ident['role']}", sha, inputs,
            {ident["role"]: out}, ident["credentialed"], hashes=hashes, details=kept))
        record_code(identity, ident)
        log.info("%s: %s of task %s written", out, ident["role"], ident["task"])


def with_prompts(generations: list[dict[str, Any]], requests: list[dict[str, Any]],
                 where: Path) -> list[dict[str, Any]]:
    """Each generation with the chat ``messages`` of its request: a benchmark's scoring may
    read what the prompt showed (:mod:`clineval.metrics.copying`)."""
    messages = {r["id"]: r["messages"] for r in requests}
    missing = [g["id"] for g in generations if g["id"] not in messages]
    if missing:
        raise DataError(where, None, "id", f"no request for generation(s) {missing[:10]}")
    return [{**g, "messages": messages[g["id"]]} for g in generations]


def mark_copies(bench: Any, examples: list[dict[str, Any]],
                generations: list[dict[str, Any]], rows: list[dict[str, Any]]) -> None:
    """Set each row's ``copied``: the text of the prompt its output copies
    (:func:`clineval.metrics.copying.find_copy` over the texts of the example the prompt shows,
    the benchmark's ``prompt_inputs``; the question it ``restated_texts`` is no copy), or
    None. A row whose benchmark already decided it keeps
    the benchmark's finding."""
    from clineval.metrics import copying

    by_id = {e["id"]: e for e in examples}
    sent = {g["id"]: g for g in generations}
    for row in rows:
        generation = sent.get(row["id"])
        if "copied" in row or generation is None or "messages" not in generation:
            continue
        prompt = copying.Prompt.of(generation["messages"])
        example = by_id.get(row["id"], {})
        found = copying.find_copy(generation["output"], prompt,
                                  bench.prompt_inputs(example, prompt.user),
                                  restated=bench.restated_texts(example))
        row["copied"] = found.as_dict() if found else None


def scored_cell(
    sha: str, ident: dict[str, Any], examples: list[dict[str, Any]],
    generations: list[dict[str, Any]], where: Path, inputs: dict[str, Path],
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Per-example score rows and the cell's summary document (``where`` names errors); the
    benchmark reads its scoring ``inputs`` (role -> checked path) from the task's ``inputs``,
    and where its judge models load from (name -> ``dir``) from the task's ``judges``; the
    mode's settings are the task's ``mode`` where its scoring identity holds them. A cell on
    a slice of its task (``slice``) scores the examples of that slice."""
    examples = slices.take(examples, ident)
    missing = sorted({e["id"] for e in examples} - {g["id"] for g in generations})
    if missing:
        raise DataError(where, None, "id", f"no generation for example(s) {missing[:10]}")
    bench = get_benchmark(ident["benchmark"])
    task = {**ident["task"], "inputs": {role: str(path) for role, path in inputs.items()},
            "judges": ident.get("judges") or {},
            **({"mode": ident["mode"]} if "mode" in ident else {})}
    rows, summary = bench.score(task, examples, generations)
    mark_copies(bench, examples, generations, rows)
    model, task, mode = ident["cell"].split("/")
    document = {"cell": ident["cell"], "model": model, "task": task, "mode": mode,
                "scoring_identity": sha, "summary": summary}
    return rows, document


@dataclass(frozen=True)
class ScoreJob:
    """One cell's files in a scoring job."""

    identity: Path
    examples: Path
    requests: Path
    generations: Path
    rows: Path
    summary: Path
    record: Path


def checked_inputs(ident: dict[str, Any], hashes: FileHashes) -> dict[str, Path]:
    """The scoring inputs the identity declares, each still with the hash the plan saw; one
    the workflow derived (its entry names an ``identity``) made for that identity."""
    files = {}
    for role, entry in ident.get("inputs", {}).items():
        path = located(entry["path"])
        current = hashes(path)
        if entry.get("identity") is not None:
            _check_derived(path, role, entry["identity"])
        elif entry["sha256"] is None and current is not None:
            pass  # a demo source the workflow wrote: its record keeps the hash read now
        elif current != entry["sha256"]:
            state = "is missing" if current is None else f"has sha256 {current[:16]}"
            raise DataError(path, None, role, f"{state}, but the plan hashed "
                            f"{entry['sha256'][:16]}: the file changed after the workflow "
                            "started; run snakemake again")
        files[role] = path
    return files


def _check_derived(path: Path, role: str, identity: str) -> None:
    """A derived scoring input exists and its record names ``identity``."""
    record_path = prov_path(path)
    built = read_json(record_path).get("identity") if record_path.is_file() else None
    if not path.is_file() or built != identity:
        state = "is missing" if not path.is_file() or built is None else (
            f"was built for identity {str(built)[:16]}")
        raise DataError(path, None, role, f"{state}, but the plan expects identity "
                        f"{identity[:16]}: run snakemake again")


def score(jobs: list[ScoreJob]) -> None:
    """Extract answers and score them: per-example rows and a summary for each cell.

    One process scores all of a model's cells of a benchmark, so encoders, ontologies and
    label maps load once; the environment is collected once.
    """
    env = environment()
    hashes = FileHashes()
    for job in progress(jobs, "scoring", unit="cells"):
        sha, ident = read_identity(job.identity)
        exs = read_jsonl(job.examples, ("id",))
        gens = with_prompts(read_jsonl(job.generations, ("id", "output")),
                            read_jsonl(job.requests, ("id", "messages")), job.requests)
        inputs = checked_inputs(ident, hashes)
        rows, document = scored_cell(sha, ident, exs, gens, job.generations, inputs)
        write_jsonl(job.rows, rows)
        write_json(job.summary, document)
        record = make_record(
            "scores", ident["cell"], sha,
            {"examples": job.examples, "requests": job.requests, "generations": job.generations,
             **inputs},
            {"rows": job.rows, "summary": job.summary}, ident["credentialed"],
            hashes=hashes, environment=env, **data_access(ident),
        )
        write_record(job.record, record)
        record_code(job.identity, ident)
        log.info("%s: %d rows scored", ident["cell"], len(rows))


def rows_path(summary: Path) -> Path:
    """The per-example rows beside a cell's score summary (``<mode>.json`` -> ``.jsonl``)."""
    return summary.with_suffix(".jsonl")


def metric_label(bench: Any, metric: str) -> str:
    """A headline metric as the tables name it: its declared label, after the part a leading
    ``*.`` of its declaration stands for (``chest accuracy``); the name where none is declared."""
    found = find(bench.metrics, metric)
    if found is None:
        return metric
    if found.name.startswith("*."):
        return f"{metric[:len(metric) - len(found.name) + 1]} {found.label}"
    return found.label


def literal_differences(bench: Any, cells: list[dict[str, Any]], tasks: dict[str, Any]
                        ) -> list[tuple[str, str, float, float]]:
    """Where a cell's headline under the paper's literal reading (its summary's ``literal``)
    differs from the one shown: (model, task where the table shows several, and mode; the
    metric's label, shown value, literal value)."""
    several = len({cell["task"] for cell in cells}) > 1
    found = []
    for cell in cells:
        task = f" {tasks[cell['task']]['display_name']}" if several else ""
        literal = cell["summary"].get("literal")
        if literal is None:
            continue
        shown, other = bench.headline(cell["summary"]), bench.headline(literal)
        for metric, value in sorted(shown.items()):
            if value is not None and other.get(metric) is not None and other[metric] != value:
                found.append((f"{cell['display_name']}{task} {cell['mode']}",
                              metric_label(bench, metric), float(value), float(other[metric])))
    return found


def _slice_sizes(cells: list[dict[str, Any]], tasks: dict[str, Any], model: str) -> str:
    """The examples a sliced model's cells of a table scored (:func:`sizes_text`): per mode
    where the table shows one task, else per task."""
    own = [cell for cell in cells if cell["model"] == model]
    part = "mode" if len({cell["task"] for cell in own}) == 1 else "task"
    found: dict[str, list[int]] = {}
    for cell in own:
        name = cell["mode"] if part == "mode" else (tasks[cell["task"]].get("display_name")
                                                    or cell["task"])
        found.setdefault(name, []).append(cell["summary"]["n"])
    return sizes_text(found, "examples", part)


def table_texts(
    ident: dict[str, Any],
    summaries: list[dict[str, Any]],
    rows: dict[str, list[dict[str, Any]]],
) -> dict[str, str]:
    """A table's CSV, Markdown and LaTeX text, its statistics (JSON and Markdown), the cells
    behind each of its values (JSON, :func:`clineval.tables.render.to_sources`) and its
    headline numbers (JSON) from the score summaries and per-example ``rows`` (by cell) of its
    cells; the layout sees the rows when the spec sets ``rows: true``."""
    from clineval.tables import statistics
    from clineval.tables.render import to_csv, to_latex, to_markdown, to_sources
    from clineval.workflow.steps.statistics import table_statistics

    by_cell = {summary["cell"]: summary for summary in summaries}
    cells = []
    for path in ident["cells"]:
        if path not in by_cell:
            raise DataError(
                path, None, None, "the table's cell has no score summary among the inputs"
            )
        scored = by_cell[path]
        shown = ident["models"][scored["model"]]
        cells.append(
            {
                **scored,
                "display_name": shown["display_name"] + (SLICE_MARK if shown.get("sliced")
                                                         else "")
                + (RECORDED_MARK if shown.get("recorded") else ""),
                "size": shown["size"],
                "smoke": bool(shown["smoke"]),
            }
            | ({"rows": rows[path]} if ident["spec"].get("rows") else {})
        )
    tasks = ident["tasks"]
    benchmarks = {name: task["benchmark"] for name, task in tasks.items()}
    metrics = {cell["cell"]: get_benchmark(benchmarks[cell["task"]]).headline(cell["summary"])
               for cell in cells}
    resolved = ident["statistics"]
    boot = statistics.bootstrap_of(resolved)
    stats, draws = table_statistics([{**c, "rows": rows[c["cell"]]} for c in cells], tasks,
                                    metrics, resolved, boot)
    spec = statistics.layout_spec(ident["spec"], resolved["uncertainty"], boot.level)
    if "interval_level" in spec:
        cells = [{**c, "intervals": stats["cells"][c["cell"]]["metrics"]} for c in cells]
    if spec["layout"] == LEADERBOARD:
        parts = {c["cell"]: {key: get_benchmark(benchmarks[c["task"]]).headline_source(
            key, c["summary"]) for key in metrics[c["cell"]]} for c in cells}
        built = build_leaderboard(spec, cells, metrics, benchmarks, draws, boot.level, parts)
    else:
        built = get_benchmark(next(iter(benchmarks.values()))).table(spec, cells, tasks)
    sliced = {m["display_name"]: _slice_sizes(cells, tasks, name)
              for name, m in sorted(ident["models"].items()) if m.get("sliced")}
    if sliced:
        built.notes.append(slice_note(sliced))
    recorded = [(m["display_name"], f["file"], f["sha256"])  # a file per task: a list of them
                for _, m in sorted(ident["models"].items()) if m.get("recorded")
                for f in (m["recorded"] if isinstance(m["recorded"], list) else [m["recorded"]])]
    if recorded:
        built.notes.append(recorded_note(recorded))
    for bench_name in sorted(set(benchmarks.values())):
        shown = [c for c in cells if benchmarks[c["task"]] == bench_name]
        note = reading_note(get_benchmark(bench_name).literal_reading,
                            literal_differences(get_benchmark(bench_name), shown, tasks))
        if note:
            built.notes.append(note)
    return {"csv": to_csv(built), "md": to_markdown(built), "tex": to_latex(built),
            "stats": json_text(stats),
            "stats_md": statistics.markdown(spec["title"], stats, resolved["uncertainty"]),
            "cells": to_sources(built),
            "metrics": json.dumps(metrics, indent=2, sort_keys=True) + "\n"}


def table(
    identity: Path,
    summaries: list[Path],
    outputs: Mapping[str, Path],
    record_out: Path,
) -> None:
    """Build one table from the summaries and per-example rows of its cells; ``outputs``: its
    file of each format (``csv``, ``md``, ``tex``, ``stats``, ``stats_md``, ``metrics``)."""
    sha, ident = read_identity(identity)
    files = {path: read_json(path) for path in summaries}
    inputs = {summary["cell"]: path for path, summary in files.items()}
    rows = {cell: read_jsonl(rows_path(path), ("id",)) for cell, path in inputs.items()}
    inputs |= {f"{cell}:rows": rows_path(path) for cell, path in list(inputs.items())}
    texts = table_texts(ident, list(files.values()), rows)
    named = {fmt: outputs[fmt] for fmt in texts}
    for fmt, text in texts.items():
        write_text(named[fmt], text)
    write_record(record_out, make_record(
        "table", ident["table"], sha, inputs, named, ident["credentialed"]))
    record_code(identity, ident)


def figure(identity: Path, tables: list[Path], outputs: Mapping[str, Path],
           record_out: Path) -> None:
    """Draw one figure from its tables' CSV and statistics files; ``outputs``: its file of
    each format (``png``, ``svg``)."""
    from clineval.figures.data import read_tables
    from clineval.figures.draw import render

    sha, ident = read_identity(identity)
    drawn = render(ident, read_tables(tables))
    named = {fmt: outputs[fmt] for fmt in drawn}
    for fmt, data in drawn.items():
        write_bytes(named[fmt], data)
    write_record(record_out, make_record(
        "figure", ident["figure"], sha, {p.name: p for p in tables}, named,
        ident["credentialed"]))
    record_code(identity, ident)


# What ``clineval step NAME`` runs on a job's manifest (each step's ``run``).
def derive_job(job: Mapping[str, Any]) -> None:
    derive(job["identity"], job["examples"], job["exemplars"], job["record"], job["demo"])


def build_model_job(job: Mapping[str, Any]) -> None:
    build_model(job["identity"], job["out"], job["record"])


def scoring_inputs_job(job: Mapping[str, Any]) -> None:
    derive_scoring_inputs([(i["identity"], i["out"], i["record"]) for i in job["inputs"]])


def score_job(job: Mapping[str, Any]) -> None:
    score([ScoreJob(**cell) for cell in job["cells"]])


def table_job(job: Mapping[str, Any]) -> None:
    table(job["identity"], job["summaries"], job["outputs"], job["record"])


def figure_job(job: Mapping[str, Any]) -> None:
    figure(job["identity"], job["tables"], job["outputs"], job["record"])
