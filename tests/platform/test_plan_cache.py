"""The plan cache: a reused plan equals a fresh one, and anything the plan was made from that
changes (conf/, overrides, the environment, a hashed source, a skipped task's missing file)
makes a new one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from clineval.workflow.plan.build import build_plan
from clineval.workflow.plan.layout import Plan
from clineval.workflow.run import plan_cache
from clineval.workflow.run.plan_cache import load_plan, plan_key
from clineval.workflow.run.settle import jobs

REPO = Path(__file__).resolve().parents[2]
SMALL = ("grid.select.models=[oracle,constant] grid.select.tasks=[medcalc] "
         "grid.select.modes=[zero_shot,cot] grid.select.tables=[medcalc_table2]")
OFFICIAL = ("grid.select.models=[constant] grid.select.tasks=[medcalc] "
            "tasks.medcalc.data.source=official")


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of conf/ in an empty working directory (the Snakefile's relative results/)."""
    shutil.copytree(REPO / "conf", tmp_path / "conf")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CLINEVAL_MEDCALC_CSV", raising=False)
    return tmp_path


def _state(plan: Plan) -> tuple:
    return (plan.cfg, plan.cells, plan.tables, plan.identities, plan.skipped, plan.figures)


def _jobs(items) -> list:
    return [(j.name, [str(p) for p in j.inputs], [str(p) for p in j.outputs],
             [(str(r), sha) for r, sha in j.records]) for j in items]


def test_a_second_start_reuses_the_plan_and_it_equals_a_fresh_one(work: Path) -> None:
    first = load_plan(work / "conf", SMALL)
    second = load_plan(work / "conf", SMALL)
    assert (first.cached, second.cached) == (False, True)
    fresh = build_plan(work / "conf", SMALL)
    assert _state(second.plan) == _state(fresh)
    assert _jobs(second.jobs) == _jobs(jobs(fresh)) == _jobs(first.jobs)
    assert second.plan.identity_file("oracle", "medcalc", "cot", "scoring") == \
        fresh.identity_file("oracle", "medcalc", "cot", "scoring")
    assert second.plan.file_hashes is not None
    assert [p.name for p in (work / "results/identity/plans").iterdir()] == [
        f"{plan_key(work / 'conf', SMALL.split(), Path('results'), Path('data'))[:32]}.json"]


def test_a_conf_edit_makes_a_new_plan(work: Path) -> None:
    before = load_plan(work / "conf", SMALL)
    mode = work / "conf/mode/cot.yaml"
    text = mode.read_text(encoding="utf-8")
    mode.write_text(text.replace("description: zero-shot chain of thought",
                                 "description: changed"), encoding="utf-8")
    after = load_plan(work / "conf", SMALL)
    assert not after.cached
    assert after.plan.cfg["modes"]["cot"]["description"] == "changed"
    changed = {k for k in after.plan.identities
               if after.plan.identities[k]["sha"] != before.plan.identities[k]["sha"]}
    downstream = ("tables/", "figures/", "report/", "export-eee/")
    assert changed and all("/cot/" in k or k.startswith(downstream) for k in changed)


def test_overrides_and_the_environment_the_config_reads_are_in_the_key(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = plan_key(work / "conf", SMALL.split(), Path("results"), Path("data"))
    other = plan_key(work / "conf", [*SMALL.split(), "grid.select.modes=[cot]"], Path("results"),
                     Path("data"))
    assert other != key
    monkeypatch.setenv("CLINEVAL_MEDEVAL_SENTENCES", "/somewhere/sentences.csv")  # oc.env
    assert plan_key(work / "conf", SMALL.split(), Path("results"), Path("data")) != key
    monkeypatch.delenv("CLINEVAL_MEDEVAL_SENTENCES")
    monkeypatch.setenv("UNRELATED_VARIABLE", "1")
    assert plan_key(work / "conf", SMALL.split(), Path("results"), Path("data")) == key


def test_a_changed_source_file_makes_a_new_plan(work: Path) -> None:
    source = work / "medcalc.csv"
    source.write_text("Row Number,Calculator ID\n1,2\n", encoding="utf-8")
    overrides = f"{OFFICIAL} tasks.medcalc.data.path={source}"
    first = load_plan(work / "conf", overrides)
    assert load_plan(work / "conf", overrides).cached
    source.write_text("Row Number,Calculator ID\n1,3\n", encoding="utf-8")
    again = load_plan(work / "conf", overrides)
    assert not again.cached
    assert again.plan.identities["data/medcalc"]["sha"] != first.plan.identities["data/medcalc"][
        "sha"]


def test_a_skipped_task_whose_file_appears_is_planned(work: Path, caplog) -> None:
    source = work / "later" / "medcalc.csv"
    overrides = f"{OFFICIAL} tasks.medcalc.data.path={source}"
    skipped = load_plan(work / "conf", overrides)
    assert "medcalc" in skipped.plan.skipped and skipped.plan.cells == []
    caplog.clear()
    caplog.set_level("WARNING", logger="clineval")
    reused = load_plan(work / "conf", overrides)
    assert reused.cached
    assert [r.getMessage() for r in caplog.records] == [skipped.plan.skipped["medcalc"]]
    source.parent.mkdir()
    source.write_text("Row Number,Calculator ID\n1,2\n", encoding="utf-8")
    found = load_plan(work / "conf", overrides)
    assert not found.cached and found.plan.skipped == {} and found.plan.cells


def test_an_unreadable_or_foreign_entry_is_made_again(work: Path) -> None:
    load_plan(work / "conf", SMALL)
    [entry] = (work / "results/identity/plans").iterdir()
    entry.write_text("{not json", encoding="utf-8")
    assert not load_plan(work / "conf", SMALL).cached
    data = json.loads(entry.read_text(encoding="utf-8"))
    entry.write_text(json.dumps({**data, "key": "another"}), encoding="utf-8")
    assert not load_plan(work / "conf", SMALL).cached
    data["plan"].pop("cells")
    entry.write_text(json.dumps(data), encoding="utf-8")
    assert not load_plan(work / "conf", SMALL).cached
    entry.write_text(json.dumps({k: v for k, v in data.items() if k != "watch"}),
                     encoding="utf-8")
    assert not load_plan(work / "conf", SMALL).cached
    assert load_plan(work / "conf", SMALL).cached


def test_only_the_newest_entries_are_kept(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plan_cache, "KEEP", 2)
    for modes in ("[cot]", "[zero_shot]", "[zero_shot,cot]"):
        load_plan(work / "conf", f"{SMALL} grid.select.modes={modes}")
    assert len(list((work / "results/identity/plans").iterdir())) == 2
    assert load_plan(work / "conf", f"{SMALL} grid.select.modes=[zero_shot,cot]").cached
    assert not load_plan(work / "conf", f"{SMALL} grid.select.modes=[cot]").cached


def test_a_results_folder_that_cannot_be_written_still_plans(work: Path, caplog) -> None:
    (work / "results" / "identity").mkdir(parents=True)
    (work / "results" / "identity" / "plans").write_text("a file where the folder goes")
    caplog.set_level("WARNING", logger="clineval")
    loaded = load_plan(work / "conf", SMALL)
    assert not loaded.cached and loaded.plan.cells
    assert "plan cache: cannot write" in caplog.text
