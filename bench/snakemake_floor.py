"""Snakemake's own no-op cost for the 2,001-cell grid's job and file layout, without clineval.

``bench/plan_scale.py`` times the real workflow. This script writes a bare Snakefile with the
same shape (667 per-model generation rules; requests and scoring per cell, or per model and task
with ``--layout task``; the same declared files per cell) over empty files whose times are in
build order, and times ``snakemake all --cores N`` when there is nothing to do: the floor under
any workflow code for that many jobs and files.

``--like-workflow`` gives the bare rules what Snakemake itself spends time on in the real
workflow's no-op (a ``conda:`` environment and a ``log:`` per rule, and Snakemake's job
metadata); with ``--layout task`` it mirrors the real workflow for this grid, so that the
floor differs from it only by clineval's code: the same rules (the per-model generation rules, one
requests and one scoring rule over ``{model}``, derive, build, table, figure, the explorer's
pages, report and the ``all_*`` targets), the same declared files per job (identity files, job
manifests, derived examples and exemplars, request records, logs, the table's eight outputs,
the explorer's page per cell with its index and record, and the report), the
table's ``params`` (title and caption), a ``conda:`` environment and a ``log:`` per rule, and
the metadata Snakemake records for every finished job (written by an in-process ``snakemake
--touch``), whose rerun triggers (code, params, input, software environment) a no-op checks for
every job.

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
PHASE = {"id": 0, "identity": 0, "jobs": 0, "data": 1, "demo": 1, "derived": 1, "requests": 2,
         "generations": 3, "scores": 4, "tables": 5, "report": 6}
#: The identity files' content hash, as in their names: ``<key>-<sha16>.json``.
SHA16 = "0123456789abcdef"


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


def _ident(key: str) -> str:
    return f"results/identity/{key}-{SHA16}.json"


def _job(step: str, name: str) -> str:
    """A job's manifest (``results/jobs/<step>/<job>.json``: Plan.manifest_file)."""
    return f"results/jobs/{step}/{name}.json"


def workflow_files(models: list[str]) -> list[str]:
    """The files of a finished run of the real workflow (logs aside) for this grid."""
    files = [_ident("data/medcalc"), _ident("tables/t"), _ident("report/index"),
             _ident("report/examples"), _job("derive", "medcalc"), _job("table", "t"),
             _job("report", "index"), _job("examples", "index"),
             "data/demo/medcalc/test_data.csv", "data/derived/medcalc/examples.jsonl",
             "data/derived/medcalc/exemplars.jsonl", "data/derived/medcalc/provenance.json",
             "results/report/index.html", "results/report/provenance.json",
             *EXPLORER_FILES]
    files += [f"results/tables/t.{ext}" for ext in TABLE_EXTS]
    for model in models:
        for mode in MODES:
            cell = f"{model}/medcalc/{mode}"
            files += [_ident(f"{cell}/{kind}") for kind in ("requests", "generation", "scoring")]
            files += [f"results/requests/{cell}{s}" for s in (".jsonl", ".prov.json")]
            files += [f"results/generations/{cell}{s}" for s in (".jsonl", ".meta.json")]
            files += [f"results/scores/{cell}{s}" for s in (".jsonl", ".json", ".prov.json")]
            files.append(f"results/report/examples/{cell}.html")
        files += [_job(step, f"{model}/{name}") for step, name in
                  (("requests", "medcalc"), ("score", "medcalc"), ("generate", "1-of-1"))]
    return files


TABLE_EXTS = ("csv", "md", "tex", "stats.json", "stats.md", "cells.json", "metrics.json",
              "prov.json")
#: The explorer's index and record, beside one page per cell (``results/report/examples/``).
EXPLORER_FILES = ("results/report/examples/index.html", "results/report/examples/provenance.json")
LOCAL = "    localrule: True"
CPU = '    resources: gpu=0, cpus_per_task=1, mem_mb={mem}, runtime={minutes}'


def _rule(name: str, log: str | None = None) -> list[str]:
    """A mirrored rule's header: its conda environment and, unless its body names its own, its
    log (the ``all_*`` targets have neither)."""
    return [f"rule {name}:", '    conda: "env.yaml"', *([f'    log: "{log}"'] if log else [])]


