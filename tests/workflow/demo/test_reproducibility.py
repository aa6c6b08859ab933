"""DVC and the auditor's path, end to end in temporary directories.

A copy of the project is committed to a scratch git repository (the "origin"), the demo is built
there with ``dvc repro`` and pushed to a scratch remote; an auditor clones it, pulls, rebuilds
every table with Snakemake without running any generation, compares bytes and audits. The
session's demo (tests/conftest.py, a Snakemake run of its own) is the second fresh run that the
origin's bytes are compared with, and lends the origin SmolLM2's answers (its cache).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from doc_blocks import block, commands

from clineval.provenance.hashing import sha256_file

REPO = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
pytestmark = pytest.mark.slow
TABLE_FILES = [f"{t}.{ext}" for t in ("medcalc_table2", "clue_table3", "meddisk_table4",
                                      "clibench_table3", "medeval_table2", "leaderboard")
               for ext in ("csv", "md", "tex", "metrics.json")]


def run(cwd: Path, *cmd: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "DVC_NO_ANALYTICS": "1",
        "GIT_AUTHOR_NAME": "test", "GIT_AUTHOR_EMAIL": "test@example.org",
        "GIT_COMMITTER_NAME": "test", "GIT_COMMITTER_EMAIL": "test@example.org",
    }
    for name in ("CLINEVAL_MEDCALC_CSV", "CLINEVAL_MEDCALC_EXEMPLARS"):
        env.pop(name, None)
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, timeout=1500)
    if check:
        assert done.returncode == 0, f"{cmd}: {done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def dry_run_jobs(cwd: Path, *targets: str) -> dict[str, int]:
    """Jobs ``snakemake -n`` would run, per rule (empty: nothing to do)."""
    done = run(cwd, "snakemake", *(targets or ("all_tables",)), "-n", "--quiet", "rules",
               "--cores", "2")
    out = done.stdout + done.stderr
    if "Nothing to be done" in out:
        return {}
    jobs = {rule: int(n) for rule, n in re.findall(r"^(\w+)\s+(\d+)$", out, flags=re.M)}
    jobs.pop("total", None)
    return jobs


def tracked_copy(dest: Path) -> None:
    """The project's git-tracked files (a clean checkout) in a new git repository."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        source = REPO / name
        if source.is_symlink():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            os.symlink(os.readlink(source), dest / name)
        elif source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    run(dest, "git", "init", "-q")
    run(dest, "git", "add", "-A")
    run(dest, "git", "commit", "-qm", "checkout")


#: The model whose answers the origin takes from the session demo's generation cache: its
#: generation is the demo's slowest job, and the demo fixture has just run it afresh.
CACHED_MODEL = "smollm2_135m"


@pytest.fixture(scope="module")
def origin(tmp_path_factory, demo) -> Path:
    """A clean checkout where ``dvc repro`` built the demo and ``dvc push`` stored it. Every
    job runs from scratch there, every other model's generation included; SmolLM2's answers
    come from the session demo's generation cache (its job loads no engine)."""
    root = tmp_path_factory.mktemp("repro")
    origin, remote = root / "origin", root / "remote"
    origin.mkdir()
    tracked_copy(origin)
    (origin / "dvc.lock").unlink(missing_ok=True)  # built here from scratch
    cache = Path("results/cache") / CACHED_MODEL
    shutil.copytree(demo / cache, origin / cache)
    run(origin, "dvc", "remote", "modify", "--local", "local", "url", str(remote))
    run(origin, "dvc", "repro")
    run(origin, "dvc", "push")
    run(origin, "git", "add", "dvc.lock")
    run(origin, "git", "commit", "-qm", "demo results")
    return origin


def test_dvc_and_snakemake_agree_after_repro(origin):
    status = run(origin, "dvc", "status")
    assert "Data and pipelines are up to date" in status.stdout
    assert dry_run_jobs(origin) == {}


def test_committed_lock_holds_the_tables_a_fresh_run_builds(origin):
    """The project's dvc.lock is current: its table hashes are those of a fresh demo run."""
    committed = yaml.safe_load((REPO / "dvc.lock").read_text())["stages"]["tables"]["outs"]
    recorded = {Path(out["path"]).name: out["md5"] for out in committed}
    for name in (n for n in TABLE_FILES if not n.endswith(".metrics.json")):
        digest = subprocess.run(["md5sum", origin / "results/tables" / name], text=True,
                                capture_output=True, check=True).stdout.split()[0]
        assert recorded[name] == digest, name


