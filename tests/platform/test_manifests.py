"""Job manifests (clineval.workflow.plan.manifests): what every rule hands its step.

The reader names the file and the field of a wrong manifest; every manifest the plan writes
reads back for its step, and is written again only when it changes; every job of a grid's dry
run is ``clineval step <name> --manifest <its manifest>`` and nothing else, with each of its
outputs named in that manifest."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from workflow_run import REPO, snakemake

from clineval import cli
from clineval.errors import DataError
from clineval.workflow.plan.build import build_plan
from clineval.workflow.plan.manifests import (
    FIELDS,
    manifest_text,
    manifests,
    read_manifest,
    write_manifests,
)

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


def test_every_step_of_the_command_has_a_manifest_layout():
    assert set(cli.STEPS) == set(FIELDS)


def test_every_manifest_of_the_plan_reads_back_for_its_step(plan):
    written = dict(manifests(plan, Path("results/cache")))
    steps = {m["step"] for m in written.values()}
    assert steps == set(FIELDS), "the grid has a job of every step"
    for path, manifest in written.items():
        assert plan.results / "jobs" / manifest["step"] in path.parents, path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(manifest_text(manifest), encoding="utf-8")
        read_manifest(path, manifest["step"])


def test_manifests_are_written_again_only_when_they_change(plan):
    cache = Path("results/cache")
    written = dict(manifests(plan, cache))
    write_manifests(plan, cache)
    times = {path: path.stat().st_mtime_ns for path in written}
    assert write_manifests(plan, cache) == 0
    assert times == {path: path.stat().st_mtime_ns for path in written}
    table = plan.manifest_file("table", "medcalc_table2")
    table.write_text("{}\n", encoding="utf-8")
    assert write_manifests(plan, cache) == 1
    assert json.loads(table.read_text(encoding="utf-8"))["step"] == "table"


def _dry_run_jobs(text: str) -> Iterator[tuple[str, list[str], str]]:
    """(rule, outputs, shell command) of each job a ``snakemake -n -p`` run prints."""
    for block in text.split("\nrule ")[1:]:
        rule = block.split(":", 1)[0]
        outputs = re.search(r"^    output: (.*)$", block, flags=re.M)
        shell = re.search(r"^Shell command: (.*)$", block, flags=re.M)
        if shell is not None and shell[1] != "None":
            yield rule, [p.removesuffix(" (update)") for p in outputs[1].split(", ")], shell[1]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@pytest.mark.slow
def test_every_rule_hands_its_step_only_its_manifest(tmp_path):
    done = snakemake(tmp_path, "all_tables", "all_exports", "-n", "-F", "-p", overrides=GRID)
    assert done.returncode == 0, done.stderr[-3000:]
    jobs = list(_dry_run_jobs(done.stdout + done.stderr))
    command = re.compile(r"clineval step (?P<step>[a-z-]+) --manifest (?P<manifest>\S+)"
                         r" > (?P<log>\S+) 2>&1")
    used, steps = set(), set()
    for rule, outputs, shell in jobs:
        match = command.fullmatch(shell)
        assert match, f"{rule}: {shell}"
        manifest = json.loads((tmp_path / match["manifest"]).read_text(encoding="utf-8"))
        assert manifest["step"] == match["step"], rule
        named = set(_strings(manifest))
        # named itself or by its folder (a built model's); a demo task's sources are written
        # from its data identity
        unnamed = [p for p in outputs if not {p, str(Path(p).parent)} & named
                   and "/demo/" not in p]
        assert not unnamed, f"{rule}: outputs not in {match['manifest']}: {unnamed}"
        used.add(match["manifest"])
        steps.add(match["step"])
    assert steps == set(FIELDS), "the grid runs every step"
    written = {str(p.relative_to(tmp_path)) for p in (tmp_path / "results/jobs").rglob("*.json")}
    assert used == written, "every job has its own manifest, and every manifest a job"
