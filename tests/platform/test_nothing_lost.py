"""Nothing finished is lost: failing jobs, killed runs and missing files (issue 25).

One small finished run (the constant baseline on two MedCalc-Bench demo rows, zero-shot, Table 2,
its figures and the report) is broken in turn by a failing data job, a failing table job, a
SIGKILL during generation, a Ctrl-C during scoring and files deleted by hand. After each, every
finished file is still there (or rebuilt by the plain README command, with no extra flag) and the
tables are byte-identical to the finished run's.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from clineval.workflow.plan.jobs.job import Job
from clineval.workflow.run import locks, missing


def test_missing_outputs_of_a_started_job_or_of_a_finished_consumer_are_found(tmp_path):
    def job(name, inputs, outputs):
        return Job(name, (), "", {}, {"in": [str(tmp_path / p) for p in inputs]},
                   {"out": [str(tmp_path / p) for p in outputs]})

    for name in ("gen.jsonl", "score.json", "table.md", "other.jsonl"):
        (tmp_path / name).write_text("x")
    jobs = [
        job("generate", [], ["gen.jsonl", "gen.meta.json"]),  # its record is gone
        job("derive", [], ["derived.jsonl"]),                  # gone, its consumer is finished
        job("score", ["derived.jsonl", "gen.jsonl"], ["score.json"]),
        job("table", ["score.json"], ["table.md"]),
        job("new", ["nothing.jsonl"], ["new.jsonl"]),          # not built yet: no consumer
        job("other", [], ["other.jsonl"]),
    ]
    assert missing.find(jobs) == [("generate", [str(tmp_path / "gen.meta.json")]),
                                  ("derive", [str(tmp_path / "derived.jsonl")])]


def test_a_lock_is_removed_only_when_every_owner_is_a_dead_process_on_this_host(tmp_path):
    lock_dir = tmp_path / ".snakemake/locks"
    lock_dir.mkdir(parents=True)
    (lock_dir / "0.input.lock").write_text("results/x\n")
    host = socket.gethostname()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # a pid that no longer runs
    # a live process whose command line names snakemake, as a running Snakemake's does
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "snakemake"])
    try:
        while b"snakemake" not in Path(f"/proc/{live.pid}/cmdline").read_bytes():
            time.sleep(0.01)  # until it has exec'd
        for owner in (f"{host}.{live.pid}", f"elsewhere.example.{dead.pid}"):
            (lock_dir / f"{locks.OWNER_PREFIX}{owner}").touch()
            assert locks.clear_stale(tmp_path) is None  # it may run: the lock stays
            assert (lock_dir / "0.input.lock").exists()
            (lock_dir / f"{locks.OWNER_PREFIX}{owner}").unlink()
    finally:
        live.kill()
        live.wait()
    # no recorded owner (a run before this record existed): left to `snakemake --unlock`
    assert locks.clear_stale(tmp_path) is None
    # this test's own pid is alive but is no Snakemake (a reused pid), the other one is dead
    for pid in (os.getpid(), dead.pid):
        (lock_dir / f"{locks.OWNER_PREFIX}{host}.{pid}").touch()
    message = locks.clear_stale(tmp_path)
    assert message is not None and str(dead.pid) in message
    assert not list(lock_dir.iterdir())


def test_a_job_refused_before_its_step_ran_is_not_counted_as_done(tmp_path, monkeypatch):
    """The state a refused cluster submission leaves (tests/workflow/test_slurm.py makes it for
    real): the files and record of the earlier identity, and Snakemake's metadata of a finished
    job with the new identity file. The next start forgets that metadata and dates the files
    before their inputs, so Snakemake runs the job."""
    monkeypatch.chdir(tmp_path)
    identity = "results/identity/gen-new.json"
    out, record = "results/gen.jsonl", "results/gen.meta.json"
    Path("results/identity").mkdir(parents=True)
    for path, text in ((identity, "{}"), (out, "old"), (record, '{"identity": "old"}')):
        Path(path).write_text(text)
    job = Job("generate", (), "", {}, {"identity": [identity]}, {"out": [out, record]},
              [(record, "new")])
    metadata = [missing._metadata_file(p, Path(".snakemake")) for p in (out, record)]
    for meta in metadata:
        meta.parent.mkdir(parents=True, exist_ok=True)
        meta.write_text(json.dumps({"input": [identity]}))
    log = Path(".snakemake/log/1.snakemake.log")
    log.parent.mkdir(parents=True)
    log.write_text("Building DAG of jobs...\n")
    assert missing.forget_unfinished([job]) == []  # no failed run: nothing is read
    log.write_text("Error in rule generate_constant:\n")
    assert missing.forget_unfinished([job]) == ["generate"]
    assert not any(meta.exists() for meta in metadata)
    assert os.stat(out).st_mtime_ns < os.stat(identity).st_mtime_ns
    assert Path(out).read_text() == "old"  # the files themselves are kept
    # Snakemake's metadata names the earlier inputs: it re-runs the job by itself
    metadata[0].write_text(json.dumps({"input": ["results/identity/gen-old.json"]}))
    assert missing.forget_unfinished([job]) == []
    assert metadata[0].exists()


def test_a_job_is_named_by_its_step_and_key_with_a_shard_as_k_of_n():
    def named(*key: str) -> str:
        return Job("generate", key, "", {}, {}, {}).name

    assert named("oracle", "1-of-1") == "generate oracle"
    assert named("oracle", "2-of-3") == "generate oracle 2/3"
    assert Job("score", ("oracle", "medcalc"), "", {}, {}, {}).name == "score oracle medcalc"
