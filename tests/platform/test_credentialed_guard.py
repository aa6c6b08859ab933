"""The data-access guard (clineval.workflow.plan.access): a remote model receives a cell's data only
when the files the cell reads may go to it. It judges the cells the plan builds (after
grid.select, a table selection, skipped tasks) and the tiers of the files each reads: the demo's
synthetic files go anywhere; official files have the least tier their benchmark declares
(MIMIC's credentialed, MedDisK's KB unreleased, ...), which a task's access may raise but not
lower; restricted tiers stop an API model unless its config allows that tier, and a cell let
through that way is named on stderr and recorded (data_access). No API key reaches a file the
run writes or its console (a real run of the issue's command against a local stand-in for the
API)."""

from __future__ import annotations

import json
import re
import secrets
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from workflow_run import grid_folder, snakemake

from clineval.benchmarks.meddisk.synthetic import write_demo_kb
from clineval.errors import ConfigError
from clineval.mimic.synthetic_mimic4 import Layout, write_mimic4
from clineval.workflow.plan.build import build_plan

REPO = Path(__file__).resolve().parents[2]
CONF = REPO / "conf"
GPT4O = "+model@models.gpt4o=gpt4o"
#: CliBench's tasks in the plan's order (the grid's)
CLIBENCH = ("clibench_diagnoses", "clibench_procedures", "clibench_labs",
            "clibench_prescriptions")


def plan(tmp_path: Path, *overrides: str):
    return build_plan(CONF, list(overrides), results=tmp_path / "results",
                      data_root=tmp_path / "data")


def refused(tmp_path: Path, *overrides: str) -> str:
    with pytest.raises(ConfigError) as err:
        plan(tmp_path, *overrides)
    return str(err.value)


def gpt4o_cells(p) -> set[str]:
    return {c.path for c in p.cells if c.model == "gpt4o"}


@pytest.fixture(scope="module")
def mimic(tmp_path_factory) -> Path:
    """A MIMIC-IV in the official layout (the synthetic one, standing in for PhysioNet's)."""
    root = tmp_path_factory.mktemp("mimic")
    write_mimic4(Layout(root), 40, seed=0)
    return root


def official_clibench(mimic: Path, *tasks: str) -> list[str]:
    """Overrides that point ``tasks`` at the official files of ``mimic``."""
    layout = Layout(mimic)
    own = {"clibench_labs": {"loinc_hierarchy": layout.loinc_hierarchy,
                             "lab_loinc_map": layout.lab_loinc_map},
           "clibench_prescriptions": {"ndc_atc": layout.ndc_atc,
                                      "atc_titles": layout.atc_titles}}
    return [f"tasks.{task}.data.{key}={value}" for task in tasks
            for key, value in {"source": "official", "hosp": mimic / "hosp",
                               "note": mimic / "note", **own.get(task, {})}.items()]


def test_a_table_selection_sends_only_its_cells(tmp_path):
    """The issue's command: GPT-4o added to the demo, one table built. Only MedCalc-Bench's
    cells are planned, and MedCalc-Bench is public (and the demo's files synthetic)."""
    p = plan(tmp_path, GPT4O, "grid.select.models=[gpt4o]", "grid.select.tables=[medcalc_table2]")
    assert gpt4o_cells(p) == {f"gpt4o/medcalc/{m}" for m in ("zero_shot", "cot", "one_shot")}
    assert list(p.tables) == ["medcalc_table2"]


def test_the_paper_grid_plans_an_api_model_on_public_files(tmp_path):
    csv = tmp_path / "test_data.csv"
    csv.write_text("Row Number,Calculator ID\n", encoding="utf-8")  # planning reads no row
    p = plan(tmp_path, "grid=medcalc_paper", GPT4O, f"tasks.medcalc.data.path={csv}")
    assert p.tier("medcalc") == "public" and not p.credentialed("medcalc")
    assert len(gpt4o_cells(p)) == 3