def workflow_snakefile(models: list[str]) -> str:
    """The real workflow's rules for this grid with literal files and no clineval code."""
    derived = ["data/derived/medcalc/examples.jsonl", "data/derived/medcalc/exemplars.jsonl"]
    each = "{{model}}/medcalc/{md}"
    lines = [f"MODES = {list(MODES)!r}", f"MODELS = {models!r}", "",
             "rule all:",
             f'    input: expand("results/tables/t.{{ext}}", ext={list(TABLE_EXTS)!r}),'
             ' "results/report/index.html",'
             ' expand("results/report/examples/{m}/medcalc/{md}.html", m=MODELS, md=MODES)',
             "    default_target: True",
             "rule all_figures:", "    input: []",
             "rule all_data:", f"    input: {derived!r}",
             "rule all_generations:",
             '    input: expand("results/generations/{m}/medcalc/{md}.jsonl", m=MODELS, md=MODES)',
             "rule all_scores:",
             '    input: expand("results/scores/{m}/medcalc/{md}.json", m=MODELS, md=MODES)',
             *_rule("derive_demo_medcalc", "logs/derive_demo_medcalc.log"), LOCAL,
             f'    input: identity="{_ident("data/medcalc")}",'
             f' manifest="{_job("derive", "medcalc")}"',
             '    output: sources=["data/demo/medcalc/test_data.csv"],'
             f' examples="{derived[0]}", exemplars="{derived[1]}",'
             ' record="data/derived/medcalc/provenance.json"',
             '    shell: "touch {output}"',
             *_rule("derive_data", "logs/derive_data/{task}.log"),
             f'    input: identity="results/identity/data/{{task}}-{SHA16}.json",'
             f' manifest="{_job("derive", "{task}")}"',
             '    output: examples="data/derived/{task}/examples.jsonl",'
             ' exemplars="data/derived/{task}/exemplars.jsonl",'
             ' record="data/derived/{task}/provenance.json"',
             '    wildcard_constraints: task="(?!)"',
             '    shell: "touch {output}"',
             *_rule("build_model", "logs/build_model/{model}.log"),
             f'    input: identity="results/identity/models/{{model}}-{SHA16}.json",'
             f' manifest="{_job("build-model", "{model}")}"',
             '    output: config="results/models/{model}/config.json",'
             ' record="results/models/{model}/provenance.json"',
             '    shell: "touch {output}"',
             *_rule("requests_medcalc", "logs/requests_medcalc/{model}.log"), LOCAL,
             f'    input: identities=expand("results/identity/{each}/requests-{SHA16}.json",'
             f' md=MODES), examples="{derived[0]}", exemplars="{derived[1]}",'
             f' manifest="{_job("requests", "{model}/medcalc")}"',
             f'    output: requests=expand("results/requests/{each}.jsonl", md=MODES),'
             f' records=expand("results/requests/{each}.prov.json", md=MODES)',
             '    shell: "touch {output}"',
             *_rule("score_medcalc", "logs/score_medcalc/{model}.log"),
             f'    input: identities=expand("results/identity/{each}/scoring-{SHA16}.json",'
             f' md=MODES), generations=expand("results/generations/{each}.jsonl", md=MODES),'
             f' examples="{derived[0]}", manifest="{_job("score", "{model}/medcalc")}"',
             f'    output: rows=expand("results/scores/{each}.jsonl", md=MODES),'
             f' summaries=expand("results/scores/{each}.json", md=MODES),'
             f' records=expand("results/scores/{each}.prov.json", md=MODES)',
             CPU.format(mem=4000, minutes=60),
             '    shell: "touch {output}"']
    for m in models:
        cells = [f"{m}/medcalc/{md}" for md in MODES]
        inputs = {}
        for i, cell in enumerate(cells):
            inputs |= {f"identity_{i}": _ident(f"{cell}/generation"),
                       f"requests_{i}": f"results/requests/{cell}.jsonl",
                       f"requests_record_{i}": f"results/requests/{cell}.prov.json",
                       f"examples_{i}": derived[0]}
        inputs["manifest"] = _job("generate", f"{m}/1-of-1")
        generations = [f"results/generations/{cell}.jsonl" for cell in cells]
        meta = [f"results/generations/{cell}.meta.json" for cell in cells]
        lines += [
            *_rule(f"generate_{m}"),  # its logs (main, summary): below
            "    input: " + ", ".join(f"{k}={v!r}" for k, v in inputs.items()),
            f"    output: generations={generations!r}, meta={meta!r}",
            f'    log: main="results/logs/generations/{m}-1-of-1.log",'
            f' summary="results/generations/{m}/run-summary.json"',
            CPU.format(mem=2000, minutes=30),
            '    shell: "touch {output}"',
        ]
    lines += [
        *_rule("table", "logs/table/{table}.log"), LOCAL,
        f'    input: identity="results/identity/tables/{{table}}-{SHA16}.json",'
        f' manifest="{_job("table", "{table}")}",'
        ' summaries=expand("results/scores/{m}/medcalc/{md}.json", m=MODELS, md=MODES),'
        ' rows=expand("results/scores/{m}/medcalc/{md}.jsonl", m=MODELS, md=MODES)',
        "    output: " + ", ".join(f'{ext.replace(".", "_")}="results/tables/{{table}}.{ext}"'
                                   for ext in TABLE_EXTS),
        '    params: title="MedCalc-Bench: accuracy by calculator category and mode",'
        ' caption="Accuracy of each model on the grid, by calculator category and overall."',
        '    shell: "touch {output}"',
        *_rule("figure", "logs/figure/{figure}.log"), LOCAL,
        f'    input: identity="results/identity/figures/{{figure}}-{SHA16}.json",'
        f' manifest="{_job("figure", "{figure}")}",'
        ' csv="results/tables/{figure}.csv"',
        '    output: png="results/figures/{figure}.png", svg="results/figures/{figure}.svg",'
        ' record="results/figures/{figure}.prov.json"',
        '    shell: "touch {output}"',
        *_rule("examples", "logs/report-examples.log"), LOCAL,
        f'    input: identity="{_ident("report/examples")}",'
        f' scoring=expand("results/identity/{{m}}/medcalc/{{md}}/scoring-{SHA16}.json",'
        ' m=MODELS, md=MODES),'
        ' requests=expand("results/requests/{m}/medcalc/{md}.jsonl", m=MODELS, md=MODES),'
        ' generations=expand("results/generations/{m}/medcalc/{md}.jsonl", m=MODELS,'
        ' md=MODES),'
        ' rows=expand("results/scores/{m}/medcalc/{md}.jsonl", m=MODELS, md=MODES),'
        f' examples="{derived[0]}", manifest="{_job("examples", "index")}"',
        '    output: pages=expand("results/report/examples/{m}/medcalc/{md}.html", m=MODELS,'
        f' md=MODES), index="{EXPLORER_FILES[0]}", record="{EXPLORER_FILES[1]}"',
        '    shell: "touch {output}"',
        *_rule("report", "logs/report.log"), LOCAL,
        f'    input: identity="{_ident("report/index")}", table_t="results/tables/t.md",'
        ' cells_t="results/tables/t.cells.json",'
        f' manifest="{_job("report", "index")}"',
        '    output: html="results/report/index.html", record="results/report/provenance.json"',
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
    mirror = workflow_like and layout == "task"
    if mirror:
        files = workflow_files(models)
    else:
        files = ["data/derived/medcalc/examples.jsonl", "results/tables/t.md"]
        files += [f for m in models for f in cell_files(m)]
    start = time.time() - 1000
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
        parts = Path(name).parts
        phase = PHASE[parts[0]] if parts[0] == "id" else PHASE[parts[1]]
        os.utime(path, (start + 10 * phase, start + 10 * phase))
    if mirror:
        text = workflow_snakefile(models)
    else:
        text = snakefile(models, layout)
        if workflow_like:
            text = like_workflow(text)
    if workflow_like:
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
