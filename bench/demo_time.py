"""Time a newcomer's ``make demo`` from a fresh clone: setup and Snakemake apart, job count.

Each revision is cloned into a temporary directory (nothing of this checkout's venv, results or
caches travels) and run as the README says: ``make setup`` (timed), then
``snakemake all_tables --cores N`` (timed, with its job count and the CPU seconds of all of
its jobs), then, where the revision's ``make demo`` does, Snakemake's report (timed). With
``--baseline REV`` the older revision runs the same way right after, for a side-by-side ratio
on the same machine. ``--cold-cache`` gives the installers empty caches (a first-time machine;
downloads then dominate setup). Models are always prepared into an empty model cache
(``CLINEVAL_MODEL_CACHE``), as on a newcomer's machine.

    python bench/demo_time.py                          # HEAD
    python bench/demo_time.py --baseline 7d8cce5 --json demo-time.json
    python bench/demo_time.py --overrides "grid.select.tables=[medcalc_table2,clue_table3]"

``--overrides`` (Hydra overrides for ``--rev`` only) times part of the demo grid, e.g. the two
benchmarks of the baseline revision next to the five of HEAD.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {"setup_s": 60.0, "total_s": 300.0}


def _run(cmd: list[str], cwd: Path, env: dict[str, str], log: Path) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds of the command and its children, and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    output = done.stdout + done.stderr
    log.write_text(output, encoding="utf-8")
    if done.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed in {cwd} (log {log}):\n{output[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, output


def time_revision(rev: str, work: Path, cores: int, cold: bool,
                  overrides: str | None = None) -> dict[str, Any]:
    clone = work / f"clone-{rev}"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "--quiet", rev], check=True)
    env = dict(os.environ)
    env.pop("VIRTUAL_ENV", None)
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep)
                                  if not p.startswith(str(ROOT)))
    if cold:
        env["UV_CACHE_DIR"] = str(work / f"uv-cache-{rev}")
        env["PIP_NO_CACHE_DIR"] = "1"
    # a newcomer's machine has prepared no model yet (docs/backends.md, Local GGUF models)
    env["CLINEVAL_MODEL_CACHE"] = str(work / f"model-cache-{rev}")
    setup_wall, setup_cpu, _ = _run(["make", "setup"], clone, env, work / f"setup-{rev}.log")
    env["PATH"] = f"{clone / '.venv' / 'bin'}{os.pathsep}{env['PATH']}"
    for key, value in (("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "1")):
        env[key] = value
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as `make demo` runs it
    config = ["--config", f"overrides={overrides}"] if overrides else []
    wall, cpu, output = _run([str(clone / ".venv" / "bin" / "snakemake"), "all_tables",
                              "--cores", str(cores), *config], clone, env, work / f"demo-{rev}.log")
    total = re.findall(r"^total\s+(\d+)$", output, flags=re.MULTILINE)
    tables = sorted(p.name for p in (clone / "results" / "tables").glob("*.md")
                    if not p.name.endswith(".stats.md"))
    report = 0.0
    if "--report" in (clone / "Makefile").read_text():  # `make demo` also writes Snakemake's
        report, _, _ = _run([str(clone / ".venv" / "bin" / "snakemake"), "all_tables",
                             "--report", "results/report.html", *config], clone, env,
                            work / f"report-{rev}.log")
    return {"rev": rev, "overrides": overrides, "setup_s": round(setup_wall, 1),
            "setup_cpu_s": round(setup_cpu, 1),
            "snakemake_s": round(wall, 1), "snakemake_cpu_s": round(cpu, 1),
            "report_s": round(report, 1),
            "jobs": int(total[0]) if total else None, "tables": tables,
            "figures": len(list((clone / "results" / "figures").glob("*.png"))),
            "generation_s": {p.parent.name: json.loads(p.read_text())["wall_seconds"]
                             for p in sorted((clone / "results" / "generations")
                                             .glob("*/run-summary.json"))},
            "total_s": round(setup_wall + wall + report, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="HEAD")
    parser.add_argument("--baseline", help="an older revision, run the same way after --rev")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--cold-cache", action="store_true",
                        help="empty uv/pip caches (a first-time machine)")
    parser.add_argument("--overrides", help="Hydra overrides of --rev's demo (not the baseline's)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--keep", type=Path, help="work in this directory and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="demo-time-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        revs = [args.rev] + ([args.baseline] if args.baseline else [])
        results = [time_revision(rev, work, args.cores, args.cold_cache,
                                 args.overrides if rev == args.rev else None) for rev in revs]
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"--cores {args.cores}{', cold caches' if args.cold_cache else ''}")
    print(f"{'rev':>12} {'setup s':>8} {'snakemake s':>12} {'CPU s':>7} {'jobs':>5} "
          f"{'report s':>9} {'total s':>8} {'figures':>8}  tables")
    for r in results:
        if r["overrides"]:
            print(f"{r['rev']:>12} overrides: {r['overrides']}")
        print(f"{r['rev']:>12} {r['setup_s']:>8} {r['snakemake_s']:>12} "
              f"{r['snakemake_cpu_s']:>7} {r['jobs']!s:>5} {r['report_s']:>9} {r['total_s']:>8} "
              f"{r['figures']:>8}  "
              f"{', '.join(r['tables'])}")
    if len(results) == 2:
        new, old = results
        print(f"ratio new/baseline: setup {new['setup_s'] / old['setup_s']:.2f}, snakemake "
              f"{new['snakemake_s'] / old['snakemake_s']:.2f}, total "
              f"{new['total_s'] / old['total_s']:.2f}")
    print("targets: " + ", ".join(f"{k} < {v:g}" for k, v in TARGETS.items()))
    if args.json:
        args.json.write_text(json.dumps({"results": results, "targets": TARGETS}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
