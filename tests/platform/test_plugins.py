"""Benchmarks from outside the repository (docs/extending.md): the registry's sources (built in,
entry points, include folders), the configs a package carries, its `clineval score` and tools,
and (slow) the workflow building its table from an installed copy, with no file of the
repository changed. The example package is tests/fixtures/pubmedqa_plugin/."""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest
from workflow_run import REPO, planned_jobs, snakemake

from clineval import cli
from clineval.benchmarks import get_benchmark, names, registry, title, tools
from clineval.benchmarks.base import replicates_by_rows
from clineval.config.locate import PROJECT_CONF, available
from clineval.errors import ConfigError, DataError
from clineval.metrics.bootstrap import BootstrapSettings, resamples
from clineval.workflow.plan.build import build_plan

PROJECT = REPO / "tests/fixtures/pubmedqa_plugin"
PACKAGE = "clineval_pubmedqa"
OVERRIDES = ["+task@tasks.pubmedqa=pubmedqa", "+table@tables.pubmedqa_by_mode=pubmedqa_by_mode",
             "+figure@figures.pubmedqa_bars=pubmedqa_bars",
             "+model@models.pubmedqa_majority=pubmedqa_majority",
             "grid.select.tables=[pubmedqa_by_mode]", "grid.select.figures=[pubmedqa_bars]",
             "grid.select.models=[tiny_llama,pubmedqa_majority]"]


