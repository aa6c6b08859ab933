"""CLUE on the workflow: plan and identities, skipped tasks, baselines, the demo end to end."""

from __future__ import annotations

import csv
import json
import logging
import os
from pathlib import Path
from statistics import fmean

import pytest
from rouge_score import rouge_scorer
from workflow_run import grid_folder, snakemake

from clineval.benchmarks import get_benchmark
from clineval.benchmarks.clue import synthetic
from clineval.benchmarks.clue.benchmark import SOURCES
from clineval.config.compose import ConfigError
from clineval.io import read_jsonl
from clineval.workflow.plan.build import build_plan
from clineval.workflow.plan.layout import Cell
from clineval.workflow.steps.requests import fit_requests

REPO = Path(__file__).resolve().parents[2]
CONF = REPO / "conf"
CLUE_TASKS = [f"clue_{d}" for d in SOURCES]
MEQSUM_XLSX = "MeQSum_ACL2019_BenAbacha_Demner-Fushman.xlsx"


@pytest.fixture(autouse=True)
def no_clue_env(monkeypatch):
    """Official-file settings come from the test, never from the caller's environment."""
    for name in list(os.environ):
        if name.startswith("CLINEVAL_") and name != "CLINEVAL_DATA_DIR":
            monkeypatch.delenv(name)


def plan(tmp_path: Path, *overrides: str):
    return build_plan(CONF, list(overrides), results=tmp_path / "results", data_root=tmp_path)


# -- plan and identities -------------------------------------------------------------------------


def test_demo_grid_runs_every_clue_task_with_the_models_that_apply(tmp_path):
    cells = set(plan(tmp_path).cells)
    for task in CLUE_TASKS:
        assert {c for c in cells if c.task == task} == {
            Cell("smollm2_135m", task, "one_shot"),
            Cell("tiny_llama", task, "one_shot"),
            Cell("clue_baseline", task, "one_shot"),
        }
    assert not {c for c in cells if c.task == "medcalc" and c.model == "clue_baseline"}
    assert {c.model for c in cells if c.task == "medcalc"} == {"smollm2_135m", "tiny_llama",
                                                                "oracle", "constant"}


def test_demo_sources_live_in_the_tasks_demo_folder(tmp_path):
    p = plan(tmp_path)
    sources = p.identities["data/clue_medisumqa"]["identity"]["sources"]
    assert sources == {
        "discharge": {"path": str(tmp_path / "demo/clue_medisumqa/discharge.csv"), "sha256": None},
        "qa": {"path": str(tmp_path / "demo/clue_medisumqa/medisumqa.json"), "sha256": None},
    }
    assert set(p.tables["clue_table3"]) == {c for c in p.cells if c.task in CLUE_TASKS}


def test_a_data_setting_changes_only_that_tasks_chain(tmp_path):
    before = plan(tmp_path).identities
    after = plan(tmp_path, "tasks.clue_meqsum.data.seed=1").identities
    changed = {key for key in before if before[key]["sha"] != after[key]["sha"]}
    assert changed == {
        "data/clue_meqsum",
        *(
            f"{m}/clue_meqsum/one_shot/{k}"
            for m in ("smollm2_135m", "tiny_llama", "clue_baseline")
            for k in ("requests", "generation", "scoring")
        ),
        "tables/clue_table3",
        "tables/leaderboard",  # the leaderboard shows CLUE's tasks too
        "figures/clue_bars",
        "figures/clue_levels",
        "report/index",  # the report shows the tables and figures
        *(f"export-eee/{m}/clue_meqsum" for m in ("smollm2_135m", "tiny_llama", "clue_baseline")),
    }


def test_a_scoring_setting_rescores_without_regenerating(tmp_path):
    before = plan(tmp_path).identities
    after = plan(tmp_path, "tasks.clue_medisumcode.scoring.codes.count_repeats=true").identities
    changed = {key for key in before if before[key]["sha"] != after[key]["sha"]}
    assert changed == {
        "smollm2_135m/clue_medisumcode/one_shot/scoring",
        "tiny_llama/clue_medisumcode/one_shot/scoring",
        "clue_baseline/clue_medisumcode/one_shot/scoring",
        "tables/clue_table3",
        "tables/leaderboard",
        "figures/clue_bars",
        "figures/clue_levels",
        "report/index",
        *(f"export-eee/{m}/clue_medisumcode"
          for m in ("smollm2_135m", "tiny_llama", "clue_baseline")),
    }


def test_unknown_data_key_names_the_task_and_what_is_allowed(tmp_path):
    with pytest.raises(ConfigError, match=r"tasks\.clue_meqsum\.data\.paht: unknown key .*"
                                          r"valid keys: .*path"):
        plan(tmp_path, "+tasks.clue_meqsum.data.paht=/x.xlsx")


