"""Build the offline demo at two revisions and compare what a user sees, byte for byte.

Each side is a plain copy of the code (``git archive`` of a revision; for ``worktree`` the
tracked and untracked-not-ignored files of this checkout, uncommitted changes included) in its
own directory, and runs what ``make demo`` runs there: ``snakemake all_tables --cores N``, then
Snakemake's report where that revision's Makefile writes it. Both use this checkout's venv with
the side's own ``src/`` first on ``PYTHONPATH`` (checked on the ``clineval`` command the rules
call). Each side starts with empty ``results/`` and ``data/`` (so its own generation cache,
``results/cache/``: every answer is generated) and its own title-embedding cache; the prepared
model cache (``CLINEVAL_MODEL_CACHE``, ``~/.cache/clineval/models``) is shared.

Compared: every file under ``results/tables/`` (the figures' data: each figure reads its tables'
``.csv`` and ``.stats.json``, listed per figure from its record), ``results/figures/`` (images
and records) and ``results/report/`` (the page and its record). The sides are not git
checkouts, so the page's "git commit" line and the records' git fields read "unknown" on both.
Excluded (printed): Snakemake's ``results/report.html`` (run dates and job runtimes).
Exit status: 0 when every compared file is equal, 1 when any differs or exists on one side
only, 2 when a side could not be built. Snakemake's wall time of each side and the CPU seconds
of its jobs are printed side by side (same machine, one after the other) with their ratios.

    nice python bench/compare_demo.py --rev HEAD               # HEAD against the working tree
    nice python bench/compare_demo.py --rev cf5a127 --against HEAD --keep /tmp/cmp
    nice python bench/compare_demo.py --rev cf5a127 --against HEAD --keep /tmp/cmp --reuse
"""

from __future__ import annotations

import argparse
import difflib
import filecmp
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKTREE = "worktree"
COMPARED = ("results/tables", "results/figures", "results/report")
EXCLUDED = {"results/report.html": "Snakemake's own report: holds the run's dates and job "
                                   "runtimes, so no two runs give the same bytes"}
IMAGES = (".png", ".svg")
MARKER = "compare-demo.json"  # a finished side's timings, beside its tree


class BuildError(Exception):
    """A side could not be prepared or built (the message names its log)."""


@dataclass
class Timing:
    """Wall seconds of a side's Snakemake run and report, the CPU seconds of the run's jobs,
    its job count, the 1-minute load average before and after it, and model-cache notes."""

    snakemake_s: float
    report_s: float | None
    jobs: int | None
    models_prepared: list[str]
    snakemake_cpu_s: float | None = None  # None: kept by an earlier version of this script
    load: tuple[float, float] | None = None


@dataclass
class Side:
    """One side of the comparison: its label, tree and timing (None until built; ``reused``:
    built by an earlier run)."""

    label: str
    tree: Path
    timing: Timing | None
    reused: bool


