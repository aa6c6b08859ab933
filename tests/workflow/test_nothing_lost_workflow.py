"""Nothing finished is lost: failing jobs, killed runs and missing files (issue 25).

One small finished run (the constant baseline on two MedCalc-Bench demo rows, zero-shot, Table 2,
its figures and the report) is broken in turn by a failing data job, a failing table job, a
SIGKILL during generation, a Ctrl-C during scoring and files deleted by hand. After each, every
finished file is still there (or rebuilt by the plain README command, with no extra flag) and the
tables are byte-identical to the finished run's.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from workflow_run import REPO, audit, snakemake

GRID = ("grid.select.models=[constant] grid.select.tasks=[medcalc] grid.select.modes=[zero_shot] "
        "grid.select.tables=[medcalc_table2] tasks.medcalc.data.demo.calculators=[2,3]")
# changes the generation identity of every cell, not one byte of any table file
NEW_REVISION = f"{GRID} models.constant.revision=r2"
TABLES = ("csv", "md", "tex", "stats.json", "stats.md", "metrics.json")


def snapshot(work: Path) -> dict[str, bytes]:
    """Every finished file of the run (not logs, identities, job manifests, caches or
    Snakemake's state)."""
    skip = ("results/logs/", "results/identity/", "results/jobs/", "results/cache/",
            ".snakemake/")
    return {
        str(p.relative_to(work)): p.read_bytes()
        for p in sorted(work.rglob("*"))
        if p.is_file() and not str(p.relative_to(work)).startswith(skip)
    }


def tables(work: Path) -> dict[str, bytes]:
    return {ext: (work / f"results/tables/medcalc_table2.{ext}").read_bytes() for ext in TABLES}


def run(work: Path, overrides: str = GRID) -> subprocess.CompletedProcess:
    return snakemake(work, "all_tables", overrides=overrides)


def interrupt(work: Path, when: str, sig: int, overrides: str) -> None:
    """Start the README command and send ``sig`` to its whole process group (Snakemake and its
    jobs, as a terminal's Ctrl-C or a killed session does) as soon as ``when`` appears."""
    (work / when).unlink(missing_ok=True)  # a log of the job: the earlier run's is not a sign
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--directory",
           str(work), "--cores", "2", "all_tables", "--config", f"overrides={overrides}"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 300
    try:
        while not (work / when).exists():
            assert proc.poll() is None, f"the run ended before {when} appeared"
            assert time.monotonic() < deadline, f"{when} did not appear"
            time.sleep(0.02)
        os.killpg(proc.pid, sig)
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> tuple[Path, dict[str, bytes]]:
    work = tmp_path_factory.mktemp("finished")
    done = run(work)
    assert done.returncode == 0, done.stderr[-3000:]
    return work, snapshot(work)


def timed(name: str) -> bool:
    """Files that may name the git commit or hold run times (provenance records, generation
    summaries, the report): rebuilt, they may differ from the first run's (the checkout's
    commit can move while the tests run)."""
    return (name.endswith((".prov.json", "provenance.json", ".meta.json", "run-summary.json"))
            or name.startswith("results/report/"))


def assert_as_finished(work: Path, before: dict[str, bytes]) -> None:
    after = snapshot(work)
    assert sorted(after) == sorted(before)
    changed = [name for name in before if after[name] != before[name] and not timed(name)]
    assert not changed, changed


def assert_kept(work: Path, start: dict[str, bytes], record: str) -> None:
    """Every file of ``start`` is there with its bytes, but the failed job's ``record``."""
    after = snapshot(work)
    assert sorted(after) == sorted(set(start) - {record})
    changed = [name for name in after if after[name] != start[name]]
    assert not changed, changed


@pytest.mark.slow
def test_a_failing_data_job_keeps_the_derived_data_and_everything_after_it(finished, tmp_path):
    work, before = finished
    start = snapshot(work)
    # a broken official exemplar file fails in the derive job itself (the plan accepts the
    # setting, and the data check at start reads official tasks' sources only)
    broken = tmp_path / "exemplars.json"
    broken.write_text("{not json", encoding="utf-8")
    failed = run(work, f"{GRID} tasks.medcalc.exemplars.source=official "
                       f"tasks.medcalc.exemplars.official_path={broken}")
    assert failed.returncode != 0
    assert "Error in rule derive_demo_medcalc" in failed.stderr
    # only the job's record (the mark that it finished for its settings) is gone
    assert_kept(work, start, "data/derived/medcalc/provenance.json")
    done = run(work)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "derive_demo_medcalc" in done.stderr  # the record is made again
    assert_as_finished(work, before)


#: Loaded by every Python process of a run (``sitecustomize`` on ``PYTHONPATH``): the table step
#: fails as a crash would (the plan accepts every table setting it could fail on).
FAILING_TABLE_STEP = """
import importlib.abc, importlib.machinery, sys

class FailingTableStep(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "clineval.workflow.steps.entry":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)

            def table(*args, **kwargs):
                raise OSError("no space left on device (injected by the test)")

            module.table = table

        spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, FailingTableStep())
"""


@pytest.mark.slow
def test_a_failing_table_job_keeps_the_previous_tables(finished, tmp_path, monkeypatch):
    work, before = finished
    start = snapshot(work)
    (tmp_path / "sitecustomize.py").write_text(FAILING_TABLE_STEP, encoding="utf-8")
    kept = os.environ.get("PYTHONPATH")  # a checkout's src/ that the run imports stays
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(tmp_path), kept) if p))
    failed = run(work, f"{GRID} tables.medcalc_table2.decimals=3")  # a new table identity
    assert failed.returncode != 0
    assert "Error in rule table" in failed.stderr
    assert "no space left on device (injected by the test)" in failed.stderr
    assert_kept(work, start, "results/tables/medcalc_table2.prov.json")
    monkeypatch.undo()
    done = run(work)
    assert done.returncode == 0, done.stderr[-3000:]
    assert_as_finished(work, before)