def test_synthetic_demo_files_go_to_an_api_model(tmp_path):
    """The demo's CliBench, CLUE, MedDisK and MedEval files are the project's synthetic data:
    whatever a task declares for its official files, its demo cells plan with an API model."""
    p = plan(tmp_path, "grid=clibench_demo", GPT4O)
    assert gpt4o_cells(p) == {f"gpt4o/{task}/zero_shot" for task in CLIBENCH}
    for task in CLIBENCH:
        assert p.cfg["tasks"][task]["access"] == "credentialed"
        assert p.tier(task) == "synthetic" and not p.credentialed(task)
    everything = plan(tmp_path, GPT4O)  # the whole demo grid
    assert {c.task for c in everything.cells if c.model == "gpt4o"} == set(everything.cfg["tasks"])


def test_official_mimic_files_stop_an_api_model_with_the_cells_and_the_setting(tmp_path, mimic):
    message = refused(tmp_path, "grid=clibench_demo", GPT4O, *official_clibench(mimic, *CLIBENCH))
    first = message.splitlines()[0]
    cells = ", ".join(f"gpt4o/{task}/zero_shot" for task in CLIBENCH)
    assert first.startswith(f"models.gpt4o (openai backend) would receive credentialed data "
                            f"from 4 cells: {cells}. A data use agreement (PhysioNet's for "
                            "MIMIC) forbids sharing it with third parties. Set "
                            "models.gpt4o.access.allow_credentialed_data=true only for "), first
    assert f"({', '.join(sorted(CLIBENCH))}: access credentialed)" in message
    assert "unreleased" not in message and "allow_private_data" not in message


def test_only_the_cells_that_read_credentialed_files_are_named(tmp_path, mimic):
    """In the demo grid with one CliBench task on official files, GPT-4o's other cells (the
    other CliBench tasks' synthetic files, CLUE's, MedDisK's, ...) are not in the message, nor
    are the local models' cells on the same files."""
    message = refused(tmp_path, GPT4O, *official_clibench(mimic, "clibench_diagnoses"))
    assert re.findall(r"\b\w+/\w+/\w+\b", message) == ["gpt4o/clibench_diagnoses/zero_shot"]


def test_the_credentialed_flag_lets_them_through_and_they_stay_marked(tmp_path, mimic):
    p = plan(tmp_path, "grid=clibench_demo", GPT4O, *official_clibench(mimic, *CLIBENCH),
             "models.gpt4o.access.allow_credentialed_data=true")
    assert gpt4o_cells(p) == {f"gpt4o/{task}/zero_shot" for task in CLIBENCH}
    for task in CLIBENCH:  # DVC keeps their artifacts off remotes all the same
        assert p.tier(task) == "credentialed" and p.credentialed(task)
        assert p.identities[f"gpt4o/{task}/zero_shot/generation"]["identity"]["credentialed"]


def test_a_skipped_task_sends_nothing(tmp_path):
    """CLUE's paper grid with no files: every task is skipped, so none stops the model."""
    p = plan(tmp_path, "grid=clue_paper", GPT4O)
    assert not p.cells and "clue_mednli" in p.skipped


def test_an_unreleased_or_private_kb_needs_its_own_setting(tmp_path):
    """MedDisK's KB is unreleased, not credentialed; a user's own KB is private. Either stops an
    API model with its own reason, and allow_private_data (not the credentialed flag) allows it."""
    kb = tmp_path / "kb.jsonl"
    write_demo_kb(kb)
    official = ["grid=meddisk_demo", GPT4O, "grid.select.tasks=[meddisk_zh]",
                "tasks.meddisk_zh.data.source=official", f"tasks.meddisk_zh.data.kb={kb}",
                "models.gpt4o.access.allow_credentialed_data=true"]
    message = refused(tmp_path, *official)
    assert message.startswith("models.gpt4o (openai backend) would receive unreleased data from "
                              "1 cell: gpt4o/meddisk_zh/one_shot. Its authors have not "
                              "released it (MedDisK's knowledge base"), message
    assert "models.gpt4o.access.allow_private_data=true" in message
    assert "(meddisk_zh: access unreleased)" in message and "credentialed" not in message
    private = refused(tmp_path, *official, "tasks.meddisk_zh.access=private")
    assert "would receive private data from 1 cell: gpt4o/meddisk_zh/one_shot. It is your own " \
           "unreleased data" in private
    assert "models.gpt4o.access.allow_private_data=true" in private
    for tier in ("unreleased", "private"):
        p = plan(tmp_path, *official, f"tasks.meddisk_zh.access={tier}",
                 "+models.gpt4o.access.allow_private_data=true")
        assert gpt4o_cells(p) == {"gpt4o/meddisk_zh/one_shot"}
        assert p.tier("meddisk_zh") == tier and p.credentialed("meddisk_zh")
    assert plan(tmp_path, *official[:3]).tier("meddisk_zh") == "synthetic"  # the demo KB


