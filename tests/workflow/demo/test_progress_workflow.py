"""Progress of long work: one line per interval (done of total, rate, ETA) in the job's log,
and on the console that started Snakemake through the job's progress file."""

from __future__ import annotations

import re

import pytest
from workflow_run import console_of

from clineval import progress


@pytest.mark.slow
def test_the_demos_console_shows_its_long_jobs_progress(demo) -> None:
    """The session demo's console (Snakemake's own output: every rule sends its step's output
    to the log) shows SmolLM2's generation as it goes, one line at a time; its log holds the
    same lines, no more than one per interval."""
    console = console_of(demo).read_text(encoding="utf-8").splitlines()
    head = "clineval: generate smollm2_135m/1-of-1: smollm2_135m ("
    shown = [line.removeprefix("clineval: ") for line in console if line.startswith(head)]
    assert shown, "no progress line of SmolLM2's generation on the console"
    assert re.search(r": \d+/(\d+) requests, [\d.]+ requests/s, ETA \S+, \S+ elapsed$",
                     shown[0]), shown
    assert re.search(r": (\d+)/\1 requests, done in \S+$", shown[-1]), shown
    log = (demo / "results/logs/generations/smollm2_135m-1-of-1.log").read_text(encoding="utf-8")
    logged = [line for line in log.splitlines() if line.startswith("generate smollm2_135m/")]
    assert set(shown) <= set(logged)
    took = re.search(r"done in (?:(\d+)m)?(\d+)s$", logged[-1])
    seconds = 60 * int(took[1] or 0) + int(took[2])
    assert len(logged) <= seconds / progress.DEFAULT_SECONDS + 2, logged
