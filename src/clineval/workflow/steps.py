"""Entry points the Snakemake rules call. Each reads its settings from an identity file."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from clineval.benchmarks import get_benchmark
from clineval.io import (
    DataError,
    read_identity,
    read_json,
    read_jsonl,
    write_json,
    write_jsonl,
    write_text,
)
from clineval.provenance.manifest import environment
from clineval.provenance.record import make_record, write_record

log = logging.getLogger("clineval")


def demo(identity: Path) -> None:
    """Generate a task's synthetic demo sources in the official format."""
    _, ident = read_identity(identity)
    bench = get_benchmark(ident["benchmark"])
    bench.write_demo(
        _task_from_data(ident), {k: Path(v["path"]) for k, v in ident["sources"].items()}
    )


def _task_from_data(ident: dict[str, Any]) -> dict[str, Any]:
    return {"data": ident["data"], "exemplars": ident["exemplars"], "version": ident["version"]}


def derive(identity: Path, examples_out: Path, exemplars_out: Path, record_out: Path) -> None:
    """Official (or demo) files -> examples.jsonl and exemplars.jsonl with stable ids."""
    sha, ident = read_identity(identity)
    bench = get_benchmark(ident["benchmark"])
    sources = {k: Path(v["path"]) for k, v in ident["sources"].items()}
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
    log.info("derived %d examples and %d exemplars", len(examples), len(exemplars))


def build_model(identity: Path, out_dir: Path, record_out: Path) -> None:
    """Build a model that the config describes (the tiny random-weights smoke model)."""
    from clineval.inference import tiny_model

    sha, ident = read_identity(identity)
    tiny_model.build(ident["build"], out_dir)
    files = {p.name: p for p in sorted(out_dir.iterdir()) if p.is_file() and p != record_out}
    write_record(record_out, make_record("model", ident["model"], sha, {}, files, False))


def scored_cell(
    sha: str, ident: dict[str, Any], examples: list[dict[str, Any]],
    generations: list[dict[str, Any]], where: Path,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Per-example score rows and the cell's summary document (``where`` names errors)."""
    missing = sorted({e["id"] for e in examples} - {g["id"] for g in generations})
    if missing:
        raise DataError(where, None, "id", f"no generation for example(s) {missing[:10]}")
    bench = get_benchmark(ident["benchmark"])
    rows, summary = bench.score(ident["task"], examples, generations)
    model, task, mode = ident["cell"].split("/")
    document = {"cell": ident["cell"], "model": model, "task": task, "mode": mode,
                "scoring_identity": sha, "summary": summary}
    return rows, document


def score(
    identity: Path,
    examples: Path,
    generations: Path,
    rows_out: Path,
    summary_out: Path,
    record_out: Path,
) -> None:
    """Extract answers and score them; per-example rows and the cell summary."""
    sha, ident = read_identity(identity)
    exs = read_jsonl(examples, ("id",))
    gens = read_jsonl(generations, ("id", "output"))
    rows, document = scored_cell(sha, ident, exs, gens, generations)
    write_jsonl(rows_out, rows)
    write_json(summary_out, document)
    record = make_record(
        "scores", ident["cell"], sha, {"examples": examples, "generations": generations},
        {"rows": rows_out, "summary": summary_out}, ident["credentialed"],
        environment=environment(),
    )
    write_record(record_out, record)


def table_texts(ident: dict[str, Any], summaries: list[dict[str, Any]]) -> dict[str, str]:
    """A table's CSV, Markdown and LaTeX text and its headline numbers (JSON) from the score
    summaries of its cells."""
    from clineval.tables.render import to_csv, to_latex, to_markdown

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
                "display_name": shown["display_name"],
                "size": shown["size"],
                "smoke": bool(shown["smoke"]),
            }
        )
    tasks = ident["tasks"]
    bench = get_benchmark(next(iter(tasks.values()))["benchmark"])
    built = bench.table(ident["spec"], cells, tasks)
    metrics = {cell["cell"]: bench.headline(cell["summary"]) for cell in cells}
    return {"csv": to_csv(built), "md": to_markdown(built), "tex": to_latex(built),
            "metrics": json.dumps(metrics, indent=2, sort_keys=True) + "\n"}


def table(
    identity: Path,
    summaries: list[Path],
    csv_out: Path,
    md_out: Path,
    tex_out: Path,
    metrics_out: Path,
    record_out: Path,
) -> None:
    """Build one table from the summaries of its cells."""
    sha, ident = read_identity(identity)
    files = {path: read_json(path) for path in summaries}
    outputs = {"csv": csv_out, "md": md_out, "tex": tex_out, "metrics": metrics_out}
    for fmt, text in table_texts(ident, list(files.values())).items():
        write_text(outputs[fmt], text)
    inputs = {summary["cell"]: path for path, summary in files.items()}
    write_record(record_out, make_record(
        "table", ident["table"], sha, inputs, outputs, ident["credentialed"]))
