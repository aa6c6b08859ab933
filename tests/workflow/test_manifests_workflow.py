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
from workflow_run import snakemake

from clineval.workflow.plan.manifests import (
    FIELDS,
)

#: A small grid with every kind of job: a demo task's data, a built model whose tokenizer fits
#: requests, a sharded model and its merges, derived scoring inputs, tables, figures, report.
GRID = ("grid.select.models=[constant,tiny_llama,clibench_frequency] "
        "grid.select.tasks=[medcalc,clue_mednli,clibench_diagnoses] "
        "grid.select.modes=[zero_shot,one_shot] +models.constant.resources.shards=2")


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
