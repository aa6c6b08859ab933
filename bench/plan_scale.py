"""Planning at scale: a synthetic 2,001-cell grid through ``clineval plan`` and Snakemake.

The grid (667 copies of the ``constant`` baseline model as presets x MedCalc-Bench demo with one
row per calculator x 3 modes) lives in a temporary copy of the repository's Snakefile, rules/,
conf/ and envs/; nothing is written into the repository. Timed, each the median of ``--runs``:

- ``start``: ``snakemake -n`` of an empty workflow (Snakemake's own start, plugins included);
- ``plan``: ``clineval plan grid=scale``;
- ``dry run``: ``snakemake -n all_tables --quiet`` (after one untimed run that writes the
  identities; printing every job would add seconds of Snakemake's logging);
- ``no-op``: ``snakemake all_tables --cores N`` on a finished run;
- ``floor``: Snakemake's own no-op for the same rules and declared files with no clineval code
  (``bench/snakemake_floor.py --layout task --like-workflow``: the workflow's rules for this grid
  with literal files (each job's manifest among its inputs), a conda environment and a log per
  rule, and Snakemake's job metadata), timed in the same run, so that the no-op is read as a
  ratio to it.

Snakemake's start is in every Snakemake phase; the table also shows them without it.

The finished run is made without 4,700 subprocesses: the jobs' shell commands, in the dry run's
order, run in this process through ``clineval.cli.main`` (same code, same files, each step's
output to its log); then ``snakemake --touch`` records Snakemake's metadata of every job, as a
run of its own would. The bench asserts that Snakemake then has nothing to do.

    python bench/plan_scale.py                  # from the repository root, project installed
    python bench/plan_scale.py --runs 5 --json bench.json
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from clineval.cli import main as clineval_main

sys.path.insert(0, str(Path(__file__).resolve().parent))
import snakemake_floor

ROOT = Path(__file__).resolve().parents[1]
COPIED = ("Snakefile", "rules", "conf", "envs")
MODES = ("zero_shot", "cot", "one_shot")
TARGETS = {"dry run": 10.0}
#: The no-op's target: at most this many times Snakemake's own floor for the same layout.
NOOP_OVER_FLOOR = 1.2
COMMAND = re.compile(r"^clineval (?P<args>.+?)\s*> (?P<log>\S+) 2>&1$")


def write_grid(conf: Path, models: int) -> None:
    """``conf/grid/scale.yaml``: ``models`` presets of ``constant`` x medcalc x 3 modes."""
    lines = ["# @package _global_", "defaults:", "  - /task@tasks.medcalc: medcalc"]
    lines += [f"  - /mode@modes.{m}: {m}" for m in MODES]
    lines += ["  - /table@tables.medcalc_table2: medcalc_table2", "models:"]
    lines += [f"  c{i:04d}: {{preset: constant}}" for i in range(models)]
    lines += ["tasks:", "  medcalc:", "    data:", "      demo: {per_calculator: 1}"]
    lines += ["grid:", "  name: scale"]
    (conf / "grid" / "scale.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def make_workdir(work: Path, models: int) -> Path:
    repo = work / "repo"
    repo.mkdir()
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, repo / name)
        elif source.exists():
            shutil.copy2(source, repo / name)
    write_grid(repo / "conf", models)
    empty = work / "empty"
    empty.mkdir()
    (empty / "Snakefile").write_text("rule all:\n    input: []\n", encoding="utf-8")
    return repo


def run(cmd: list[str], cwd: Path) -> tuple[float, str]:
    """Run ``cmd``; return its wall time and its stdout + stderr (raise on failure)."""
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    output = done.stdout + done.stderr
    if done.returncode != 0:
        raise SystemExit(f"{shlex.join(cmd)} failed ({done.returncode}):\n{output[-3000:]}")
    return seconds, output


def timed(cmd: list[str], cwd: Path, runs: int, expect: str) -> list[float]:
    times = []
    for _ in range(runs):
        seconds, output = run(cmd, cwd)
        if expect not in output:
            raise SystemExit(f"{shlex.join(cmd)}: expected {expect!r} in its output:\n"
                             f"{output[-3000:]}")
        times.append(seconds)
    return times


def shell_commands(dry_run_output: str) -> list[str]:
    """The jobs' shell commands in the dry run's order (rules without one print ``None``)."""
    prefix = "Shell command: "
    return [line.removeprefix(prefix) for line in dry_run_output.splitlines()
            if line.startswith(prefix) and line != f"{prefix}None"]


@contextlib.contextmanager
def inside(cwd: Path) -> Iterator[None]:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        yield
    finally:
        logging.root.handlers.clear()
        os.chdir(old)


def run_in_process(commands: list[str], cwd: Path) -> None:
    """Each ``clineval … > log 2>&1`` command through ``clineval.cli.main``, output to its log."""
    with inside(cwd):
        for command in commands:
            match = COMMAND.match(command)
            if match is None or "$(" in command:
                raise SystemExit(f"not a plain `clineval … > log 2>&1` command: {command}")
            log_path = Path(match["log"])
            log_path.parent.mkdir(parents=True, exist_ok=True)
            with (
                log_path.open("w", encoding="utf-8") as log,
                contextlib.redirect_stdout(log),
                contextlib.redirect_stderr(log),
            ):
                logging.root.handlers.clear()  # main's basicConfig logs to this log
                status = clineval_main(shlex.split(match["args"]))
            if status != 0:
                raise SystemExit(f"{command} failed ({status}); see {cwd / log_path}")


def cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def scontrol_seconds() -> float | None:
    """How long ``scontrol show config`` takes: Snakemake's SLURM executor plugin runs it at
    every start (up to its 10 s timeout where a SLURM client has no controller to reach), which
    adds the same seconds to every phase and so shrinks the no-op's ratio to the floor."""
    if shutil.which("scontrol") is None:
        return None
    start = time.perf_counter()
    subprocess.run(["scontrol", "show", "config"], capture_output=True, timeout=30, check=False)
    return round(time.perf_counter() - start, 2)