def install(site: Path, editable: bool = False) -> Path:
    """The package installed into ``site`` as pip would lay it out: its files (``editable``:
    none, the project folder goes on the path instead) and a dist-info whose entry points are
    those its pyproject.toml declares."""
    project = tomllib.loads((PROJECT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    if not editable:
        shutil.copytree(PROJECT / PACKAGE, site / PACKAGE,
                        ignore=shutil.ignore_patterns("__pycache__"))
    info = site / f"{PACKAGE}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                   f"Version: {project['version']}\n", encoding="utf-8")
    points = project["entry-points"][registry.GROUP]
    (info / "entry_points.txt").write_text(
        f"[{registry.GROUP}]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()),
        encoding="utf-8")
    return site


def package(folder: Path, name: str) -> Path:
    """A minimal benchmark package's files (never imported by these tests)."""
    (folder / name).mkdir(parents=True)
    for module in ("__init__.py", "benchmark.py", "settings.py"):
        (folder / name / module).write_text("", encoding="utf-8")
    return folder / name


@pytest.fixture(autouse=True)
def isolated(monkeypatch):
    """No include folder unless a test names one; the package imported afresh, and forgotten."""
    monkeypatch.setenv(registry.INCLUDE, "")
    monkeypatch.setattr(sys, "path", list(sys.path))  # an include folder's entry goes with it

    def forget() -> None:
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]

    forget()
    yield
    forget()


@pytest.fixture
def included(monkeypatch):
    monkeypatch.setenv(registry.INCLUDE, str(PROJECT))


def test_an_installed_package_registers_through_its_entry_point(tmp_path, monkeypatch):
    assert "pubmedqa" not in names()
    monkeypatch.syspath_prepend(str(install(tmp_path)))
    assert "pubmedqa" in names() and "pubmedqa" in tools()
    origin = registry.source("pubmedqa").origin
    assert origin == "entry point pubmedqa = clineval_pubmedqa of clineval-pubmedqa 0.1.0"
    assert PACKAGE not in sys.modules  # listing, tools and conf folders import nothing
    assert title("pubmedqa") == get_benchmark("pubmedqa").title == "PubMedQA"
    assert Path(sys.modules[PACKAGE].__file__).parent == tmp_path / PACKAGE


def test_an_include_folder_with_a_pyproject_names_what_installing_it_would(included):
    found = registry.source("pubmedqa")
    assert found.origin == f"entry point pubmedqa = {PACKAGE} of {PROJECT / 'pyproject.toml'}"
    assert get_benchmark("pubmedqa").name == "pubmedqa"
    assert Path(sys.modules[PACKAGE].__file__).parent == PROJECT / PACKAGE


def test_an_include_folder_may_be_a_package_or_hold_packages(tmp_path, monkeypatch):
    one = package(tmp_path / "single", "mybench")
    package(tmp_path / "many", "first")
    package(tmp_path / "many", "second")
    (tmp_path / "many" / "notes").mkdir()  # no benchmark.py: not a package
    monkeypatch.setenv(registry.INCLUDE, os.pathsep.join([str(one), str(tmp_path / "many")]))
    assert {"mybench", "first", "second"} <= set(names())
    assert "notes" not in names()
    assert registry.source("first").origin == f"include folder {tmp_path / 'many'}"
    assert registry.source("mybench").folder == one


def test_a_name_two_sources_give_names_both(tmp_path, monkeypatch):
    package(tmp_path / "mine", "mcqa")
    monkeypatch.setenv(registry.INCLUDE, str(tmp_path / "mine"))
    with pytest.raises(ConfigError, match=re.escape(
            f"two benchmarks are named 'mcqa': built in, and include folder {tmp_path / 'mine'}")):
        names()
    copy = tmp_path / "copy"
    shutil.copytree(PROJECT, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.syspath_prepend(str(install(tmp_path / "site")))
    monkeypatch.setenv(registry.INCLUDE, str(copy))
    with pytest.raises(ConfigError) as err:
        names()
    assert "clineval-pubmedqa 0.1.0" in str(err.value) and str(copy / "pyproject.toml") in str(
        err.value)


def test_the_same_package_installed_and_included_is_one(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(install(tmp_path, editable=True)))
    monkeypatch.syspath_prepend(str(PROJECT))  # `pip install -e`, then `--include` as well
    monkeypatch.setenv(registry.INCLUDE, str(PROJECT))
    assert names().count("pubmedqa") == 1
    assert registry.source("pubmedqa").origin.endswith("of clineval-pubmedqa 0.1.0")


def test_an_unknown_benchmark_lists_every_source(included):
    with pytest.raises(KeyError) as err:
        get_benchmark("pubmedqb")
    message, project = str(err.value), PROJECT / "pyproject.toml"
    assert "unknown benchmark 'pubmedqb'; known: clibench, clue, mcqa," in message
    assert f"pubmedqa (entry point pubmedqa = {PACKAGE} of {project})" in message
    assert f"the group 'clineval.benchmarks', include folders: {PROJECT})" in message


@pytest.mark.parametrize(("make", "problem"), [
    (lambda root: root / "absent", "is not a folder"),
    (lambda root: root, "holds no benchmark package"),
    (lambda root: (root / "pyproject.toml").write_text(
        '[project.entry-points."clineval.benchmarks"]\nx = "pkg:thing"\n') and root,
     "must be the benchmark's package"),
    (lambda root: package(root, "has-dash").parent, "is not a Python identifier"),
])
def test_a_bad_include_folder_says_what_is_wrong(tmp_path, monkeypatch, make, problem):
    monkeypatch.setenv(registry.INCLUDE, str(make(tmp_path)))
    with pytest.raises(ConfigError, match=problem):
        names()


def test_listing_imports_no_benchmark_package():
    code = ("import sys; import clineval.benchmarks as b; b.names(); b.tools(); b.conf_folders()\n"
            "print(sorted(m for m in sys.modules if m == 'numpy' or m.startswith("
            "('clineval_pubmedqa', 'clineval.benchmarks.'))))")
    env = {**os.environ, registry.INCLUDE: str(PROJECT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          check=True)
    assert done.stdout.strip() == "['clineval.benchmarks.registry']"


def test_composition_finds_the_configs_the_package_carries(included, tmp_path):
    for group, option in (("task", "pubmedqa"), ("table", "pubmedqa_by_mode"),
                          ("figure", "pubmedqa_bars"), ("model", "pubmedqa_majority")):
        assert option in available(PROJECT_CONF, group)
    plan = build_plan(PROJECT_CONF, OVERRIDES, results=tmp_path / "results",
                      data_root=tmp_path / "data")
    assert {(c.model, c.mode) for c in plan.cells} == {
        (m, mode) for m in ("tiny_llama", "pubmedqa_majority")
        for mode in ("zero_shot", "cot", "one_shot")}
    assert list(plan.tables) == ["pubmedqa_by_mode"] and list(plan.figures) == ["pubmedqa_bars"]
    # the wording file the task names (templates/pubmedqa.yaml) is the package's
    assert "You answer research questions" in json.dumps(plan.identities)


def test_without_the_package_its_options_are_unknown():
    with pytest.raises(ConfigError, match="Could not find 'task/pubmedqa'"):
        build_plan(PROJECT_CONF, OVERRIDES[:1])


def test_a_mistake_in_the_package_config_names_its_file(tmp_path, monkeypatch):
    copy = tmp_path / "project"
    shutil.copytree(PROJECT, copy, ignore=shutil.ignore_patterns("__pycache__"))
    task = copy / PACKAGE / "conf/task/pubmedqa.yaml"
    task.write_text(task.read_text(encoding="utf-8").replace("  seed: 0\n", "  sed: 0\n", 1),
                    encoding="utf-8")
    monkeypatch.setenv(registry.INCLUDE, str(copy))
    with pytest.raises(ConfigError, match=re.escape(
            f"tasks.pubmedqa.data.demo.sed: unknown key (from {task}); valid keys: n, seed")):
        build_plan(PROJECT_CONF, OVERRIDES[:1], results=tmp_path / "r", data_root=tmp_path / "d")


def test_its_tool_and_clineval_score_work_like_a_built_in_ones(tmp_path, capsys):
    source = tmp_path / "ori_pqal.json"
    assert cli.main(["pubmedqa", "demo", "--include", str(PROJECT), "--out", str(source),
                     "--n", "6"]) == 0
    bench = get_benchmark("pubmedqa")
    examples, _ = bench.derive({"data": {"source": "demo"}, "exemplars": {"count": 0}},
                               {"questions": source})
    (tmp_path / "examples.jsonl").write_text(
        "".join(json.dumps(e) + "\n" for e in examples), encoding="utf-8")
    (tmp_path / "predictions.jsonl").write_text(
        "".join(json.dumps({"id": e["id"], "output": "Answer: yes"}) + "\n" for e in examples),
        encoding="utf-8")
    capsys.readouterr()
    assert cli.main(["score", "pubmedqa", "--include", str(PROJECT), "--task", "pubmedqa",
                     "--examples", str(tmp_path / "examples.jsonl"),
                     "--predictions", str(tmp_path / "predictions.jsonl"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert summary["metrics"]["accuracy"] == pytest.approx(2 / 6)  # the decisions take turns


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"{registry.module('pubmedqa')}.{name}")


@pytest.mark.parametrize(("output", "decision"), [
    ("Yes.", "yes"), ("  maybe ", "maybe"), ("The abstract suggests... Answer: no", "no"),
    ('answer is "Maybe"; final answer: yes', "yes"), ("No, the trial showed nothing.", "no"),
    ("It depends.", None), ("Answer: probably", None),
])
def test_the_package_reads_the_decision_in_the_documented_order(included, output, decision):
    assert _module("extract").decision(output) == decision


@pytest.mark.parametrize(("record", "field", "problem"), [
    ({"CONTEXTS": ["c"], "final_decision": "yes"}, "QUESTION", "non-empty"),
    ({"QUESTION": "Q?", "CONTEXTS": [], "final_decision": "yes"}, "CONTEXTS", "list of"),
    ({"QUESTION": "Q?", "CONTEXTS": ["c"], "LABELS": ["A", "B"], "final_decision": "no"},
     "LABELS", "one per context"),
    ({"QUESTION": "Q?", "CONTEXTS": ["c"], "final_decision": "perhaps"}, "final_decision",
     "not one of yes, no, maybe"),
])
def test_the_package_names_the_file_id_and_field_of_a_bad_record(included, tmp_path, record,
                                                                  field, problem):
    formats = _module("formats")
    path = tmp_path / "ori_pqal.json"
    path.write_text(json.dumps({"1": {"QUESTION": "Q?", "CONTEXTS": ["c"],
                                      "final_decision": "yes"}, "22": record}), encoding="utf-8")
    with pytest.raises(DataError, match=problem) as err:
        formats.read_questions(path)
    assert (err.value.row, err.value.field) == ("22", field)


def test_the_package_scores_from_one_declaration(included):
    bench = get_benchmark("pubmedqa")
    examples = [{"id": str(i), "answer": gold} for i, gold in
                enumerate(["yes", "yes", "no", "maybe", "no", "yes"])]
    outputs = ["Answer: yes", "Answer: no", "Answer: no", "unsure", "Answer: no", "yes"]
    rows, summary = bench.score({}, examples, [{"id": e["id"], "output": o}
                                               for e, o in zip(examples, outputs, strict=True)])
    # yes: tp 2, fn 1 -> F1 0.8; no: tp 2, fp 1 -> 0.8; maybe: fn 1 -> 0
    assert summary == {"n": 6, "metrics": {"accuracy": 4 / 6, "macro_f1": pytest.approx(1.6 / 3),
                                           "answered": 5 / 6}}
    drawn = resamples(len(rows), BootstrapSettings(40, 0))
    assert bench.headline_replicates({}, rows, drawn) == replicates_by_rows(bench, {}, rows, drawn)
    majority = bench.baseline("majority", {"scoring": {"baselines": {}}}, examples)
    assert majority(examples[2]) == "Answer: yes"


def _tracked_changes() -> str:
    return subprocess.run(["git", "status", "--porcelain"], cwd=REPO, capture_output=True,
                          text=True, check=True).stdout


@pytest.mark.slow
def test_the_workflow_builds_an_installed_packages_table(tmp_path):
    """Installed into a site folder on PYTHONPATH: its table, figure and report through
    Snakemake with the tiny model and its own baseline; then the same grid with the project
    folder included instead has nothing to do. No file of the repository changes."""
    before = _tracked_changes()
    site = install(tmp_path / "site")
    work = tmp_path / "work"
    work.mkdir()
    pythonpath = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH")) if p)
    overrides = " ".join(OVERRIDES)
    done = snakemake(work, "all_tables", overrides=overrides, env={"PYTHONPATH": pythonpath})
    assert done.returncode == 0, done.stderr[-3000:]
    tables = work / "results" / "tables"
    text = (tables / "pubmedqa_by_mode.md").read_text(encoding="utf-8")
    assert "## PubMedQA accuracy by prompting mode" in text
    assert "| Tiny Llama (random weights) † |" in text and "| Majority decision |" in text
    records = (tables / "pubmedqa_by_mode.csv").read_text(encoding="utf-8").splitlines()
    assert len(records) == 1 + 2 * 3 * 2  # header, then 2 models x 3 modes x 2 metrics
    assert (work / "results" / "figures" / "pubmedqa_bars.png").is_file()
    assert "PubMedQA" in (work / "results" / "report" / "index.html").read_text(encoding="utf-8")
    included = planned_jobs(work, overrides, env={"PYTHONPATH": os.environ.get("PYTHONPATH", ""),
                                                  registry.INCLUDE: str(PROJECT)})
    assert included == {}
    for cache in PROJECT.rglob("__pycache__"):  # the included run's, ignored by git
        shutil.rmtree(cache)
    assert _tracked_changes() == before
