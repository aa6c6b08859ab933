"""Job manifests (clineval.workflow.plan.manifests): what every rule hands its step, written
from the jobs each step declares (clineval.workflow.plan.jobs).

The reader names the file and the field of a wrong manifest; every manifest the plan writes
reads back for its step, and is written again only when it changes; every job of a grid's dry
run is ``clineval step <name> --manifest <its manifest>`` and nothing else, with each of its
outputs named in that manifest."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from workflow_run import REPO

from clineval import cli
from clineval.errors import DataError
from clineval.workflow.plan.build import build_plan
from clineval.workflow.plan.jobs import plan_jobs, plan_rules, steps
from clineval.workflow.plan.manifests import FIELDS, manifest_text, read_manifest, write_manifests

#: A small grid with every kind of job: a demo task's data, a built model whose tokenizer fits
#: requests, a sharded model and its merges, derived scoring inputs, tables, figures, report.
GRID = ("grid.select.models=[constant,tiny_llama,clibench_frequency] "
        "grid.select.tasks=[medcalc,clue_mednli,clibench_diagnoses] "
        "grid.select.modes=[zero_shot,one_shot] +models.constant.resources.shards=2")
SCORE = {"step": "score", "cells": [{
    "identity": "i.json", "examples": "e.jsonl", "requests": "q.jsonl", "generations": "g.jsonl",
    "rows": "r.jsonl", "summary": "s.json", "record": "p.json"}]}


@pytest.fixture(scope="module")
def plan(tmp_path_factory):
    work = tmp_path_factory.mktemp("manifests")
    return build_plan(REPO / "conf", GRID.split(), results=work / "results",
                      data_root=work / "data")


def _write(path: Path, manifest: Any) -> Path:
    path.write_text(json.dumps(manifest), encoding="utf-8")
    return path


def test_a_manifest_reads_as_paths(tmp_path):
    job = read_manifest(_write(tmp_path / "m.json", SCORE), "score")
    assert job == {"cells": [{name: Path(value) for name, value in SCORE["cells"][0].items()}]}


@pytest.mark.parametrize(("change", "field", "problem"), [
    ({"step": "requests"}, "step", "expected 'score', found 'requests'"),
    ({"step": None}, "step", "expected 'score', found None"),
    ({"cells": [{**SCORE["cells"][0], "summary": None}]}, "cells[0].summary",
     "expected a path, found null"),
    ({"cells": {}}, "cells", "expected a list, found {}"),
])
def test_a_wrong_step_or_field_names_the_file_and_field(tmp_path, change, field, problem):
    path = _write(tmp_path / "m.json", SCORE | change)
    with pytest.raises(DataError) as err:
        read_manifest(path, "score")
    assert str(err.value) == f"{path}, field {field!r}: {problem}"


@pytest.mark.parametrize(("step", "manifest", "field"), [
    ("score", {"step": "score"}, "cells"),
    ("score", {"step": "score", "cells": [{k: v for k, v in SCORE["cells"][0].items()
                                           if k != "rows"}]}, "cells[0].rows"),
    ("table", {"step": "table", "identity": "i.json", "summaries": ["s.json"],
               "outputs": {"csv": "t.csv"}, "record": "t.prov.json"}, "outputs.md"),
    ("derive", {"step": "derive", "identity": "i.json", "examples": "e.jsonl",
                "exemplars": "x.jsonl", "record": "p.json"}, "demo"),
])
def test_a_missing_field_is_named(tmp_path, step, manifest, field):
    path = _write(tmp_path / "m.json", manifest)
    with pytest.raises(DataError) as err:
        read_manifest(path, step)
    assert str(err.value) == f"{path}, field {field!r}: missing from the job manifest"


def test_the_step_command_reports_a_bad_manifest_in_one_line(tmp_path, capsys):
    path = _write(tmp_path / "m.json", {"step": "score"})
    assert cli.main(["step", "score", "--manifest", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"clineval: error: {path}, field 'cells': missing from the job manifest\n")


def test_every_step_of_the_command_has_a_manifest_layout(capsys):
    with pytest.raises(SystemExit):
        cli.main(["step", "--help"])
    listed = capsys.readouterr().out
    assert all(name in listed for name in FIELDS)
    assert [s.name for s in steps()] == list(FIELDS)


def _wildcards(rule: Any, key: tuple[str, ...]) -> dict[str, str] | None:
    """The wildcards that make the rule's key ``key`` (each part of a rule's key is a name or
    one wildcard, which the rule may constrain), or None."""
    if len(rule.key) != len(key):
        return None
    found = {}
    for part, value in zip(rule.key, key, strict=True):
        wildcard = re.fullmatch(r"{(\w+)}", part)
        if wildcard:
            if not re.fullmatch(rule.constraints.get(wildcard[1], "[^/]+"), value):
                return None
            found[wildcard[1]] = value
        elif part != value:
            return None
    return found


def test_every_job_has_one_rule_whose_outputs_are_its_own(plan):
    """The rule of a job is the one of its step whose key, with the rule's wildcards, is the
    job's; its outputs, so filled in, are the job's, and its inputs hold the job's manifest."""
    rules = plan_rules(plan)
    for job in plan_jobs(plan):
        matched = [(rule, wildcards) for rule in rules if rule.step == job.step
                   and (wildcards := _wildcards(rule, job.key)) is not None]
        assert len(matched) == 1, job.name
        rule, wildcards = matched[0]
        assert rule.job_key(wildcards) == (job.step, *job.key)
        assert {name: [p.format_map(wildcards) for p in paths]
                for name, paths in rule.outputs.items()} == job.outputs, job.name
        assert job.inputs["manifest"] == [job.manifest_file]


def test_every_manifest_of_the_plan_reads_back_for_its_step(plan):
    written = {Path(j.manifest_file): j.manifest for j in plan_jobs(plan)}
    steps = {m["step"] for m in written.values()}
    assert steps == set(FIELDS), "the grid has a job of every step"
    for path, manifest in written.items():
        assert plan.results / "jobs" / manifest["step"] in path.parents, path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(manifest_text(manifest), encoding="utf-8")
        read_manifest(path, manifest["step"])


def test_manifests_are_written_again_only_when_they_change(plan):
    jobs = plan_jobs(plan)
    written = [Path(j.manifest_file) for j in jobs]
    write_manifests(jobs)
    times = {path: path.stat().st_mtime_ns for path in written}
    assert write_manifests(jobs) == 0
    assert times == {path: path.stat().st_mtime_ns for path in written}
    table = plan.manifest_file("table", "medcalc_table2")
    table.write_text("{}\n", encoding="utf-8")
    assert write_manifests(jobs) == 1
    assert json.loads(table.read_text(encoding="utf-8"))["step"] == "table"


def test_every_step_names_the_function_it_runs_and_that_function_exists():
    """``clineval step NAME`` imports its declaration's ``run`` by name: each resolves to a
    callable taking the job's manifest."""
    import importlib
    import inspect

    for declared in steps():
        module, _, function = declared.run.partition(":")
        assert module and function, f"{declared.name}: run {declared.run!r} is not module:function"
        found = getattr(importlib.import_module(module), function)
        assert callable(found) and list(inspect.signature(found).parameters) == ["job"], \
            declared.name