def bench(work: Path, models: int, runs: int, cores: int) -> dict[str, Any]:
    repo = make_workdir(work, models)
    bin_dir = Path(sys.executable).parent
    snakemake = [str(bin_dir / "snakemake")]
    config = ["--config", "overrides=grid=scale"]
    times: dict[str, list[float]] = {}
    times["start"] = timed([*snakemake, "-n", "--quiet"], work / "empty", runs, "")
    plan = [str(bin_dir / "clineval"), "plan", "grid=scale", "--conf", "conf"]
    cells = models * len(MODES)
    times["plan"] = timed(plan, repo, runs, f"{cells} cells")
    dry = [*snakemake, "-n", "all_tables", *config]
    _, first = run([*dry, "--printshellcmds"], repo)  # writes the identity files
    jobs = int(re.search(r"^total\s+(\d+)$", first, re.MULTILINE)[1])
    times["dry run"] = timed([*dry, "--quiet"], repo, runs, "Building DAG of jobs")
    commands = shell_commands(first)
    start = time.perf_counter()
    run_in_process(commands, repo)
    finish_s = time.perf_counter() - start
    start = time.perf_counter()
    snakemake_floor.record_metadata(repo, ["all_tables", "--cores", str(cores), *config])
    touch_s = time.perf_counter() - start
    _, check = run(dry, repo)
    if "Nothing to be done" not in check:
        raise SystemExit(f"the finished run is not complete for Snakemake:\n{check[-3000:]}")
    noop = [*snakemake, "all_tables", "--cores", str(cores), *config]
    floor_dir = work / "floor"
    floor_dir.mkdir()
    snakemake_floor.build(floor_dir, [f"c{i:04d}" for i in range(models)], "task",
                          workflow_like=True)
    floor = [*snakemake, "all", "--cores", str(cores)]
    _, floor_dry = run([*snakemake, "-n", "--forceall", "all"], floor_dir)
    floor_jobs = int(re.search(r"^total\s+(\d+)$", floor_dry, re.MULTILINE)[1])
    if floor_jobs != jobs:
        raise SystemExit(f"the floor has {floor_jobs} jobs, the workflow {jobs}: "
                         "bench/snakemake_floor.py no longer mirrors the workflow's rules")
    run(floor, floor_dir)  # warms caches, as the no-op's check run did
    times["no-op"], times["floor"] = [], []
    for _ in range(runs):  # interleaved, so that both see the same machine
        times["no-op"] += timed(noop, repo, 1, "Nothing to be done")
        times["floor"] += timed(floor, floor_dir, 1, "Nothing to be done")
    ratio = statistics.median(times["no-op"]) / statistics.median(times["floor"])
    return {
        "cells": cells,
        "jobs": jobs,
        "commands_run_in_process": len(commands),
        "finish_in_process_s": round(finish_s, 1),
        "touch_s": round(touch_s, 1),
        "runs": runs,
        "snakemake_cores": cores,
        "scontrol_s": scontrol_seconds(),
        "machine": {"cpus": len(os.sched_getaffinity(0)), "cpu": cpu_model(),
                    "python": platform.python_version()},
        "noop_over_floor": {"ratio": round(ratio, 2), "target": NOOP_OVER_FLOOR,
                            "pass": ratio <= NOOP_OVER_FLOOR},
        "phases": {
            name: {
                "median_s": round(statistics.median(values), 2),
                "runs_s": [round(v, 2) for v in values],
                "target_s": TARGETS.get(name),
                "pass": None if name not in TARGETS
                else statistics.median(values) <= TARGETS[name],
            }
            for name, values in times.items()
        },
    }


def report(result: dict[str, Any]) -> str:
    rows = [f"{result['cells']} cells, {result['jobs']} jobs; {result['runs']} runs each; "
            f"{result['machine']['cpus']} CPUs ({result['machine']['cpu']})",
            f"finished run made in process: {result['commands_run_in_process']} commands, "
            f"{result['finish_in_process_s']} s; metadata by snakemake --touch: "
            f"{result['touch_s']} s",
            "",
            "| phase | seconds (median) | minus start | target | result |",
            "| --- | ---: | ---: | ---: | --- |"]
    start = result["phases"]["start"]["median_s"]
    for name, phase in result["phases"].items():
        net = f"{phase['median_s'] - start:.2f}" if name in TARGETS else "-"
        target = "-" if phase["target_s"] is None else f"<= {phase['target_s']:g} s"
        verdict = "-" if phase["pass"] is None else ("pass" if phase["pass"] else "FAIL")
        rows.append(f"| {name} | {phase['median_s']:.2f} | {net} | {target} | {verdict} |")
    if (result["scontrol_s"] or 0) > 1:
        rows.append(f"\nwarning: `scontrol show config` took {result['scontrol_s']} s; Snakemake's "
                    "SLURM plugin waits for it at every start, in every phase: the ratio below "
                    "is too low (take scontrol off PATH or start the controller)")
    over = result["noop_over_floor"]
    rows.append(f"\nno-op / Snakemake's floor: {over['ratio']:.2f} (target <= {over['target']}): "
                f"{'pass' if over['pass'] else 'FAIL'}")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=int, default=667, help="copies of the constant model")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per phase (median)")
    parser.add_argument("--cores", type=int, default=2, help="--cores of the no-op run")
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="clineval-scale-"))
    try:
        result = bench(work, args.models, args.runs, args.cores)
    finally:
        if args.keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(report(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
