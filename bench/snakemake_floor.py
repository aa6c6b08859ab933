"""Snakemake's own no-op cost for the 2,001-cell grid's job and file layout, without clineval.

``bench/plan_scale.py`` times the real workflow. This script writes a bare Snakefile with the
same shape (667 per-model generation rules; requests and scoring per cell, or per model and task
with ``--layout task``; the same declared files per cell) over empty files whose times are in
build order, and times ``snakemake all --cores N`` when there is nothing to do: the floor under
any workflow code for that many jobs and files.

``--like-workflow`` gives the bare rules what Snakemake itself spends time on in the real
workflow's no-op: a ``conda:`` environment and a ``log:`` file per rule, and the metadata
Snakemake records for every finished job (written by an in-process ``snakemake --touch``), whose
rerun triggers (code, params, input, software environment) a no-op checks for every job.

    python bench/snakemake_floor.py [--layout cell|task] [--like-workflow] [--models 667]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODES = ("zero_shot", "cot", "one_shot")
PHASE = {"id": 0, "data": 1, "requests": 2, "generations": 3, "scores": 4, "tables": 5}


def cell_files(model: str) -> list[str]:
    files = []
    for mode in MODES:
        cell = f"{model}/medcalc/{mode}"
        files += [f"id/{cell}/{kind}.json" for kind in ("requests", "generation", "scoring")]
        files += [f"results/requests/{cell}{s}" for s in (".jsonl", ".prov.json")]
        files += [f"results/generations/{cell}{s}" for s in (".jsonl", ".meta.json")]
        files += [f"results/scores/{cell}{s}" for s in (".jsonl", ".json", ".prov.json")]
    return files


def snakefile(models: list[str], layout: str) -> str:
    modes = repr(list(MODES))
    lines = [f"MODES = {modes}", f"MODELS = {models!r}", "", "rule all:",
             '    input: "results/tables/t.md"', "", "rule table:",
             '    input: expand("results/scores/{m}/medcalc/{md}.json", m=MODELS, md=MODES)',
             '    output: "results/tables/t.md"', '    shell: "touch {output}"']
    for m in models:
        lines += [
            f"rule generate_{m}:",
            f'    input: expand("results/requests/{m}/medcalc/{{md}}.jsonl", md=MODES),'
            f' expand("id/{m}/medcalc/{{md}}/generation.json", md=MODES)',
            f'    output: expand("results/generations/{m}/medcalc/{{md}}{{s}}", md=MODES,'
            ' s=[".jsonl", ".meta.json"])',
            '    shell: "touch {output}"',
        ]
    if layout == "cell":
        cell = "{model}/{task}/{mode}"
        lines += [
            "rule requests:",
            f'    input: "id/{cell}/requests.json", "data/derived/{{task}}/examples.jsonl"',
            f'    output: "results/requests/{cell}.jsonl", "results/requests/{cell}.prov.json"',
            '    shell: "touch {output}"',
            "rule score:",
            f'    input: "id/{cell}/scoring.json", "data/derived/{{task}}/examples.jsonl",'
            f' "results/generations/{cell}.jsonl"',
            f'    output: "results/scores/{cell}.jsonl", "results/scores/{cell}.json",'
            f' "results/scores/{cell}.prov.json"',
            '    shell: "touch {output}"',
        ]
    else:
        each = "{{model}}/medcalc/{md}"
        lines += [
            "rule requests_medcalc:",
            f'    input: expand("id/{each}/requests.json", md=MODES),'
            ' "data/derived/medcalc/examples.jsonl"',
            f'    output: expand("results/requests/{each}{{s}}", md=MODES,'
            ' s=[".jsonl", ".prov.json"])',
            '    shell: "touch {output}"',
            "rule score_medcalc:",
            f'    input: expand("id/{each}/scoring.json", md=MODES),'
            ' "data/derived/medcalc/examples.jsonl",'
            f' expand("results/generations/{each}.jsonl", md=MODES)',
            f'    output: expand("results/scores/{each}{{s}}", md=MODES,'
            ' s=[".jsonl", ".json", ".prov.json"])',
            '    shell: "touch {output}"',
        ]
    return "\n".join(lines) + "\n"


def _log(rule: str) -> str:
    if rule in ("requests", "score"):
        return f"logs/{rule}/{{model}}/{{task}}/{{mode}}.log"
    if rule in ("requests_medcalc", "score_medcalc"):
        return f"logs/{rule}/{{model}}.log"
    return f"logs/{rule}.log"


def like_workflow(text: str) -> str:
    """Each rule but ``all`` with a conda environment and a log, as the real rules have."""
    out = []
    for line in text.splitlines():
        out.append(line)
        if line.startswith("rule ") and line != "rule all:":
            rule = line.removeprefix("rule ").removesuffix(":")
            out += ['    conda: "env.yaml"', f'    log: "{_log(rule)}"']
    return "\n".join(out) + "\n"


def record_metadata(cwd: Path, argv: list[str]) -> None:
    """``snakemake --touch --forceall`` in this process: Snakemake records every job's metadata
    (params, code, inputs) as after a run of its own. Its touch executor pauses 0.1 s per job to
    keep time stamps apart; the files already stand in build order, so no pause.
    """
    import contextlib
    import logging

    from snakemake import cli as snakemake_cli
    from snakemake.executors import touch

    touch.Executor.SLEEPING_TIME = 0
    old = Path.cwd()
    os.chdir(cwd)
    log_path = cwd / "touch.log"
    try:
        with (log_path.open("w", encoding="utf-8") as log, contextlib.redirect_stdout(log),
              contextlib.redirect_stderr(log)):
            snakemake_cli.main([*argv, "--touch", "--forceall", "--quiet"])
    except SystemExit as end:
        if end.code not in (0, None):
            raise SystemExit(f"snakemake --touch failed ({end.code}); see {log_path}") from end
    finally:
        logging.root.handlers.clear()
        os.chdir(old)


def build(root: Path, models: list[str], layout: str, workflow_like: bool = False) -> int:
    files = ["data/derived/medcalc/examples.jsonl", "results/tables/t.md"]
    files += [f for m in models for f in cell_files(m)]
    start = time.time() - 1000
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
        parts = Path(name).parts
        phase = PHASE[parts[0]] if parts[0] in ("id", "data") else PHASE[parts[1]]
        os.utime(path, (start + 10 * phase, start + 10 * phase))
    text = snakefile(models, layout)
    if workflow_like:
        text = like_workflow(text)
        (root / "env.yaml").write_text("channels: [conda-forge]\ndependencies: [python=3.11]\n")
    (root / "Snakefile").write_text(text)
    if workflow_like:
        record_metadata(root, ["all", "--cores", "1"])
    return len(files)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layout", choices=("cell", "task"), default="cell")
    parser.add_argument("--like-workflow", action="store_true",
                        help="conda and log per rule, and Snakemake's job metadata")
    parser.add_argument("--models", type=int, default=667)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cores", type=int, default=2)
    args = parser.parse_args()
    models = [f"c{i:04d}" for i in range(args.models)]
    with tempfile.TemporaryDirectory(prefix="snakemake-floor-") as tmp:
        root = Path(tmp)
        count = build(root, models, args.layout, args.like_workflow)
        cmd = [sys.executable, "-m", "snakemake", "all", "--cores", str(args.cores), "--quiet"]
        times = []
        for _ in range(args.runs + 1):  # the first run only warms caches
            began = time.perf_counter()
            done = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
            times.append(time.perf_counter() - began)
            if "Nothing to be done" not in done.stdout + done.stderr:
                raise SystemExit(f"expected a no-op:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    print(f"layout {args.layout}{' like the workflow' if args.like_workflow else ''}: "
          f"{len(models) * len(MODES)} cells, {count} files, "
          f"{os.cpu_count()} CPUs; no-op median of {args.runs}: "
          f"{statistics.median(times[1:]):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