def test_credentialed_files_stop_an_api_model_and_the_synthetic_demo_does_not(tmp_path):
    demo = plan(tmp_path, "+model@models.gpt4o=gpt4o", "grid.select.models=[gpt4o]")
    assert {c.task for c in demo.cells} >= set(CLUE_TASKS)  # the demo's files are synthetic
    files = synthetic.write_demo("mednli", tmp_path / "mednli")  # in MedNLI's official format
    with pytest.raises(ConfigError, match=r"^models\.gpt4o \(openai backend\) would receive "
                                          r"credentialed data from 1 cell: "
                                          r"gpt4o/clue_mednli/one_shot\. .*PhysioNet"):
        plan(tmp_path, "grid=clue_paper", "+model@models.gpt4o=gpt4o",
             f"tasks.clue_mednli.data.test={files['test']}")  # the other tasks: no files


def test_a_misspelt_baseline_stops_the_plan(tmp_path):
    with pytest.raises(ConfigError, match="baselines: constant, frequency, input, lower_bound"):
        plan(tmp_path, "models.clue_baseline.baseline=papr")


# -- missing official files ----------------------------------------------------------------------


def test_missing_files_skip_each_task_once_and_the_rest_is_planned(tmp_path, caplog):
    xlsx = synthetic.write_demo("meqsum", tmp_path / "meqsum")["path"]
    with caplog.at_level(logging.WARNING, logger="clineval"):
        p = plan(tmp_path, "grid=clue_paper", f"tasks.clue_meqsum.data.path={xlsx}")
    skipped = set(CLUE_TASKS) - {"clue_meqsum"}
    assert set(p.skipped) == skipped
    assert sorted(r.getMessage() for r in caplog.records) == sorted(p.skipped.values())
    assert "physionet.org/content/mednli" in p.skipped["clue_mednli"]
    assert "'tasks.clue_mednli.data.test'" in p.skipped["clue_mednli"]
    assert "'tasks.clue_medisumcode.data.discharge'" in p.skipped["clue_medisumcode"]
    assert "benchmark_v5.json" in p.skipped["clue_longhealth_task2"]
    assert p.cells == [Cell("clue_baseline", "clue_meqsum", "one_shot")]
    table = p.identities["tables/clue_table3"]["identity"]
    assert table["cells"] == ["clue_baseline/clue_meqsum/one_shot"]
    assert table["tasks"]["clue_mednli"]["skipped"] == p.skipped["clue_mednli"]
    assert "skipped" not in table["tasks"]["clue_meqsum"]


def test_a_path_to_no_file_is_reported_as_such(tmp_path):
    p = plan(tmp_path, "grid=clue_paper", f"tasks.clue_meqsum.data.path={tmp_path / 'none.xlsx'}")
    assert "which is no file" in p.skipped["clue_meqsum"]


def test_a_grid_without_any_files_builds_no_table(tmp_path):
    p = plan(tmp_path, "grid=clue_paper")
    assert p.cells == [] and p.tables == {}
    assert set(p.skipped) == set(CLUE_TASKS)


def test_medisumcode_needs_the_gem_file_only_when_mapping_icd9(tmp_path):
    paths = synthetic.write_demo("medisumcode", tmp_path / "mimic")
    base = (
        "grid=clue_paper",
        f"tasks.clue_medisumcode.data.discharge={paths['discharge']}",
        f"tasks.clue_medisumcode.data.diagnoses_icd={paths['diagnoses_icd']}",
    )
    assert "clue_medisumcode" not in plan(tmp_path, *base).skipped
    mapped = plan(tmp_path, *base, "tasks.clue_medisumcode.data.icd9=map").skipped
    assert "2018_I9gem.txt" in mapped["clue_medisumcode"]


# -- baselines -----------------------------------------------------------------------------------


def _derived(tmp_path: Path, task: str) -> tuple[dict, list[dict]]:
    p = plan(tmp_path)
    spec = p.cfg["tasks"][task]
    bench = get_benchmark("clue")
    sources = p.sources(task)
    bench.write_demo(spec, sources)
    examples, _ = bench.derive(spec, sources)
    return spec, examples


def test_paper_baseline_draws_codes_from_the_tasks_examples(tmp_path):
    spec, examples = _derived(tmp_path, "clue_medisumcode")
    answer = get_benchmark("clue").baseline("paper", spec, examples)
    pool = {c for e in examples for c in e["reference"]}
    for example in examples:
        codes = answer(example).removeprefix("ICD-10 codes: ").split(", ")
        assert len(codes) == len(example["reference"]) and set(codes) <= pool


def test_paper_baseline_answers_meqsum_with_the_question(tmp_path):
    spec, examples = _derived(tmp_path, "clue_meqsum")
    answer = get_benchmark("clue").baseline("paper", spec, examples)
    assert [answer(e) for e in examples] == [e["fields"]["question"] for e in examples]


def test_medcalc_accepts_and_ignores_the_examples(tmp_path):
    task = plan(tmp_path).cfg["tasks"]["medcalc"]
    answer = get_benchmark("medcalc").baseline("constant", task, [])
    assert answer({"calculator_id": 2, "output_type": "integer"}) == '{"answer": "0"}'


