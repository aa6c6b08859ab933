"""Time each table step's texts and statistics on built results: ``table_texts`` per table.

A table is found by its provenance record (``<results>/tables/<table>.prov.json``): its identity
file and its cells' score summaries and rows, as the table rule reads them. A revision runs
with its own ``src/`` first on ``sys.path`` (``git archive`` into a temporary directory; the
working tree's for ``--rev WORKTREE``), so a baseline is timed with its own code on the same
results. Each table runs in a fresh process, as the table rule does: its time includes what
the step imports lazily, not the interpreter's start (``--repeat N``: the best of N calls, so
without those imports). Every table's texts (CSV, Markdown, LaTeX, stats JSON and Markdown,
metrics) are hashed; with ``--baseline`` the script fails when any differs.

    python bench/table_stats.py                                   # the working tree
    python bench/table_stats.py --baseline stats --json table-stats.json
    python bench/table_stats.py --tables leaderboard medeval_table7 --repeat 3
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
WORKTREE = "WORKTREE"


def _inputs(results: Path, table: str) -> tuple[Path, list[Path]]:
    """The identity file and score summaries of a built table, from its provenance record."""
    record = json.loads((results / "tables" / f"{table}.prov.json").read_text(encoding="utf-8"))
    found = results / "identity" / "tables" / f"{table}-{record['identity'][:16]}.json"
    if not found.is_file():
        raise SystemExit(f"{found}: the identity of {table}'s provenance record is missing; "
                         "rebuild the table (snakemake all_tables)")
    summaries = [results.parent / entry["path"] for name, entry in sorted(record["inputs"].items())
                 if not name.endswith(":rows")]
    return found, summaries


def _time_tables(results: Path, tables: list[str], repeat: int) -> dict[str, Any]:
    """Worker: the best of ``repeat`` wall times of ``table_texts`` per table, and the texts'
    sha256 (run with the revision's ``src/`` first on ``sys.path``)."""
    from clineval.io import read_identity, read_json, read_jsonl
    from clineval.workflow.steps.entry import rows_path, table_texts

    out: dict[str, Any] = {}
    for table in tables:
        identity, summaries = _inputs(results, table)
        _, ident = read_identity(identity)
        files = [read_json(path) for path in summaries]
        rows = {s["cell"]: read_jsonl(rows_path(path), ("id",))
                for s, path in zip(files, summaries, strict=True)}
        times = []
        for _ in range(repeat):
            began = time.perf_counter()
            texts = table_texts(ident, files, rows)
            times.append(time.perf_counter() - began)
        out[table] = {"seconds": round(min(times), 3), "cells": len(ident["cells"]),
                      "sha256": {name: hashlib.sha256(text.encode()).hexdigest()
                                 for name, text in texts.items()}}
    return out


def _source(rev: str, work: Path) -> Path:
    """The ``src/`` of a revision (the working tree's own for ``WORKTREE``)."""
    if rev == WORKTREE:
        return ROOT / "src"
    archive = work / f"{rev.replace('/', '_')}.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", "-o", str(archive), rev,
                    "src"], check=True)
    target = work / rev.replace("/", "_")
    with tarfile.open(archive) as tar:
        tar.extractall(target, filter="data")
    return target / "src"


def run_revision(rev: str, work: Path, results: Path, tables: list[str],
                 repeat: int) -> dict[str, Any]:
    """Time ``tables`` with revision ``rev``'s code in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(_source(rev, work))}
    out = {}
    for table in tables:  # one process per table, as the table rule runs
        done = subprocess.run(
            [sys.executable, __file__, "--worker", "--results", str(results), "--repeat",
             str(repeat), "--tables", table], cwd=ROOT, env=env, capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"revision {rev}, table {table} failed:\n{done.stderr[-3000:]}")
        timed = json.loads(done.stdout)
        if Path(timed["source"]) != Path(env["PYTHONPATH"]):
            raise SystemExit(f"revision {rev} imported clineval from {timed['source']}, "
                             f"not {env['PYTHONPATH']}")
        out |= timed["tables"]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=ROOT / "results")
    parser.add_argument("--tables", nargs="+", help="default: every built table")
    parser.add_argument("--rev", default=WORKTREE, help="git revision (default: working tree)")
    parser.add_argument("--baseline", help="a git revision to time the same way, side by side")
    parser.add_argument("--repeat", type=int, default=1, help="best of N runs per table")
    parser.add_argument("--json", type=Path, help="write the measurements here")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    results = args.results.resolve()
    tables = args.tables or sorted(p.name.removesuffix(".prov.json")
                                   for p in (results / "tables").glob("*.prov.json"))
    if args.worker:
        import clineval

        print(json.dumps({"source": str(Path(clineval.__file__).parents[1]),
                          "tables": _time_tables(results, tables, args.repeat)}))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        runs = {rev: run_revision(rev, Path(tmp), results, tables, args.repeat)
                for rev in [args.rev, *([args.baseline] if args.baseline else [])]}
    mine = runs[args.rev]
    base = runs.get(args.baseline) if args.baseline else None
    print(f"{'table':<20} {'cells':>5} {args.rev[:12]:>12}"
          + (f" {args.baseline[:12]:>12} {'ratio':>7} {'same':>5}" if base else ""))
    differ = []
    for table in tables:
        line = f"{table:<20} {mine[table]['cells']:>5} {mine[table]['seconds']:>11.2f}s"
        if base:
            same = mine[table]["sha256"] == base[table]["sha256"]
            differ += [] if same else [table]
            ratio = base[table]["seconds"] / max(mine[table]["seconds"], 1e-9)
            line += f" {base[table]['seconds']:>11.2f}s {ratio:>6.1f}x {'yes' if same else 'NO':>5}"
        print(line)
    total = sum(mine[t]["seconds"] for t in tables)
    print(f"{'total':<26} {total:>11.2f}s"
          + (f" {sum(base[t]['seconds'] for t in tables):>11.2f}s" if base else ""))
    if args.json:
        args.json.write_text(json.dumps({"runs": runs, "tables": tables}, indent=2) + "\n",
                             encoding="utf-8")
    if differ:
        print(f"texts differ from {args.baseline}: {', '.join(differ)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
