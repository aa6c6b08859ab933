"""CliBench's derive step at scale: wall time and peak memory per task on a synthetic MIMIC-IV.

Writes a synthetic MIMIC-IV 2.2 (``--admissions`` admissions, ``--labs-per-admission`` lab rows
each: 100,000 x 100 = 10 M ``labevents`` rows by default), then derives each CliBench task with
the paper's sampling settings in a fresh process and reports its wall time and peak resident
memory (``ru_maxrss`` of that process). The derive step streams ``labevents`` in chunks, so its
memory follows the number of admissions, not the number of lab rows.

    python bench/clibench_derive.py                                  # 100 k admissions, 10 M labs
    python bench/clibench_derive.py --admissions 20000 --out bench.json

Run from the repository root with the project installed.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from clineval.benchmarks.clibench.kinds import KINDS


def _derive(root: Path, kind: str) -> dict:
    from clineval.benchmarks.clibench import cases
    from clineval.benchmarks.clibench.benchmark import COMMON_TABLES, TASK_TABLES
    from clineval.mimic.synthetic_mimic4 import Layout

    layout = Layout(root, gz=False)
    files = {t: layout.table(t) for t in (*COMMON_TABLES, *TASK_TABLES[kind])}
    files.update(loinc_hierarchy=layout.loinc_hierarchy, lab_loinc_map=layout.lab_loinc_map,
                 ndc_atc=layout.ndc_atc, atc_titles=layout.atc_titles)
    start = time.perf_counter()
    examples, exemplars, facts = cases.derive(kind, {"sample": {"seed": 0}},
                                              cases.Sources(files), 1)
    wall = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"task": kind, "wall_s": round(wall, 1), "peak_rss_mb": round(peak_mb),
            "evaluated": len(examples), "exemplars": len(exemplars),
            **{k: facts[k] for k in ("population", "branch", "training_pool")}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--admissions", type=int, default=100_000)
    parser.add_argument("--labs-per-admission", type=int, default=100)
    parser.add_argument("--tasks", nargs="*", default=list(KINDS), choices=KINDS)
    parser.add_argument("--root", type=Path, help="write (or reuse with --reuse) the data here")
    parser.add_argument("--reuse", action="store_true", help="reuse data already in --root")
    parser.add_argument("--out", type=Path, help="also write the results as JSON")
    parser.add_argument("--derive-only", choices=KINDS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.derive_only:
        print(json.dumps(_derive(args.root, args.derive_only)))
        return
    from clineval.mimic.synthetic_mimic4 import Layout, write_mimic4

    root = args.root or Path(tempfile.mkdtemp(prefix="clibench-bench-"))
    layout = Layout(root, gz=False)
    report: dict = {"admissions": args.admissions, "labs_per_admission": args.labs_per_admission}
    if not args.reuse:
        start = time.perf_counter()
        write_mimic4(layout, args.admissions, 0, args.labs_per_admission)
        report["generate_s"] = round(time.perf_counter() - start, 1)
    with layout.table("labevents").open() as handle:
        report["labevents_rows"] = sum(1 for _ in handle) - 1
    report["labevents_mb"] = round(layout.table("labevents").stat().st_size / 2**20)
    report["tasks"] = []
    for kind in args.tasks:
        done = subprocess.run([sys.executable, __file__, "--root", str(root), "--derive-only",
                               kind], check=True, capture_output=True, text=True)
        report["tasks"].append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(json.dumps(report["tasks"][-1]), flush=True)
    print(json.dumps(report, indent=2))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
