"""Running the workflow from tests: Snakemake on the project's Snakefile in a work directory.

A Snakemake run gets ``CLINEVAL_TEST_TIMEOUT`` seconds (default 1800; CI on a slow or busy
machine raises it). One that runs longer is stopped with its jobs, and the test fails with one
line naming the step it was in (the rules Snakemake started and did not finish) and the time it
took. Only a test marked ``slow`` may start Snakemake (conftest.py sets :data:`slow_test` per
test).
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TIMEOUT_VARIABLE = "CLINEVAL_TEST_TIMEOUT"
DEFAULT_TIMEOUT_S = 1800.0
#: Whether the running test is marked slow (set by conftest.py before its fixtures).
slow_test = True


def timeout_s() -> float:
    """Seconds a Snakemake run of a test may take: ``CLINEVAL_TEST_TIMEOUT`` or the default."""
    raw = os.environ.get(TIMEOUT_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_TIMEOUT_S
    try:
        seconds = float(raw)
    except ValueError:
        seconds = 0.0
    if not seconds > 0:
        raise pytest.UsageError(f"{TIMEOUT_VARIABLE}={raw!r}: expected a number of seconds > 0")
    return seconds


def running_steps(console: str) -> list[str]:
    """The steps Snakemake's console shows started and not finished, in order, each a rule with
    its wildcards (``generate_medcalc (model=smollm2_135m)``)."""
    started: dict[str, str] = {}
    for block in re.finditer(r"^(?:local)?rule (\w+):\n((?:[ \t]+\S.*(?:\n|$))*)", console,
                             flags=re.M):
        rule, body = block.groups()
        wildcards = re.search(r"^\s+wildcards: (.*)$", body, flags=re.M)
        jobid = re.search(r"^\s+jobid: (\d+)$", body, flags=re.M)
        key = jobid[1] if jobid else f"#{block.start()}"
        started[key] = f"{rule} ({wildcards[1]})" if wildcards else rule
    for done in re.findall(r"^Finished jobid: (\d+)", console, flags=re.M):
        started.pop(done, None)
    return list(started.values())


def timeout_message(what: str, seconds: float, took: float, console: str) -> str:
    """The one line a run stopped at its time limit fails with: the steps it was in, how far it
    got, the time it took and the setting that raises the limit."""
    steps = running_steps(console)
    shown = ", ".join(steps[:3]) + (f" and {len(steps) - 3} more" if len(steps) > 3 else "")
    where = (f"in step {shown}" if steps
             else "between steps" if re.search(r"^(?:local)?rule ", console, flags=re.M)
             else "before any step started")
    progress = re.findall(r"^(\d+ of \d+ steps) \(\d+%\) done$", console, flags=re.M)
    done = f" ({progress[-1]} done)" if progress else ""
    return (f"{what} timed out {where}{done}: stopped after {took:.0f} s (limit {seconds:g} s); "
            f"set {TIMEOUT_VARIABLE} to a larger number of seconds on a slow machine")


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


def run_limited(cmd: Sequence[str], env: Mapping[str, str], what: str,
                console: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``cmd`` in a process group of its own within :func:`timeout_s`; past it, or when the
    test is interrupted, the whole group (Snakemake and its jobs) is killed. A run past the limit
    fails the test with :func:`timeout_message`, its output kept in ``console`` if given."""
    seconds, start = timeout_s(), time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(env), start_new_session=True)
    try:
        out, err = proc.communicate(timeout=seconds)
        timed_out = False
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid)
        out, err = proc.communicate()
        timed_out = True
    except BaseException:
        _kill_group(proc.pid)
        proc.communicate()
        raise
    if timed_out:  # failed outside the except block: the one line, no chained exception
        message = timeout_message(what, seconds, time.monotonic() - start, out + err)
        if console is not None:
            console.write_text(out + err, encoding="utf-8")
            message += f" (its console: {console})"
        pytest.fail(message, pytrace=False)
    return subprocess.CompletedProcess(list(cmd), proc.returncode, out, err)


def snakemake(workdir: Path, *args: str, overrides: str = "",
              env: Mapping[str, str] | None = None,
              console: Path | None = None) -> subprocess.CompletedProcess:
    """Run Snakemake in ``workdir`` (``env``: variables set on top of this process's) within
    :func:`timeout_s` (``console``: where a run stopped at the limit leaves its output)."""
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        **(env or {}),
    }
    env.pop("CLINEVAL_MEDCALC_CSV", None)
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "-s",
        str(REPO / "Snakefile"),
        "--directory",
        str(workdir),
        "--cores",
        "2",
        *args,
    ]
    if overrides:
        cmd += ["--config", f"overrides={overrides}"]
    if not slow_test:
        pytest.fail("this test starts Snakemake: mark it @pytest.mark.slow", pytrace=False)
    return run_limited(cmd, env, f"snakemake {' '.join(args)}", console)


def console_of(workdir: Path) -> Path:
    """Where a test keeps the console (stdout and stderr) of the run that built ``workdir``."""
    return workdir.parent / f"{workdir.name}.console.txt"


def planned_jobs(workdir: Path, overrides: str = "", target: str = "all_tables",
                 env: Mapping[str, str] | None = None) -> dict[str, int]:
    """Jobs a dry run of ``target`` would execute, per rule (empty when there is nothing to
    do)."""
    done = snakemake(workdir, target, "-n", "--quiet", "rules", overrides=overrides, env=env)
    assert done.returncode == 0, done.stderr
    if "Nothing to be done" in done.stdout + done.stderr:
        return {}
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", done.stdout + done.stderr, flags=re.M))
    jobs.pop("total", None)
    return {rule: int(n) for rule, n in jobs.items()}


def grid_folder(workdir: Path, grid: str) -> Path:
    """The one results folder of ``grid`` below ``workdir/results/grids/`` (``<grid>`` or
    ``<grid>@<tag>``: clineval.workflow.plan.roots)."""
    found = [p for p in (workdir / "results/grids").glob(f"{grid}*")
             if p.name == grid or p.name.startswith(f"{grid}@")]
    assert len(found) == 1, f"{grid}: expected one folder, found {found}"
    return found[0]


def audit(workdir: Path, overrides: str = "") -> subprocess.CompletedProcess:
    """``clineval audit`` of the grid ``overrides`` make, run in ``workdir``."""
    return subprocess.run(
        [sys.executable, "-m", "clineval.cli", "audit", "--conf", str(REPO / "conf"),
         *shlex.split(overrides)],
        capture_output=True, text=True, timeout=600, cwd=workdir,
    )