def test_two_fresh_runs_give_identical_tables_and_generations(origin, demo):
    """``dvc repro`` in a clean checkout and the session's demo (Snakemake, started afresh in
    another directory: tests/conftest.py) build the same bytes: data, requests, the smoke
    model's and the baselines' generations, scores and tables (SmolLM2's answers are the
    demo's, from its cache)."""
    again = demo
    for name in TABLE_FILES:
        assert (again / "results/tables" / name).read_bytes() == (
            origin / "results/tables" / name).read_bytes(), name
    generations = sorted((origin / "results/generations").rglob("*.jsonl"))
    assert len(generations) == 102  # every cell of the demo grid (five benchmarks)
    for path in generations:
        twin = again / path.relative_to(origin)
        assert sha256_file(twin) == sha256_file(path), path
    summary = json.loads((origin / "results/generations" / CACHED_MODEL / "run-summary.json"
                          ).read_text())
    assert summary["engine_loads"] == 0  # the cache answered every request
    fresh = json.loads((origin / "results/generations/tiny_llama/run-summary.json").read_text())
    assert fresh["engine_loads"] == 1 and all(c["from_cache"] == 0 for c in fresh["cells"])


def test_auditor_pulls_and_rebuilds_every_table_without_generating(origin, tmp_path):
    """The README's auditor commands (readme-audit; its `make setup` and `source` are this
    test's environment), in a clone whose remote is the origin's."""
    setup, pull, build, audit = (c.split() for c in commands(block("README.md",
                                                                     "readme-audit")))
    assert setup[:2] == ["make", "setup"] and (pull, audit) == (["dvc", "pull"],
                                                               ["clineval", "audit"])
    auditor = tmp_path / "auditor"
    run(tmp_path, "git", "clone", "-q", str(origin), str(auditor))
    remote = run(origin, "dvc", "config", "--local", "remote.local.url").stdout.strip()
    run(auditor, "dvc", "remote", "modify", "--local", "local", "url", remote)
    run(auditor, *pull)
    assert run(auditor, *audit).returncode == 0  # before any Snakemake start
    assert dry_run_jobs(auditor) == {}  # pulled generations are not stale
    built = run(auditor, *build)
    assert "Nothing to be done" in built.stdout + built.stderr
    for name in TABLE_FILES:
        assert (auditor / "results/tables" / name).read_bytes() == (
            origin / "results/tables" / name).read_bytes(), name
    assert run(auditor, *audit).returncode == 0
    assert "Data and pipelines are up to date" in run(auditor, "dvc", "status").stdout

    # the auditor deletes the tables: Snakemake rebuilds them and only them, identically
    shutil.rmtree(auditor / "results/tables")
    built_tables = {p.name.split(".")[0] for p in (origin / "results/tables").glob("*.md")}
    figures = len(list((origin / "results/figures").glob("*.png")))  # they read the tables
    assert dry_run_jobs(auditor) == {"table": len(built_tables), "figure": figures,
                                     "report": 1, "all_tables": 1}
    run(auditor, "snakemake", "all_tables", "--cores", "2")
    for name in TABLE_FILES:
        assert (auditor / "results/tables" / name).read_bytes() == (
            origin / "results/tables" / name).read_bytes(), name

    # one tampered generation breaks the chain at that generation
    target = auditor / "results/generations/oracle/medcalc/cot.jsonl"
    text = target.read_text()
    target.write_text(text.replace('"output": "', '"output": "0 ', 1))
    audit = run(auditor, "clineval", "audit", "medcalc_table2", check=False)
    assert audit.returncode == 1
    assert "BROKEN" in audit.stdout
    assert "results/generations/oracle/medcalc/cot.jsonl" in audit.stdout


def test_table_only_change_reruns_only_the_table_stage(origin, tmp_path):
    work = tmp_path / "work"
    shutil.copytree(origin, work, symlinks=True)
    spec = work / "conf/table/medcalc_table2.yaml"
    spec.write_text(spec.read_text().replace("\ndecimals: 2", "\ndecimals: 1"))
    assert "plan" in run(work, "dvc", "status").stdout
    # the table, its two figures (medcalc_bars, medcalc_modes) and the report showing them
    assert dry_run_jobs(work) == {"table": 1, "figure": 2, "report": 1, "all_tables": 1}
    repro = run(work, "dvc", "repro")
    out = repro.stdout + repro.stderr
    for stage in ("data", "generations", "scores"):
        assert f"Stage '{stage}' didn't change, skipping" in out, stage
    assert "Running stage 'tables'" in out
    assert "Data and pipelines are up to date" in run(work, "dvc", "status").stdout
    assert dry_run_jobs(work) == {}


def test_outputs_marked_push_false_stay_off_the_remote(tmp_path):
    """How the credentialed guard reaches DVC: an out with ``push: false`` is never pushed."""
    run(tmp_path, "git", "init", "-q")
    run(tmp_path, "dvc", "init", "-q")
    run(tmp_path, "dvc", "remote", "add", "-d", "store", str(tmp_path / "store"))
    (tmp_path / "dvc.yaml").write_text(yaml.safe_dump({"stages": {"make": {
        "cmd": "echo public > public.txt && echo credentialed > private.txt",
        "outs": [{"public.txt": {"persist": True}},
                 {"private.txt": {"persist": True, "push": False}}],
    }}}))
    run(tmp_path, "dvc", "repro")
    run(tmp_path, "dvc", "push")
    stored = {p.read_bytes() for p in (tmp_path / "store").rglob("*") if p.is_file()}
    assert b"public\n" in stored and b"credentialed\n" not in stored