def test_the_tiers_are_the_schema_choices(tmp_path):
    message = refused(tmp_path, "grid=meddisk_demo", "tasks.meddisk_zh.access=secret")
    assert message.endswith("valid data-access tiers: credentialed, private, public, unreleased")


def test_a_remote_judge_is_guarded_too(tmp_path):
    """A task's scoring sends the cells' answers to its judges: MedEval's rewriting judge on a
    credentialed (MIMIC-derived) sentences file must be allowed like a grid model."""
    sentences = tmp_path / "sentences.csv"
    sentences.write_text("sentence\n", encoding="utf-8")  # planning reads no row
    judged = ["grid=medeval_demo", "grid.select.tasks=[medeval_rewriting]",
              "grid.select.models=[oracle]", "tasks.medeval_rewriting.data.source=official",
              f"tasks.medeval_rewriting.data.sentences={sentences}",
              "tasks.medeval_rewriting.access=credentialed",
              "tasks.medeval_rewriting.scoring.classifiers.kind=model",
              "tasks.medeval_rewriting.scoring.classifiers.model={preset: gpt4o}"]
    message = refused(tmp_path, *judged)
    assert message.startswith("the judge gpt4o of tasks.medeval_rewriting.scoring (openai "
                              "backend) would receive credentialed data from 2 cells: "
                              "oracle/medeval_rewriting/zero_shot, "
                              "oracle/medeval_rewriting/one_shot."), message
    assert "Set access.allow_credentialed_data=true in its config under " \
           "tasks.medeval_rewriting.scoring only for" in message


def single(message: str) -> str:
    assert "\n" not in message, message
    return message


def test_a_task_setting_cannot_declare_mimic_files_public(tmp_path, mimic):
    """The tester's case: tasks.clibench_diagnoses.access=public let GPT-4o plan on MIMIC-IV."""
    message = refused(tmp_path, "grid=clibench_demo", GPT4O, *official_clibench(
        mimic, "clibench_diagnoses"), "tasks.clibench_diagnoses.access=public")
    assert single(message) == (
        "tasks.clibench_diagnoses.access=public: the official files it reads are not public: "
        "admissions, d_icd_diagnoses, d_labitems, diagnoses_icd, discharge, labevents, "
        "patients, radiology, services, transfers are credentialed (a data use agreement "
        "(PhysioNet's for MIMIC) forbids sharing it with third parties); a task's access may "
        "add a tier to its files', never lower it, so leave tasks.clibench_diagnoses.access "
        "unset or set it to credentialed, unreleased or private")


def test_unset_access_is_the_files_own_tier(tmp_path, mimic):
    official = ["grid=clibench_demo", GPT4O, "grid.select.tasks=[clibench_diagnoses]",
                *official_clibench(mimic, "clibench_diagnoses"),
                "tasks.clibench_diagnoses.access=null"]
    assert "would receive credentialed data from 1 cell" in refused(tmp_path, *official)
    p = plan(tmp_path, *official, "grid.select.models=[oracle]")
    assert p.tier("clibench_diagnoses") == "credentialed" and p.credentialed("clibench_diagnoses")


def test_mednli_files_are_credentialed_whatever_access_says(tmp_path):
    test = tmp_path / "mli_test_v1.jsonl"
    test.write_text("", encoding="utf-8")  # planning reads no row
    message = refused(tmp_path, "grid.select.tasks=[clue_mednli]", GPT4O,
                      "tasks.clue_mednli.data.source=official",
                      f"tasks.clue_mednli.data.test={test}", "tasks.clue_mednli.access=public")
    assert single(message).startswith("tasks.clue_mednli.access=public: the official files it "
                                      "reads are not public: test is credentialed ("), message


