"""The offline demo grid end to end through Snakemake, in a temporary working directory."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from workflow_run import REPO, audit, planned_jobs, snakemake

from clineval.benchmarks.medcalc.loader import COLUMNS
from clineval.workflow.plan.build import build_plan
from clineval.workflow.plan.layout import Plan

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def grid(tmp_path_factory) -> Plan:
    """The demo grid's plan (conf/grid/demo.yaml): the tables, figures, benchmarks and cells
    the tests expect, read from the grid rather than listed here."""
    work = tmp_path_factory.mktemp("grid")
    return build_plan(REPO / "conf", None, results=work / "results", data_root=work / "data")


def drawn_from(grid: Plan, table: str) -> int:
    """How many of the grid's figures are drawn from ``table``."""
    return sum(table in tables for tables in grid.figures.values())


def test_demo_writes_every_table_format(demo, grid):
    tables = demo / "results" / "tables"
    assert sorted(p.name for p in tables.iterdir()) == [
        f"{table}.{ext}"
        for table in sorted(grid.tables)
        for ext in ("cells.json", "csv", "md", "metrics.json", "prov.json", "stats.json",
                    "stats.md", "tex")
    ]
    md = (tables / "medcalc_table2.md").read_text()
    for block in (
        "Zero-shot Direct Prompting",
        "Zero-shot CoT Prompting",
        "One-shot CoT Prompting",
    ):
        assert block in md
    assert "smoke model" in md and "synthetic demo" in md
    assert "\\begin{tabular}" in (tables / "medcalc_table2.tex").read_text()


def test_every_cell_headline_and_its_replicates_recompute_from_its_rows_and_stats_cover_every_cell(
        demo, grid):
    from clineval.benchmarks import get_benchmark
    from clineval.benchmarks.base import replicates_by_rows, scored_rows
    from clineval.metrics.bootstrap import BootstrapSettings, resamples
    from clineval.workflow.plan.build import build_plan

    plan = build_plan(REPO / "conf", None, results=demo / "results", data_root=demo / "data")
    seen = set()
    for name in grid.tables:
        ident = plan.identities[f"tables/{name}"]["identity"]
        stats = json.loads((demo / "results/tables" / f"{name}.stats.json").read_text())
        metrics = json.loads((demo / "results/tables" / f"{name}.metrics.json").read_text())
        assert stats["bootstrap"] == {"samples": 1000, "seed": 0, "level": 0.95,
                                      "method": "percentile"}
        assert sorted(stats["cells"]) == sorted(ident["cells"])
        # the demo's pairs (Table 2's oracle and constant), one comparison per mode and metric
        pairs = {tuple(p) for p in (ident["spec"].get("comparisons") or {}).get("pairs", [])}
        assert {(c["a"], c["b"]) for c in stats["comparisons"]} == pairs
        for cell in ident["cells"]:
            model, task, mode = cell.split("/")
            spec = ident["tasks"][task]
            bench = get_benchmark(spec["benchmark"])
            base = demo / "results/scores" / cell
            summary = json.loads(base.with_suffix(".json").read_text())["summary"]
            rows = [json.loads(line) for line in base.with_suffix(".jsonl").read_text()
                    .splitlines()]
            kept = scored_rows(rows)
            assert bench.headline(bench.summarize_rows(spec, kept)) == \
                bench.headline(summary), cell
            drawn = resamples(len(kept), BootstrapSettings(samples=200, seed=3))
            assert bench.headline_replicates(spec, kept, drawn) == \
                replicates_by_rows(bench, spec, kept, drawn), cell
            entry = stats["cells"][cell]
            assert (entry["model"], entry["task"], entry["mode"]) == (model, task, mode)
            assert {m: v["value"] for m, v in entry["metrics"].items()} == metrics[cell]
            for value in entry["metrics"].values():
                if value["low"] is not None:
                    assert value["low"] <= value["high"]
            seen.add(spec["benchmark"])
    assert seen == set(grid.benchmarks)


