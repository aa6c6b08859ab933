"""Config composition, validation messages, grid expansion and identity changes."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from clineval.benchmarks import get_benchmark
from clineval.config.compose import ConfigError, parse_overrides
from clineval.workflow.plan.build import build_plan
from clineval.workflow.plan.layout import Cell

CONF = Path(__file__).resolve().parents[2] / "conf"


def plan(tmp_path: Path, *overrides: str):
    return build_plan(
        CONF, list(overrides), results=tmp_path / "results", data_root=tmp_path / "data"
    )


def test_demo_grid_expands_models_by_modes(tmp_path):
    p = plan(tmp_path)
    assert p.cfg["grid"]["name"] == "demo"
    medcalc = [c for c in p.cells if c.task == "medcalc"]
    assert len(medcalc) == 12  # 4 models x 3 modes
    # each task in each of its modes, for every model except the baselines its benchmark
    # does not offer
    expected: Counter[str] = Counter()
    for task in p.cfg["tasks"].values():
        offered = get_benchmark(task["benchmark"]).baselines
        runs = [m for m in p.cfg["models"].values()
                if m["backend"] != "baseline" or m["baseline"] in offered]
        expected[task["benchmark"]] += len(task["modes"]) * len(runs)
    assert Counter(p.benchmark(c.task) for c in p.cells) == expected
    # the real model (smollm2_135m) runs every benchmark's cells, on a slice of each task
    assert {c.task for c in p.cells if c.model == "smollm2_135m"} == set(p.cfg["tasks"])
    assert Cell("tiny_llama", "medcalc", "one_shot") in p.cells
    assert Cell("clue_baseline", "medcalc", "zero_shot") not in p.cells
    assert {c.mode for c in medcalc} == {"zero_shot", "cot", "one_shot"}
    assert p.tables["medcalc_table2"] == medcalc
    assert p.tables["clue_table3"] == [c for c in p.cells if c.task.startswith("clue_")]


def test_overrides_as_string_or_list():
    assert parse_overrides("grid=demo 'a.b=[1, 2]'") == ["grid=demo", "a.b=[1, 2]"]
    assert parse_overrides(["grid=demo"]) == ["grid=demo"]
    assert parse_overrides(None) == []


def test_override_value_reaches_the_cell(tmp_path):
    p = plan(tmp_path, "models.tiny_llama.sampling.max_tokens=7")
    assert p.cfg["models"]["tiny_llama"]["sampling"]["max_tokens"] == 7


def test_unknown_grid_lists_what_exists(tmp_path):
    with pytest.raises(ConfigError) as err:
        plan(tmp_path, "grid=nope")
    message = str(err.value)
    assert ("grid: clibench_demo, clue_paper, demo, medcalc_paper, meddisk_demo, medeval_demo, "
            "medeval_paper") in message
    assert "model: clibench_frequency, clue_baseline, constant, gpt4o, llama3_70b" in message


def test_unknown_key_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="sampling"):
        plan(tmp_path, "models.tiny_llama.sampling.temprature=0.5")


def test_unknown_model_in_selection_lists_models(tmp_path):
    with pytest.raises(ConfigError) as err:
        plan(tmp_path, "grid.select.models=[gpt5]")
    assert "'gpt5'" in str(err.value)
    assert ("models in this grid: clibench_frequency, clue_baseline, constant, meddisk_swap, "
            "medeval_baseline, oracle, smollm2_135m, tiny_llama") in str(err.value)


def test_selected_tables_keep_their_cells_and_unknown_ones_are_listed(tmp_path):
    p = plan(tmp_path, "grid.select.tables=[medcalc_table2]")
    assert list(p.tables) == ["medcalc_table2"]
    assert {c.task for c in p.tables["medcalc_table2"]} == {"medcalc"}
    assert p.cells == p.tables["medcalc_table2"]  # the plan keeps only the table's cells
    with pytest.raises(ConfigError, match=r"unknown table\(s\) in grid.select.tables 'table9'; "
                                          r"tables in this grid: clibench_table3, "):
        plan(tmp_path, "grid.select.tables=[table9]")
    with pytest.raises(ConfigError, match=r"grid\.select\.benchmarks: unknown key .*; valid "
                                          r"keys: figures, models, modes, tables, tasks"):
        plan(tmp_path, "+grid.select.benchmarks=[medcalc]")


def test_unknown_mode_in_task_lists_modes(tmp_path):
    with pytest.raises(ConfigError, match="modes in conf/mode: cot, one_shot, zero_shot"):
        plan(tmp_path, "tasks.medcalc.modes=[zero_shot,few_shot]")


def test_unknown_backend_is_refused(tmp_path):
    with pytest.raises(ConfigError,
                       match="backends: baseline, openai, recorded, transformers, vllm"):
        plan(tmp_path, "models.tiny_llama.backend=telepathy")


def test_selection_filters_cells(tmp_path):
    p = plan(tmp_path, "grid.select.models=[oracle]", "grid.select.modes=[cot]")
    assert p.cells == [Cell("oracle", "medcalc", "cot")]


def test_added_model_from_the_model_group(tmp_path):
    p = plan(tmp_path, "+model@models.oracle2=oracle")
    assert "oracle2" in p.cfg["models"] and {c.model for c in p.cells} == set(p.cfg["models"])
    assert {c.task for c in p.cells if c.model == "oracle2"} == {  # the benchmarks offering it
        c.task for c in p.cells if c.model == "oracle"}
    assert "clue_mednli" not in {c.task for c in p.cells if c.model == "oracle2"}


def test_official_source_without_path_skips_the_task_and_says_how_to_set_it(
    tmp_path, monkeypatch, caplog
):
    monkeypatch.delenv("CLINEVAL_MEDCALC_CSV", raising=False)
    result = plan(tmp_path, "grid=medcalc_paper")
    assert result.cells == [] and result.tables == {}
    assert "tasks.medcalc.data.path" in result.skipped["medcalc"]
    assert "it is not set" in result.skipped["medcalc"]
    skipped = [r.getMessage() for r in caplog.records if "skipped" in r.getMessage()]
    assert len(skipped) == 1, "the missing source is reported once"


def _changed(a, b) -> set[str]:
    keys = set(a.identities) | set(b.identities)
    return {
        k for k in keys if a.identities.get(k, {}).get("sha") != b.identities.get(k, {}).get("sha")
    }


def test_sampling_change_touches_only_that_models_cells(tmp_path):
    before = plan(tmp_path)
    after = plan(tmp_path, "models.tiny_llama.sampling.top_p=0.9")
    changed = _changed(before, after)
    expected = {
        f"{cell.path}/{kind}"
        for cell in before.cells if cell.model == "tiny_llama"
        for kind in ("generation", "scoring")
    } | {f"export-eee/tiny_llama/{c.task}" for c in before.cells if c.model == "tiny_llama"}
    assert changed == expected
    # max_tokens also sets the room left for the prompt, so the requests are re-fitted too
    longer = _changed(before, plan(tmp_path, "models.tiny_llama.sampling.max_tokens=64"))
    assert longer == expected | {
        f"{c.path}/requests" for c in before.cells if c.model == "tiny_llama"}


def test_table_only_change_touches_only_the_table(tmp_path):
    changed = _changed(plan(tmp_path), plan(tmp_path, "tables.medcalc_table2.decimals=1"))
    assert changed == {"tables/medcalc_table2", "figures/medcalc_bars", "figures/medcalc_modes",
                       "report/index"}  # the figures drawn from the table; the report shows all


def test_template_change_touches_requests_downstream(tmp_path):
    changed = _changed(plan(tmp_path), plan(tmp_path, "modes.cot.description=other"))
    assert {c for c in changed if c.endswith("requests")} == {
        f"{c.path}/requests" for c in plan(tmp_path).cells if c.mode == "cot"}
    assert "oracle/medcalc/cot/requests" in changed


def test_identity_files_are_content_addressed_and_written_once(tmp_path):
    p = plan(tmp_path)
    assert p.write_identities() == len(p.identities)
    assert plan(tmp_path).write_identities() == 0
    changed = plan(tmp_path, "tables.medcalc_table2.decimals=1")
    assert changed.write_identities() == 4  # the table, its two figures and the report
    old, new = (
        p.identity_file("tables", "medcalc_table2"),
        changed.identity_file("tables", "medcalc_table2"),
    )
    assert old != new and old.is_file() and new.is_file()
    assert plan(tmp_path).write_identities() == 0  # going back reuses the earlier file


def test_table_names_one_task_or_a_list(tmp_path):
    p = plan(tmp_path, "~tables.medcalc_table2.task", "+tables.medcalc_table2.tasks=[medcalc]")
    assert p.tables["medcalc_table2"] == [c for c in p.cells if c.task == "medcalc"]
    assert list(p.identities["tables/medcalc_table2"]["identity"]["tasks"]) == ["medcalc"]
    with pytest.raises(ConfigError, match="exactly one of 'task'"):
        plan(tmp_path, "+tables.medcalc_table2.tasks=[medcalc]")
    with pytest.raises(ConfigError, match=r"task\(s\) in tables.medcalc_table2"):
        plan(tmp_path, "tables.medcalc_table2.task=nope")