def _git(*args: str) -> str:
    done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
    if done.returncode:
        raise BuildError(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def resolve(rev: str) -> str:
    """The full commit id of ``rev`` (``worktree`` stays as it is)."""
    return rev if rev == WORKTREE else _git("rev-parse", "--verify", f"{rev}^{{commit}}").strip()


def export_revision(sha: str, dest: Path) -> None:
    """The files of commit ``sha`` in ``dest`` (no ``.git``)."""
    archive = dest.with_suffix(".tar")
    _git("archive", "--format=tar", "-o", str(archive), sha)
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")
    archive.unlink()


def copy_worktree(dest: Path) -> list[str]:
    """Tracked and untracked-not-ignored files of this checkout in ``dest``, as they are now;
    returns ``git status --short`` of what differs from HEAD."""
    names = _git("ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    for name in sorted(set(filter(None, names))):
        source = ROOT / name
        if not source.is_symlink() and not source.is_file():
            continue  # deleted in the working tree (still in the index), or a submodule
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, dest / name, follow_symlinks=False)
    return _git("status", "--short", "--untracked-files=all").splitlines()


def side_env(tree: Path, venv: Path, work: Path) -> dict[str, str]:
    """The environment of one side: the venv's commands, the side's ``src/`` first, offline."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as `make demo` runs: steps keep their byte code
    env.update({
        "PATH": f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        "VIRTUAL_ENV": str(venv),
        "PYTHONPATH": str(tree / "src"),
        "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
        # the tree is no checkout: git must not find one above it (with --keep inside a clone)
        "GIT_CEILING_DIRECTORIES": str(work),
        "CLINEVAL_EMBEDDING_CACHE": str(tree.parent / f"{tree.name}.embeddings"),
    })
    return env


def check_imports(tree: Path, env: dict[str, str]) -> Path:
    """Where the ``clineval`` command on PATH (what the rules run) imports clineval from; it
    must be the side's ``src/``, not the venv's editable install."""
    done = subprocess.run(["sh", "-c", "clineval --help"], cwd=tree, capture_output=True,
                          text=True, env={**env, "PYTHONVERBOSE": "1"})
    found = re.search(r"(/\S*/clineval/__init__\.py)\b", done.stderr)
    if done.returncode or not found:
        raise BuildError(f"{tree}: `clineval --help` failed or imported no clineval package:\n"
                         f"{done.stderr[-2000:]}")
    source = Path(found.group(1)).resolve().parents[1]
    if source != (tree / "src").resolve():
        raise BuildError(f"{tree}: the clineval command imports {source}, not {tree / 'src'}")
    return source


def _model_cache(env: dict[str, str]) -> Path:
    base = Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return Path(env.get("CLINEVAL_MODEL_CACHE") or base / "clineval" / "models").expanduser()


def _run(cmd: list[str], tree: Path, env: dict[str, str],
         log: Path) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (the command and every process it waited for) and output of
    ``cmd`` (written to ``log`` as it runs)."""
    with log.open("w", encoding="utf-8") as out:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        done = subprocess.run(cmd, cwd=tree, env=env, stdout=out, stderr=subprocess.STDOUT)
        wall = time.perf_counter() - began
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    output = log.read_text(encoding="utf-8")
    if done.returncode:
        tail = "\n".join(line[:300] for line in output.splitlines()[-25:])
        raise BuildError(f"{' '.join(cmd)} failed in {tree} (log {log}):\n{tail}")
    return wall, cpu, output


def build(tree: Path, env: dict[str, str], cores: int) -> Timing:
    """Run the demo as ``make demo`` does in ``tree``; wall time of each Snakemake command."""
    cache = _model_cache(env)
    before = set(os.listdir(cache)) if cache.is_dir() else set()
    snakemake = str(Path(env["VIRTUAL_ENV"]) / "bin" / "snakemake")
    load = os.getloadavg()[0]
    wall, cpu, output = _run([snakemake, "all_tables", "--cores", str(cores)], tree, env,
                        tree.parent / f"{tree.name}.snakemake.log")
    jobs = re.findall(r"^total\s+(\d+)$", output, flags=re.MULTILINE)
    report = None
    if "--report" in (tree / "Makefile").read_text(encoding="utf-8"):
        report, _, _ = _run([snakemake, "all_tables", "--report", "results/report.html"], tree, env,
                         tree.parent / f"{tree.name}.report.log")
    after = set(os.listdir(cache)) if cache.is_dir() else set()
    return Timing(round(wall, 1), None if report is None else round(report, 1),
                  int(jobs[0]) if jobs else None, sorted(after - before), round(cpu, 1),
                  (round(load, 2), round(os.getloadavg()[0], 2)))


def place(rev: str, sha: str, work: Path, venv: Path, reuse: bool, again: bool) -> Side:
    """The tree of revision ``rev`` (commit ``sha``, or ``worktree``) exported and its imports
    checked, or taken as built when ``reuse`` finds it finished (``timing`` set); ``again``: the
    other side is the same commit, placed in a folder of its own."""
    label = WORKTREE if sha == WORKTREE else f"{rev} ({sha[:10]})"
    tree = work / ((WORKTREE if sha == WORKTREE else f"rev-{sha[:12]}") + ("-2" if again else ""))
    marker = tree.parent / f"{tree.name}.{MARKER}"
    if reuse and marker.is_file():
        print(f"{label}: reusing the build in {tree} (its times are from that run)")
        return Side(label, tree, Timing(**json.loads(marker.read_text())), True)
    if tree.exists():
        raise BuildError(f"{tree} exists from an earlier run: remove it, or pass --reuse")
    tree.mkdir(parents=True)
    if sha == WORKTREE:
        changed = copy_worktree(tree)
        print(f"{label}: copied this checkout, {len(changed)} paths differ from HEAD"
              + "".join(f"\n    {line}" for line in changed[:40])
              + (f"\n    … {len(changed) - 40} more" if len(changed) > 40 else ""))
    else:
        export_revision(sha, tree)
    source = check_imports(tree, side_env(tree, venv, work))
    print(f"{label}: the clineval command imports {source}")
    return Side(label, tree, None, False)


def build_side(side: Side, work: Path, venv: Path, cores: int) -> None:
    """Build a placed side's demo and keep its times beside its tree (for ``--reuse``)."""
    print(f"{side.label}: building the demo in {side.tree} (log {side.tree}.snakemake.log) …",
          flush=True)
    side.timing = build(side.tree, side_env(side.tree, venv, work), cores)
    marker = side.tree.parent / f"{side.tree.name}.{MARKER}"
    marker.write_text(json.dumps(asdict(side.timing)), encoding="utf-8")


def _files(tree: Path) -> set[str]:
    return {p.relative_to(tree).as_posix() for folder in COMPARED
            for p in (tree / folder).rglob("*") if p.is_file()}


def _diff(a: Path, b: Path, lines: int) -> list[str]:
    """A short unified diff of two text files (long lines cut); sizes for binary files."""
    try:
        old = a.read_text(encoding="utf-8").splitlines()
        new = b.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        return [f"binary: {a.stat().st_size} vs {b.stat().st_size} bytes"]
    out = [line if len(line) <= 160 else line[:157] + "..."
           for line in difflib.unified_diff(old, new, "a", "b", n=0, lineterm="")][2:]
    return out[:lines] + ([f"... {len(out) - lines} more diff lines"] if len(out) > lines else [])


def compare(a: Side, b: Side, diff_lines: int) -> int:
    """Print the per-file verdicts, each figure's data and image verdicts, and short diffs;
    the number of files that differ or exist on one side only."""
    ours, theirs = _files(a.tree), _files(b.tree)
    verdicts: dict[str, str] = {}
    for name in sorted(ours | theirs):
        if name not in theirs:
            verdicts[name] = f"only in {a.label}"
        elif name not in ours:
            verdicts[name] = f"only in {b.label}"
        else:
            same = filecmp.cmp(a.tree / name, b.tree / name, shallow=False)
            verdicts[name] = "same" if same else "DIFFERS"
    print(f"\nCompared files ({a.label} vs {b.label}):")
    for name, verdict in verdicts.items():
        print(f"  {verdict:<8} {name}")
    print("\nFigures (data: the table files a figure's record lists as its inputs):")
    for record in sorted(p for p in verdicts if p.startswith("results/figures/")
                         and p.endswith(".prov.json")):
        side = a if (a.tree / record).is_file() else b
        inputs = json.loads((side.tree / record).read_text(encoding="utf-8"))["inputs"]
        data = sorted(e["path"] for e in inputs.values()
                      if e["path"].startswith("results/tables/"))
        data_verdict = ("same" if all(verdicts.get(p) == "same" for p in data) else "DIFFERS")
        stem = record.removesuffix(".prov.json")
        images = ", ".join(f"{ext[1:]} {verdicts.get(stem + ext, 'missing')}" for ext in IMAGES)
        print(f"  {Path(stem).name}: data {data_verdict} ({len(data)} files), {images}")
    print("\nExcluded:")
    for name, reason in EXCLUDED.items():
        print(f"  {name}: {reason}")
    different = [name for name, verdict in verdicts.items() if verdict != "same"]
    for name in different:
        if verdicts[name] == "DIFFERS":
            print(f"\n--- {name}")
            print("\n".join(_diff(a.tree / name, b.tree / name, diff_lines)))
    print(f"\n{len(verdicts) - len(different)} same, "
          f"{sum(v == 'DIFFERS' for v in verdicts.values())} differ, "
          f"{sum(v.startswith('only') for v in verdicts.values())} on one side only")
    return len(different)


def print_times(sides: list[Side], cores: int) -> None:
    """Each side's Snakemake wall and CPU time, report wall time, job count and the load
    around its run, and the ratios second/first."""
    print(f"\nDemo time (--cores {cores}, {os.cpu_count()} CPUs, one side after the other; "
          "CPU s: all of the run's jobs; load: 1-minute average before/after):")
    print(f"  {'side':<28} {'snakemake s':>11} {'CPU s':>7} {'report s':>9} {'jobs':>5} "
          f"{'load':>11}")
    for side in sides:
        t = side.timing
        note = " (reused: an earlier run)" if side.reused else ""
        prepared = (f" (prepared {len(t.models_prepared)} model(s) into the shared cache: "
                    "its time includes that)" if t.models_prepared else "")
        report = "-" if t.report_s is None else f"{t.report_s:.1f}"
        cpu = "-" if t.snakemake_cpu_s is None else f"{t.snakemake_cpu_s:.1f}"
        load = "-" if t.load is None else f"{t.load[0]:.1f}/{t.load[1]:.1f}"
        print(f"  {side.label:<28} {t.snakemake_s:>11.1f} {cpu:>7} {report:>9} {t.jobs!s:>5} "
              f"{load:>11}{note}{prepared}")
    first, second = (s.timing for s in sides)
    ratios = f"snakemake wall {second.snakemake_s / first.snakemake_s:.3f}"
    if first.snakemake_cpu_s and second.snakemake_cpu_s:
        ratios += f", CPU {second.snakemake_cpu_s / first.snakemake_cpu_s:.3f}"
    print(f"  ratio {sides[1].label} / {sides[0].label}: {ratios}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", required=True, help="git revision of the first side")
    parser.add_argument("--against", default=WORKTREE,
                        help="git revision of the second side, or 'worktree' (the default: this "
                             "checkout's files now, uncommitted changes included)")
    parser.add_argument("--cores", type=int, default=2, help="snakemake --cores (default 2)")
    parser.add_argument("--keep", type=Path, help="build in this directory and keep it")
    parser.add_argument("--reuse", action="store_true",
                        help="with --keep: compare sides finished there by an earlier run "
                             "instead of building them again")
    parser.add_argument("--venv", type=Path, default=ROOT / ".venv",
                        help="the Python environment both sides run in (default: .venv)")
    parser.add_argument("--diff-lines", type=int, default=12,
                        help="diff lines shown per differing file (default 12)")
    args = parser.parse_args()
    if args.reuse and not args.keep:
        parser.error("--reuse needs --keep DIR")
    with tempfile.TemporaryDirectory(prefix="compare-demo-") as tmp:
        work = (args.keep or Path(tmp)).resolve()
        work.mkdir(parents=True, exist_ok=True)
        try:
            # resolved once: a commit made while the first side builds does not move the second
            # both trees are placed before either builds: the working tree as it is now
            shas = [resolve(args.rev), resolve(args.against)]
            venv = args.venv.resolve()
            sides = [place(rev, sha, work, venv, args.reuse,
                           again=index == 1 and shas[0] == shas[1])
                     for index, (rev, sha) in enumerate(zip((args.rev, args.against), shas,
                                                            strict=True))]
            for side in sides:
                if side.timing is None:
                    build_side(side, work, venv, args.cores)
        except BuildError as err:
            print(f"compare_demo: {err}", file=sys.stderr)
            return 2
        different = compare(*sides, args.diff_lines)
        print_times(sides, args.cores)
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