def test_an_unreleased_kb_cannot_be_declared_public(tmp_path):
    kb = tmp_path / "kb.jsonl"
    write_demo_kb(kb)
    message = refused(tmp_path, "grid=meddisk_demo", "grid.select.tasks=[meddisk_zh]",
                      "tasks.meddisk_zh.data.source=official", f"tasks.meddisk_zh.data.kb={kb}",
                      "tasks.meddisk_zh.access=public")
    assert single(message).startswith("tasks.meddisk_zh.access=public: the official files it "
                                      "reads are not public: kb is unreleased (its authors have "
                                      "not released it"), message


def test_medeval_sources_have_their_own_tiers(tmp_path):
    """Open-i is public; MIMIC-CXR credentialed; a CSV in MedEval's format (the paper's VA
    data) unreleased. A task on several has all their tiers."""
    study_list, reports = tmp_path / "cxr-study-list.csv", tmp_path / "reports.csv"
    for path in (study_list, reports):
        path.write_text("", encoding="utf-8")  # planning reads no row
    task = ["grid=medeval_demo", "grid.select.tasks=[medeval_summarization]",
            "grid.select.models=[oracle]", "tasks.medeval_summarization.data.source=official",
            f"tasks.medeval_summarization.data.mimic_cxr={study_list}"]
    assert single(refused(tmp_path, *task)).startswith(
        "tasks.medeval_summarization.access=public: the official files it reads are not "
        "public: mimic_cxr is credentialed (a data use agreement")
    p = plan(tmp_path, *task, f"tasks.medeval_summarization.data.reports={reports}",
             "tasks.medeval_summarization.access=credentialed")
    assert p.tiers("medeval_summarization") == ["credentialed", "unreleased"]
    assert p.tier("medeval_summarization") == "unreleased"


def test_an_allowed_exception_is_named_and_recorded_for_its_cells_only(tmp_path, mimic, capsys):
    p = plan(tmp_path, "grid=clibench_demo", GPT4O, *official_clibench(mimic, "clibench_labs"),
             "models.gpt4o.access.allow_credentialed_data=true")
    assert capsys.readouterr().err.splitlines() == [
        "clineval: models.gpt4o (openai backend) receives credentialed data from 1 cell: "
        "gpt4o/clibench_labs/zero_shot, as models.gpt4o.access.allow_credentialed_data=true "
        "allows; their records say so"]
    sent = {"tier": "credentialed", "allowed_by": ["models.gpt4o.access.allow_credentialed_data"]}
    marked = {key: ident["identity"]["data_access"] for key, ident in p.identities.items()
              if "data_access" in ident["identity"]}
    assert marked == {"gpt4o/clibench_labs/zero_shot/generation": sent,
                      "gpt4o/clibench_labs/zero_shot/scoring": sent}
    demo = plan(tmp_path, GPT4O, "models.gpt4o.access.allow_credentialed_data=true")
    assert not capsys.readouterr().err  # the demo's synthetic files need no exception
    assert not [k for k, ident in demo.identities.items() if "data_access" in ident["identity"]]


