"""The tests' Snakemake helper: its time limit, the one line a run past it fails with, and the
guard that keeps Snakemake out of tests not marked slow."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
import workflow_run
from workflow_run import running_steps, timeout_message, timeout_s

CONSOLE = """\
Building DAG of jobs...
Execute 2 jobs...
[Sun Nov 29 12:54:25 2026]
localrule derive_demo_medcalc:
    input: results/identity/data/medcalc-54ee4dabe01d3b99.json
    output: data/derived/medcalc/examples.jsonl
    jobid: 28
    resources: tmpdir=/tmp
[Sun Nov 29 12:54:25 2026]
rule generate_medcalc:
    input: results/jobs/generate/smollm2_135m/1-of-1.json
    jobid: 23
    wildcards: model=smollm2_135m
    resources: tmpdir=/tmp
Finished jobid: 28 (Rule: derive_demo_medcalc)
1 of 96 steps (1%) done
"""


def test_the_message_names_the_unfinished_step_the_time_and_the_setting() -> None:
    assert running_steps(CONSOLE) == ["generate_medcalc (model=smollm2_135m)"]
    message = timeout_message("snakemake all_tables", 1800, 1803.4, CONSOLE)
    assert message == (
        "snakemake all_tables timed out in step generate_medcalc (model=smollm2_135m) "
        "(1 of 96 steps done): stopped after 1803 s (limit 1800 s); set CLINEVAL_TEST_TIMEOUT "
        "to a larger number of seconds on a slow machine")


def test_a_run_stopped_before_or_between_steps_says_so() -> None:
    assert "timed out before any step started:" in timeout_message(
        "snakemake all_tables", 60, 61, "Building DAG of jobs...\n")
    finished = CONSOLE + "Finished jobid: 23 (Rule: generate_medcalc)\n2 of 96 steps (2%) done\n"
    assert running_steps(finished) == []
    assert "timed out between steps (2 of 96 steps done):" in timeout_message(
        "snakemake all_tables", 60, 61, finished)


def test_a_dry_run_names_three_steps_and_counts_the_rest() -> None:
    planned = "".join(f"rule score_{b}:\n    jobid: {i}\n" for i, b in enumerate("abcde"))
    assert "timed out in step score_a, score_b, score_c and 2 more: stopped" in timeout_message(
        "snakemake -n all_tables", 60, 61, planned)


def test_the_limit_is_a_setting(monkeypatch) -> None:
    monkeypatch.delenv("CLINEVAL_TEST_TIMEOUT", raising=False)
    assert timeout_s() == 1800
    monkeypatch.setenv("CLINEVAL_TEST_TIMEOUT", "3600")
    assert timeout_s() == 3600
    for bad in ("soon", "0", "-5"):
        monkeypatch.setenv("CLINEVAL_TEST_TIMEOUT", bad)
        with pytest.raises(pytest.UsageError, match=rf"CLINEVAL_TEST_TIMEOUT='{bad}': expected"):
            timeout_s()


def test_a_run_past_the_limit_fails_once_with_its_step_and_leaves_no_process(
        tmp_path: Path, monkeypatch) -> None:
    """A stand-in for Snakemake prints a started rule, starts a job of its own and waits: past
    the limit the whole process group is killed, its console kept, and the test fails with the
    one line (no traceback)."""
    pids = tmp_path / "job.pid"
    script = (
        "import subprocess, sys, time\n"
        "job = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
        f"open({str(pids)!r}, 'w').write(str(job.pid))\n"
        "sys.stderr.write('rule score_medcalc:\\n    jobid: 7\\n    wildcards: model=oracle\\n')\n"
        "sys.stderr.flush()\n"
        "time.sleep(120)\n")
    monkeypatch.setenv("CLINEVAL_TEST_TIMEOUT", "5")
    console = tmp_path / "console.txt"
    start = time.monotonic()
    with pytest.raises(pytest.fail.Exception) as failed:
        workflow_run.run_limited([sys.executable, "-c", script], os.environ, "snakemake x",
                                 console)
    assert time.monotonic() - start < 60
    assert not failed.value.pytrace
    assert str(failed.value.msg).startswith(
        "snakemake x timed out in step score_medcalc (model=oracle): stopped after ")
    assert "(limit 5 s)" in failed.value.msg and str(console) in failed.value.msg
    assert "rule score_medcalc:" in console.read_text(encoding="utf-8")
    job = int(pids.read_text())
    deadline = time.monotonic() + 10
    while _alive(job) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(job), "the stand-in's job outlived the time limit"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat")
    return not (status.exists() and status.read_text().split()[2] == "Z")  # a zombie is gone


def test_a_test_not_marked_slow_may_not_start_snakemake(tmp_path: Path) -> None:
    assert workflow_run.slow_test is False  # conftest.py set it for this test
    with pytest.raises(pytest.fail.Exception, match="starts Snakemake: mark it"):
        workflow_run.snakemake(tmp_path, "all_tables", "-n")
    assert not (tmp_path / ".snakemake").exists()