def test_a_long_prompt_is_cut_in_its_documents_only(tmp_path):
    p = plan(tmp_path)
    _, examples = _derived(tmp_path, "clue_longhealth_task2")
    ident = p.identities["tiny_llama/clue_longhealth_task2/one_shot/requests"]["identity"]
    ident = {**ident, "model_limits": {**ident["model_limits"], "max_model_len": 1500}}

    def count(messages: list[dict[str, str]], completion: bool = False) -> int:
        return sum(len(m["content"]) for m in messages) // 2

    fitted = fit_requests(get_benchmark("clue"), ident, examples[:2], [], count)
    for request, example in zip(fitted, examples[:2], strict=True):
        assert request["truncation"]["field"] == "documents"
        assert count(request["messages"]) <= 1500 - ident["model_limits"]["max_tokens"]
        user = request["messages"][-1]["content"]
        assert example["fields"]["question"] in user and example["fields"]["options"] in user


# -- end to end ----------------------------------------------------------------------------------


def _table_records(workdir: Path) -> list[dict[str, str]]:
    with (workdir / "results/tables/clue_table3.csv").open(newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.slow
def test_demo_table_names_its_bertscore_encoder(demo):
    tables = demo / "results/tables"
    assert {p.name for p in tables.glob("clue_table3.*")} == {
        f"clue_table3.{x}"
        for x in ("csv", "md", "tex", "stats.json", "stats.md", "metrics.json", "prov.json",
                  "cells.json")
    }
    md = (tables / "clue_table3.md").read_text()
    assert "BERT F1 scored with sentence-transformers/all-MiniLM-L6-v2" in md
    assert "Baseline (paper)" in md and "Tiny Llama (random weights) †" in md
    assert "synthetic demo files" in md


@pytest.mark.slow
def test_paper_baseline_meqsum_rouge_is_rouge_of_the_input(demo):
    examples = read_jsonl(demo / "data/derived/clue_meqsum/examples.jsonl")
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=False)
    scores = [scorer.score(e["reference"], e["fields"]["question"]) for e in examples]
    expected = {
        f"rouge_{k[-1].lower()}": 100 * fmean(s[k].fmeasure for s in scores)
        for k in ("rouge1", "rouge2", "rougeL")
    }
    summary = json.loads(
        (demo / "results/scores/clue_baseline/clue_meqsum/one_shot.json").read_text()
    )["summary"]["datasets"]["meqsum"]
    assert summary["n"] == len(examples)
    for key, value in expected.items():
        assert summary["metrics"][key] == pytest.approx(value, abs=1e-9)
    shown = {
        r["metric"]: float(r["value"])
        for r in _table_records(demo)
        if r["model"] == "clue_baseline" and r["dataset"] == "meqsum"
    }
    for key, value in expected.items():
        assert shown[key] == pytest.approx(value, abs=1e-4)


@pytest.mark.slow
def test_level_scores_are_the_mean_of_their_dataset_scores(demo):
    levels = {
        "level1": ("mednli", "problem_summary", "meqsum"),
        "level2": ("longhealth", "medisumqa", "medisumcode"),
    }
    records = _table_records(demo)
    for model in ("clue_baseline", "tiny_llama"):
        mine = [r for r in records if r["model"] == model]
        datasets = {r["dataset"]: float(r["value"]) for r in mine if r["metric"] == "dataset_score"}
        shown = {r["dataset"]: float(r["value"]) for r in mine if r["metric"] == "score"}
        for level, parts in levels.items():
            assert shown[level] == pytest.approx(fmean(datasets[d] for d in parts), abs=1e-4)


@pytest.mark.slow
def test_real_meqsum_runs_the_paper_baseline(tmp_path):
    data_dir = os.environ.get("CLINEVAL_DATA_DIR")
    if not data_dir or not (Path(data_dir) / "meqsum" / MEQSUM_XLSX).is_file():
        pytest.skip(f"set CLINEVAL_DATA_DIR to a directory holding meqsum/{MEQSUM_XLSX}")
    xlsx = Path(data_dir) / "meqsum" / MEQSUM_XLSX
    overrides = (
        f"grid=clue_paper tasks.clue_meqsum.data.path={xlsx} "
        "grid.select.tasks=[clue_meqsum] grid.select.models=[clue_baseline]"
    )
    done = snakemake(tmp_path, "all_tables", overrides=overrides)
    assert done.returncode == 0, done.stderr[-3000:]
    results = grid_folder(tmp_path, "clue_paper")  # the grid's own folder, by its data
    summary = json.loads(
        (results / "scores/clue_baseline/clue_meqsum/one_shot.json").read_text()
    )["summary"]["datasets"]["meqsum"]
    assert summary["n"] == 1000 - 3  # three rows held out as exemplars
    assert summary["status_counts"] == {"whole_output": 997}
    assert 0 < summary["metrics"]["rouge_l"] < 100
    table = (results / "tables/clue_table3.md").read_text()
    assert "Data: the official files (examples: meqsum 997)" in table