def test_the_generation_record_keeps_the_exception(tmp_path):
    from clineval.io import read_json, write_jsonl
    from clineval.workflow.steps.generation import CellJob, _cell_record, merge_shards

    sent = {"tier": "credentialed", "allowed_by": ["models.gpt4o.access.allow_credentialed_data"]}
    requests, out = tmp_path / "requests.jsonl", tmp_path / "gen.jsonl"
    write_jsonl(requests, [{"id": "1", "request_sha": "s"}])
    write_jsonl(out, [{"id": "1", "output": "x"}])
    job = CellJob(tmp_path / "id.json", requests, out, tmp_path / "gen.meta.json",
                  tmp_path / "cache.jsonl")
    ident = {"cell": "gpt4o/t/zero_shot", "credentialed": True, "requests": "r",
             "model": {"id": "gpt-4o", "backend": "openai"}}
    assert "data_access" not in _cell_record("sha", ident, job, None, {}, {})
    record = _cell_record("sha", {**ident, "data_access": sent}, job, None,
                          {"shard": "1/1", "effective_settings": {}, "wall_seconds": 0,
                           **dict.fromkeys(("requests", "from_cache", "generated",
                                            "engine_loads", "prompt_tokens",
                                            "completion_tokens"), 1)}, {})
    assert record["data_access"] == sent
    shard = tmp_path / "shard.meta.json"
    shard.write_text(json.dumps(record), encoding="utf-8")
    merge_shards(requests, [(out, shard)], tmp_path / "merged.jsonl",
                 tmp_path / "merged.meta.json")
    assert read_json(tmp_path / "merged.meta.json")["data_access"] == sent


@pytest.fixture
def openai_server() -> Iterator[tuple[str, list[str]]]:
    """A local stand-in for OpenAI's chat completions: its URL, and the Authorization header
    of each request it answered."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            seen.append(self.headers.get("Authorization", ""))
            body = json.dumps({"choices": [{"message": {"role": "assistant",
                                                        "content": "The answer is 0."},
                                            "finish_reason": "stop"}],
                               "usage": {"prompt_tokens": 1, "completion_tokens": 1}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", seen
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.slow
def test_no_api_key_reaches_a_file_or_the_console(tmp_path, openai_server):
    """The issue's command, run (its server a local stand-in) with a key in the environment:
    every request carries the key, and no file of the work folder (results/, data/,
    Snakemake's logs) nor the console holds it."""
    url, seen = openai_server
    key = f"sk-test-{secrets.token_hex(16)}"
    overrides = (f"{GPT4O} models.gpt4o.api.base_url={url} grid.select.models=[gpt4o] "
                 "grid.select.tables=[medcalc_table2]")
    done = snakemake(tmp_path, "all_tables", overrides=overrides, env={"OPENAI_API_KEY": key})
    console = done.stdout + done.stderr
    assert done.returncode == 0, console
    assert len(seen) == 3 * 55 and set(seen) == {f"Bearer {key}"}  # 55 rows x 3 modes
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    for folder in ("results/tables", "results/generations", "data/derived", ".snakemake/log"):
        assert any(p.is_relative_to(tmp_path / folder) for p in written), folder
    assert key not in console
    assert [p for p in written if key.encode() in p.read_bytes()] == []


@pytest.mark.slow
def test_a_run_under_the_exception_records_it(tmp_path, openai_server):
    """MedCalc-Bench's file declared credentialed (a raise) and GPT-4o allowed it: the cell's
    generation and score records say which setting let the data go."""
    from clineval.benchmarks.medcalc import synthetic

    url, _ = openai_server
    csv = tmp_path / "test_data.csv"
    synthetic.write_csv(synthetic.generate_rows([2], 3, 0), csv)
    overrides = (f"{GPT4O} models.gpt4o.api.base_url={url} grid.select.models=[gpt4o] "
                 "grid.select.tables=[medcalc_table2] grid.select.modes=[zero_shot] "
                 f"tasks.medcalc.data.source=official tasks.medcalc.data.path={csv} "
                 "+tasks.medcalc.access=credentialed "
                 "models.gpt4o.access.allow_credentialed_data=true")
    done = snakemake(tmp_path, "all_tables", overrides=overrides, env={"OPENAI_API_KEY": "sk-x"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "receives credentialed data from 1 cell: gpt4o/medcalc/zero_shot" in done.stderr
    sent = {"tier": "credentialed", "allowed_by": ["models.gpt4o.access.allow_credentialed_data"]}
    cell = "gpt4o/medcalc/zero_shot"
    results = grid_folder(tmp_path, "demo")  # official files: the grid's own folder
    generation = json.loads((results / f"generations/{cell}.meta.json").read_text())
    scores = json.loads((results / f"scores/{cell}.prov.json").read_text())
    assert generation["data_access"] == scores["data_access"] == sent
