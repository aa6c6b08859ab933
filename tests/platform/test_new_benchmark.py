"""`clineval new-benchmark NAME` (src/clineval/skeleton/): a benchmark package outside the
repository that works as written: the files it writes, the names and folders it refuses, its
task and table composing and planning with the folder included, its leaderboard column and
caption phrase, its scoring of the demo it writes, and (slow) its table built by Snakemake."""

from __future__ import annotations

import json
import os
import sys
import tomllib
from pathlib import Path

import pytest
from workflow_run import snakemake

from clineval import cli
from clineval.benchmarks import get_benchmark, names, registry
from clineval.config.compose import compose_config
from clineval.config.locate import PROJECT_CONF
from clineval.workflow.plan.build import build_plan

NAME = "yes_no_demo"
PACKAGE = f"clineval_{NAME}"
OVERRIDES = [f"+task@tasks.{NAME}={NAME}", f"+table@tables.{NAME}_by_mode={NAME}_by_mode",
             f"grid.select.tables=[{NAME}_by_mode]", "grid.select.models=[tiny_llama,oracle]"]
FILES = ["README.md", "pyproject.toml", f"{PACKAGE}/__init__.py", f"{PACKAGE}/benchmark.py",
         f"{PACKAGE}/conf/table/{NAME}_by_mode.yaml", f"{PACKAGE}/conf/task/{NAME}.yaml",
         f"{PACKAGE}/extract.py", f"{PACKAGE}/formats.py", f"{PACKAGE}/settings.py",
         f"{PACKAGE}/synthetic.py"]


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> Path:
    """The skeleton of ``NAME``, written once by the command."""
    parent = tmp_path_factory.mktemp("outside")
    assert cli.main(["new-benchmark", NAME, "--dir", str(parent)]) == 0
    return parent / NAME


@pytest.fixture
def included(written, monkeypatch):
    """The skeleton's folder included; its package imported afresh, and forgotten."""
    monkeypatch.setenv(registry.INCLUDE, str(written))
    monkeypatch.setattr(sys, "path", list(sys.path))

    def forget() -> None:
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]

    forget()
    yield written
    forget()


def test_it_writes_a_package_with_its_entry_point_and_configs(written):
    found = sorted(str(p.relative_to(written)) for p in written.rglob("*")
                   if p.is_file() and "__pycache__" not in p.parts)
    assert found == sorted(FILES)
    assert not [f for f in FILES if "{{" in (written / f).read_text(encoding="utf-8")]
    project = tomllib.loads((written / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["entry-points"][registry.GROUP] == {NAME: PACKAGE}
    assert project["project"]["name"] == "clineval-yes-no-demo"
    readme = (written / "README.md").read_text(encoding="utf-8")
    assert f"+task@tasks.{NAME}={NAME}" in readme and f"{PACKAGE}/formats.py" in readme


@pytest.mark.parametrize(("name", "problem"), [
    ("My-Bench", "a benchmark's name is a lower-case Python identifier"),
    ("2fast", "a benchmark's name is a lower-case Python identifier"),
    ("double__underscore", "a benchmark's name is a lower-case Python identifier"),
    ("class", "a benchmark's name is a lower-case Python identifier"),
    ("mcqa", "a benchmark of that name exists (built in); choose another name"),
    ("clue_mednli", f"the config task/clue_mednli.yaml exists (under {PROJECT_CONF})"),
])
def test_it_refuses_a_name_that_is_no_identifier_or_is_taken(tmp_path, capsys, name, problem):
    assert cli.main(["new-benchmark", name, "--dir", str(tmp_path),
                     "--conf", str(PROJECT_CONF)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"clineval: error: new-benchmark {name!r}: {problem}")
    assert error.count("\n") == 1 and list(tmp_path.iterdir()) == []


def test_it_never_writes_over_a_folder(written, capsys):
    before = {p: p.read_bytes() for p in written.rglob("*") if p.is_file()}
    assert cli.main(["new-benchmark", NAME, "--dir", str(written.parent)]) == 2
    assert f"{written} exists; it writes a new folder only" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in written.rglob("*") if p.is_file()} == before


def test_included_it_composes_and_plans_with_its_leaderboard_column(included, tmp_path):
    assert NAME in names()
    plan = build_plan(PROJECT_CONF, OVERRIDES, results=tmp_path / "results",
                      data_root=tmp_path / "data")
    assert {(c.model, c.task, c.mode) for c in plan.cells} == {
        (m, NAME, mode) for m in ("tiny_llama", "oracle")
        for mode in ("zero_shot", "cot", "one_shot")}
    assert list(plan.tables) == [f"{NAME}_by_mode"]
    cfg = compose_config(PROJECT_CONF, ["grid=medcalc_paper", "+table@tables.leaderboard="
                                        "leaderboard", f"+task@tasks.{NAME}={NAME}"])
    board = cfg["tables"]["leaderboard"]
    assert [c["label"] for c in board["columns"]][-1] == "Yes No Demo (accuracy %, zero-shot)"
    assert "(MedCalc-Bench accuracy and Yes No Demo accuracy)" in board["caption"]


def test_it_scores_the_demo_it_writes(included, tmp_path):
    bench = get_benchmark(NAME)
    source = tmp_path / "questions.jsonl"
    task = {"data": {"source": "demo", "demo": {"n": 8, "seed": 1}}, "exemplars": {"count": 0}}
    bench.write_demo(task, {"questions": source})
    examples, exemplars = bench.derive(task, {"questions": source})
    assert len(examples) == 8 and exemplars == []
    oracle = bench.baseline("oracle", {"scoring": {"baselines": {}}}, examples)
    outputs = [oracle(e) for e in examples[:4]] + ["Yes.", "The answer is no", "maybe", ""]
    rows, summary = bench.score(task, examples, [{"id": e["id"], "output": o}
                                                 for e, o in zip(examples, outputs, strict=True)])
    gold = [e["answer"] for e in examples[4:6]]
    right = 4 + (gold[0] == "yes") + (gold[1] == "no")
    assert summary == {"n": 8, "metrics": {"accuracy": right / 8, "answered": 6 / 8}}
    assert [r["predicted"] for r in rows[4:]] == ["yes", "no", None, None]
    source.write_text(json.dumps({"question": "Q?", "answer": "perhaps"}) + "\n",
                      encoding="utf-8")
    with pytest.raises(ValueError, match=r"row 1, field 'answer': 'perhaps' is not one of yes"):
        bench.read_examples(task, {"questions": source})


@pytest.mark.slow
def test_the_workflow_builds_its_table(written, tmp_path):
    """Included, its table through Snakemake with the tiny model and the oracle (every
    oracle answer right)."""
    work = tmp_path / "work"
    work.mkdir()
    done = snakemake(work, "all_tables", overrides=" ".join(OVERRIDES),
                     env={registry.INCLUDE: str(written),
                          "PYTHONPATH": os.environ.get("PYTHONPATH", "")})
    assert done.returncode == 0, done.stderr[-3000:]
    text = (work / "results/tables" / f"{NAME}_by_mode.md").read_text(encoding="utf-8")
    assert "## Yes No Demo accuracy by prompting mode" in text
    oracle = [line for line in text.splitlines() if line.startswith("| Oracle")]
    assert len(oracle) == 1 and oracle[0].count("| 100.00 [100.00, 100.00]") == 6, text