@pytest.mark.slow
def test_killed_generation_and_interrupted_scoring_resume_with_the_plain_command(finished):
    work, before = finished
    generations = sorted(n for n in before if n.startswith("results/generations/"))
    # SIGKILL while the generation job of a changed model runs: its files stay, the lock and
    # the incomplete markers of the killed run stay behind
    interrupt(work, "results/logs/generations/constant-1-of-1.log", signal.SIGKILL, NEW_REVISION)
    assert list((work / ".snakemake/locks").glob("*.lock")), "the kill left no lock"
    assert list((work / ".snakemake/incomplete").rglob("*")), "the kill missed the job"
    assert all((work / name).is_file() for name in generations if name.endswith(".jsonl"))
    done = run(work, NEW_REVISION)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "removed the lock of an interrupted run" in done.stderr
    assert tables(work) == {ext: before[f"results/tables/medcalc_table2.{ext}"] for ext in TABLES}
    # Ctrl-C while the scoring job runs, on the way back to the first settings
    interrupt(work, "results/logs/scores/constant/medcalc.log", signal.SIGINT, GRID)
    done = run(work)
    assert done.returncode == 0, done.stderr[-3000:]
    assert_as_finished(work, before)
    summary = (work / "results/generations/constant/run-summary.json").read_text()
    assert '"generated": 0' in summary  # every request came from the cache


@pytest.mark.slow
def test_deleted_files_are_found_by_the_audit_and_rebuilt_by_the_plain_command(finished):
    work, before = finished
    gone = ["results/generations/constant/medcalc/zero_shot.jsonl",
            "results/scores/constant/medcalc/zero_shot.prov.json",
            "data/derived/medcalc/exemplars.jsonl"]
    for name in gone:
        (work / name).unlink()
    checked = audit(work, GRID)
    assert checked.returncode != 0  # a missing file is never a pass
    assert "BROKEN  medcalc_table2" in checked.stdout
    assert "is missing" in checked.stdout and "`snakemake all_tables`" in checked.stdout
    done = run(work)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "finished file(s) missing, rebuilt" in done.stderr
    assert_as_finished(work, before)
    again = snakemake(work, "all_tables", "-n", overrides=GRID)
    assert "Nothing to be done" in again.stdout + again.stderr
