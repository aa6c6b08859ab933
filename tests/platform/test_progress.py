"""Progress of long work: one line per interval (done of total, rate, ETA) in the job's log,
and on the console that started Snakemake through the job's progress file."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from workflow_run import console_of

from clineval import progress
from clineval.progress import Tracker, duration
from clineval.workflow.run.progress import Reporter


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_short_work_writes_nothing() -> None:
    lines: list[str] = []
    with Tracker(3, "scoring", "cells", seconds=10, send=lines.append) as tracker:
        for _ in range(3):
            tracker.update()
    assert lines == []


def test_a_line_per_interval_with_rate_and_eta_then_the_last_one() -> None:
    clock, lines = Clock(), []
    with Tracker(53, "smollm2 (27 cells)", "requests", seconds=20, clock=clock,
                 send=lines.append) as tracker:
        clock.now += 5
        tracker.update(8)  # before the first interval: nothing
        clock.now += 110
        tracker.update(16)  # 24 in 115 s
        clock.now += 10
        tracker.update(8)  # 10 s after the last line: nothing
        clock.now += 60
    assert lines == [
        "smollm2 (27 cells): 24/53 requests, 0.21 requests/s, ETA 2m19s, 1m55s elapsed",
        "smollm2 (27 cells): 32/53 requests, done in 3m05s",
    ]


def test_a_long_batch_still_reports_at_each_interval() -> None:
    """No count moves during one long engine call: the heartbeat writes the line anyway."""
    lines: list[str] = []
    with Tracker(2, "vllm", "requests", seconds=0.2, send=lines.append):
        time.sleep(0.7)
    assert len(lines) >= 3, lines
    assert lines[0].startswith("vllm: 0/2 requests, 0.00 requests/s, ETA unknown, ")
    assert lines[-1].startswith("vllm: 0/2 requests, done in ")


def test_durations() -> None:
    assert [duration(s) for s in (4.4, 59.6, 125, 3720)] == ["4s", "1m00s", "2m05s", "1h02m"]


def test_a_steps_job_and_file_follow_its_manifest(monkeypatch) -> None:
    monkeypatch.setattr(progress, "CHANNEL", progress.Channel())
    progress.for_job(Path("results/grids/g@1f/jobs/generate/smollm2_135m/1-of-1.json"),
                     "generate")
    assert progress.CHANNEL.job == "generate smollm2_135m/1-of-1"
    assert progress.CHANNEL.file == Path(
        "results/grids/g@1f/logs/progress/generate/smollm2_135m/1-of-1.txt")


def test_lines_go_to_stderr_and_replace_the_jobs_file(tmp_path, monkeypatch, capsys) -> None:
    file = tmp_path / "logs/progress/score/m/clue.txt"
    monkeypatch.setattr(progress, "CHANNEL", progress.Channel("score m/clue", file))
    monkeypatch.setenv(progress.VARIABLE, "0")  # every step of the count (and the last)
    assert list(progress.progress(range(2), "scoring", unit="cells")) == [0, 1]
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("score m/clue: scoring: 1/2 cells, ")
    assert err[-1].startswith("score m/clue: scoring: 2/2 cells, done in ")
    assert file.read_text() == err[-1] + "\n"


def test_the_console_prints_each_new_line_once_and_none_of_earlier_runs(tmp_path) -> None:
    folder = tmp_path / "logs/progress"
    stale = folder / "generate/old/1-of-1.txt"
    stale.parent.mkdir(parents=True)
    stale.write_text("generate old/1-of-1: x: 3/3 requests, done in 1m00s\n")
    shown: list[str] = []
    reporter = Reporter(folder, send=shown.append, poll=3600).start()
    job = folder / "generate/m/1-of-1.txt"
    job.parent.mkdir(parents=True)
    job.write_text("generate m/1-of-1: m: 8/53 requests\n")
    reporter.poll()
    reporter.poll()
    job.write_text("generate m/1-of-1: m: 53/53 requests, done in 2m00s\n")
    reporter.stop()
    assert shown == ["clineval: generate m/1-of-1: m: 8/53 requests",
                     "clineval: generate m/1-of-1: m: 53/53 requests, done in 2m00s"]


def test_clineval_score_shows_its_progress_on_the_terminal(tmp_path, monkeypatch, capsys):
    """``clineval score``: the scoring's lines on stderr (every step here, interval 0)."""
    from clineval.cli import main
    from clineval.io import write_jsonl

    monkeypatch.setenv(progress.VARIABLE, "0")
    monkeypatch.setattr(progress, "CHANNEL", progress.Channel())
    options = {"A": "Aspirin", "B": "Heparin", "C": "Insulin", "D": "Warfarin"}
    write_jsonl(tmp_path / "examples.jsonl", [
        {"id": f"q{i}", "question": "Which one?", "options": options, "answer": "B"}
        for i in range(3)])
    write_jsonl(tmp_path / "predictions.jsonl",
                [{"id": f"q{i}", "output": "Answer: B"} for i in range(3)])
    assert main(["score", "mcqa", "--task", "mcqa", "--examples",
                 str(tmp_path / "examples.jsonl"), "--predictions",
                 str(tmp_path / "predictions.jsonl"), "--json"]) == 0
    err = capsys.readouterr().err.splitlines()
    lines = [line for line in err if line.startswith("Medical MCQA scoring: ")]
    assert re.match(r"Medical MCQA scoring: 1/3 examples, \S+ examples/s, ETA \S+, ", lines[0])
    assert re.match(r"Medical MCQA scoring: 3/3 examples, done in \d+s$", lines[-1])


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