@pytest.mark.usefixtures("rebuild_demo_after")
def test_a_comparisons_block_writes_paired_tests_and_reruns_only_the_table(demo, grid):
    overrides = ("~tables.medcalc_table2.comparisons.pairs "
                 "+tables.medcalc_table2.comparisons.reference=oracle "
                 "+tables.medcalc_table2.comparisons.correction=holm "
                 "+tables.medcalc_table2.uncertainty=both")
    # and the explorer's job: its pages of the pairs compared
    assert planned_jobs(demo, overrides) == {"table": 1,
                                             "figure": drawn_from(grid, "medcalc_table2"),
                                             "report": 1, "examples": 1, "all_tables": 1}
    assert snakemake(demo, "all_tables", overrides=overrides).returncode == 0
    stats = json.loads((demo / "results/tables/medcalc_table2.stats.json").read_text())
    found = {(c["a"], c["b"], c["mode"], c["metric"]): c for c in stats["comparisons"]}
    oracle_vs_constant = found[("oracle", "constant", "zero_shot", "accuracy.official")]
    assert oracle_vs_constant["test"] == "mcnemar"
    assert oracle_vs_constant["n"] == 55 and oracle_vs_constant["difference"] > 0
    assert oracle_vs_constant["p_adjusted"] >= oracle_vs_constant["p"]
    assert "Paired comparisons" in (demo / "results/tables/medcalc_table2.stats.md").read_text()
    assert "±" in (demo / "results/tables/medcalc_table2.md").read_text()
    checked = audit(demo, overrides)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_demo_data_is_in_the_official_csv_format_with_every_output_type(demo):
    with (demo / "data" / "demo" / "medcalc" / "test_data.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0]) == COLUMNS
    assert {r["Output Type"] for r in rows} == {"decimal", "integer", "date"}
    assert any(r["Calculator ID"] == "69" for r in rows)  # weeks/days answers


def test_table_numbers_match_the_per_example_scores(demo):
    with (demo / "results" / "tables" / "medcalc_table2.csv").open(newline="") as handle:
        table = list(csv.DictReader(handle))
    assert table
    for record in table:
        rows = [
            json.loads(line)
            for line in (
                demo
                / "results"
                / "scores"
                / record["model"]
                / "medcalc"
                / f"{record['mode']}.jsonl"
            )
            .read_text()
            .splitlines()
        ]
        if record["category"] != "overall":
            rows = [r for r in rows if r["category"] == record["category"]]
        correct = sum(r[record["extraction"]]["correct"] for r in rows)
        assert (int(record["n"]), int(record["correct"])) == (len(rows), correct)
        if rows:
            assert float(record["accuracy"]) == pytest.approx(100 * correct / len(rows), abs=1e-4)


def test_oracle_is_perfect_and_constant_is_a_lower_bound_on_the_demo(demo):
    for mode in ("zero_shot", "cot", "one_shot"):
        oracle = json.loads((demo / "results/scores/oracle/medcalc" / f"{mode}.json").read_text())
        constant = json.loads(
            (demo / "results/scores/constant/medcalc" / f"{mode}.json").read_text()
        )
        for setting in ("official", "robust"):
            assert oracle["summary"][setting]["overall"]["accuracy"] == 1.0
            assert constant["summary"][setting]["overall"]["accuracy"] < 0.2


def test_generations_record_identity_and_tokens(demo):
    gens = demo / "results/generations/tiny_llama/medcalc/one_shot.jsonl"
    first = json.loads(gens.read_text().splitlines()[0])
    assert {
        "id",
        "output",
        "finish_reason",
        "prompt_tokens",
        "completion_tokens",
        "request_sha",
    } <= set(first)
    meta = json.loads(gens.with_suffix(".meta.json").read_text())
    assert meta["effective_settings"]["do_sample"] is False


def test_one_engine_load_per_model_across_its_cells(demo, grid):
    model = demo / "results/generations/tiny_llama"
    summary = json.loads((model / "run-summary.json").read_text())
    cells = sorted(model.rglob("*.meta.json"))
    assert len(summary["cells"]) == len(cells) == sum(c.model == "tiny_llama" for c in grid.cells)
    assert summary["engine_loads"] == 1
    assert sum(json.loads(p.read_text())["engine_loads"] for p in cells) == 1


def test_finished_run_has_nothing_to_do(demo):
    assert planned_jobs(demo) == {}


def test_sampling_change_reruns_only_that_models_generation_and_scoring(demo, grid):
    jobs = planned_jobs(demo, "models.tiny_llama.sampling.max_tokens=16")
    # tiny_llama's cells: requests (max_tokens sets the context budget), its one generation
    # job, scores: one requests and one scoring job per benchmark; every table shows tiny_llama
    assert jobs == {
        **{f"{step}_{bench}": 1 for step in ("requests", "score") for bench in grid.benchmarks},
        "generate_tiny_llama": 1, "table": len(grid.tables), "figure": len(grid.figures),
        "report": 1, "examples": 1, "all_tables": 1,
    }
    assert planned_jobs(demo) == {}  # a dry run with other settings leaves nothing stale


def test_a_sampling_change_other_than_max_tokens_rebuilds_no_request(demo, grid):
    """README: a model's sampling change re-runs its generation and scoring (and the tables
    that show it); only max_tokens, the prompt budget, also rebuilds its requests."""
    jobs = planned_jobs(demo, "models.smollm2_135m.sampling.temperature=0.5")
    # SmolLM2 runs every benchmark of the demo and every table and figure shows it
    assert jobs == {
        **{f"score_{bench}": 1 for bench in grid.benchmarks},
        "generate_smollm2_135m": 1, "table": len(grid.tables), "figure": len(grid.figures),
        "report": 1, "examples": 1, "all_tables": 1,
    }
    assert planned_jobs(demo) == {}


@pytest.mark.usefixtures("rebuild_demo_after")
def test_table_only_change_reruns_only_the_table(demo, grid):
    overrides = "tables.medcalc_table2.decimals=1"
    assert planned_jobs(demo, overrides) == {"table": 1,
                                             "figure": drawn_from(grid, "medcalc_table2"),
                                             "report": 1, "all_tables": 1}
    gens = sorted((demo / "results/generations").rglob("*.jsonl"))
    before = {p: p.stat().st_mtime_ns for p in gens}
    done = snakemake(demo, "all_tables", overrides=overrides)
    assert done.returncode == 0, done.stderr[-3000:]
    assert {p: p.stat().st_mtime_ns for p in gens} == before
    assert "| 100.0 ± 0.00 |" in (demo / "results/tables/medcalc_table2.md").read_text()


@pytest.mark.usefixtures("rebuild_demo_after")
def test_a_figure_only_change_redraws_that_figure_and_nothing_else(demo, grid):
    figures = demo / "results" / "figures"
    assert sorted(p.name for p in figures.iterdir()) == [
        f"{name}.{ext}" for name in sorted(grid.figures) for ext in ("png", "prov.json", "svg")]
    overrides = "figures.clue_levels.title=Other"
    # the figure and the report that shows it; no score or table job
    assert planned_jobs(demo, overrides) == {"figure": 1, "report": 1, "all_tables": 1}
    before = {p: p.read_bytes() for p in figures.iterdir()}
    scored = {p: p.stat().st_mtime_ns for p in (demo / "results").glob("*/*/*/*.json*")}
    done = snakemake(demo, "all_tables", overrides=overrides)
    assert done.returncode == 0, done.stderr[-3000:]
    changed = {p.name for p, data in before.items() if p.read_bytes() != data}
    assert changed == {"clue_levels.png", "clue_levels.svg", "clue_levels.prov.json"}
    assert {p: p.stat().st_mtime_ns for p in scored} == scored
    checked = audit(demo, overrides)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "ok      clue_levels: figure" in checked.stdout
    assert snakemake(demo, "all_tables").returncode == 0
    assert {p: p.read_bytes() for p in figures.iterdir()} == before  # drawn again identically


@pytest.mark.usefixtures("rebuild_demo_after")
def test_a_scoring_change_reruns_its_jobs_and_keeps_the_other_cells_bytes(demo, grid):
    overrides = "tasks.clue_meqsum.scoring.rouge.use_stemmer=true"
    # MeQSum's cells of smollm2_135m, tiny_llama and clue_baseline: each model's CLUE scoring
    assert planned_jobs(demo, overrides) == {"score_clue": 3, "table": 2,
                                             "figure": drawn_from(grid, "clue_table3"), "report": 1,
                                             "examples": 1, "all_tables": 1}
    scores = demo / "results" / "scores"
    clue = {p: p.read_bytes() for p in scores.glob("*/clue_*/*")}
    medcalc = {p: p.stat().st_mtime_ns for p in scores.glob("*/medcalc/*")}
    done = snakemake(demo, "all_tables", overrides=overrides)
    assert done.returncode == 0, done.stderr[-3000:]
    changed = {p for p, data in clue.items() if p.read_bytes() != data}
    meqsum = {p for p in clue if p.parent.name == "clue_meqsum"}
    assert changed <= meqsum  # the job's other cells were rewritten byte for byte
    assert {p for p in meqsum if p.name.endswith((".prov.json", "one_shot.json"))} <= changed
    assert {p: p.stat().st_mtime_ns for p in medcalc} == medcalc  # other benchmark untouched
    assert planned_jobs(demo, overrides) == {}


@pytest.mark.usefixtures("rebuild_demo_after")
def test_a_table_over_rows_reads_them_and_the_audit_follows(demo, grid):
    overrides = "+tables.medcalc_table2.rows=true"
    assert planned_jobs(demo, overrides) == {"table": 1,
                                             "figure": drawn_from(grid, "medcalc_table2"),
                                             "report": 1, "all_tables": 1}
    assert snakemake(demo, "all_tables", overrides=overrides).returncode == 0
    record = json.loads((demo / "results/tables/medcalc_table2.prov.json").read_text())
    rows = {role: e["path"] for role, e in record["inputs"].items() if role.endswith(":rows")}
    assert rows["oracle/medcalc/cot:rows"] == "results/scores/oracle/medcalc/cot.jsonl"
    assert len(rows) == sum(role.count("/") == 2 for role in record["inputs"]) // 2
    checked = audit(demo, overrides)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    path = demo / "results/scores/oracle/medcalc/cot.jsonl"
    original = path.read_bytes()
    try:
        path.write_bytes(original + b"\n")
        broken = audit(demo, overrides)
        assert broken.returncode == 1
        assert "results/scores/oracle/medcalc/cot.jsonl" in broken.stdout
    finally:
        path.write_bytes(original)


HEAVY = ("torch", "transformers", "hydra", "sentence_transformers", "bert_score")


def imported(workdir: Path, *args: str) -> set[str]:
    """Top-level modules a ``clineval`` command imports (``python -X importtime``)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "clineval.cli", *args],
                          capture_output=True, text=True, cwd=workdir, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    names = re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)$", done.stderr, flags=re.M)
    return {name.split(".")[0] for name in names}


def test_light_steps_import_no_torch_transformers_hydra_or_encoder(demo, tmp_path):
    from clineval.workflow.plan.build import build_plan
    from clineval.workflow.plan.jobs import plan_jobs
    from clineval.workflow.plan.manifests import manifest_text

    plan = build_plan(REPO / "conf", None)
    out = tmp_path / "out"
    # the plan's manifests of the demo's jobs, with outputs moved to out/
    jobs = {(j.step, *j.key): j.manifest for j in plan_jobs(plan)}
    requests = jobs["requests", "oracle", "medcalc"]
    score = jobs["score", "oracle", "medcalc"]
    for c, req, scored in zip(plan.cells_of_group("oracle", "medcalc"), requests["cells"],
                              score["cells"], strict=True):
        req |= {"out": str(out / f"{c.mode}.req.jsonl"),
                "record": str(out / f"{c.mode}.req.prov.json")}
        scored |= {"rows": str(out / f"{c.mode}.jsonl"), "summary": str(out / f"{c.mode}.json"),
                   "record": str(out / f"{c.mode}.prov.json")}
    table = jobs["table", "medcalc_table2"] | {"record": str(out / "t.prov.json")}
    table["outputs"] = {fmt: str(out / f"t.{fmt}") for fmt in table["outputs"]}
    derive = jobs["derive", "medcalc"] | {  # from the demo's sources, as written
        "demo": False, "examples": str(out / "ex.jsonl"), "exemplars": str(out / "exm.jsonl"),
        "record": str(out / "d.prov.json")}
    for manifest in (derive, requests, score, table):
        path = tmp_path / f"{manifest['step']}.json"
        path.write_text(manifest_text(manifest), encoding="utf-8")
        command = ["step", manifest["step"], "--manifest", str(path)]
        assert imported(demo, *command).isdisjoint(HEAVY), command[:2]
    assert (out / "cot.json").read_bytes() == (demo / "results/scores/oracle/medcalc/cot.json"
                                               ).read_bytes()


