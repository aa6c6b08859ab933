"""The scorers on a real model's recorded output (SmolLM2-135M-Instruct in the demo).

tests/fixtures/real_outputs/ holds, per demo cell of the model, its raw generations, the
examples they answer and the rows the scorers gave them when they were recorded
(tests/fixtures/record_real_outputs.py). Scoring them again must give the same rows: a change
of an extractor or a metric shows here as a diff on real output, not only on hand-written
cases. CliBench's scoring reads the demo's synthetic ontology, so for it the items that its
parser splits from each answer are compared.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clineval.benchmarks import get_benchmark
from clineval.io import DataError
from clineval.metrics.code_mapping import split_items
from clineval.provenance.record import FileHashes
from clineval.workflow.steps.entry import checked_inputs, scored_cell

FIXTURES = sorted((Path(__file__).parents[1] / "fixtures" / "real_outputs").glob("*.json"))
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_every_benchmark_has_recorded_real_output() -> None:
    recorded = [_load(p) for p in FIXTURES]
    benchmarks = {r["scoring_identity"]["benchmark"] for r in recorded}
    assert benchmarks == {"medcalc", "clue", "meddisk", "clibench", "medeval"}
    assert {r["model"]["gguf"]["sha256"] for r in recorded} == {GGUF_SHA256}
    per_benchmark = {b: sum(len(r["generations"]) for r in recorded
                            if r["scoring_identity"]["benchmark"] == b) for b in benchmarks}
    assert min(per_benchmark.values()) >= 8, per_benchmark


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_recorded_outputs_score_as_recorded(path: Path) -> None:
    recorded = _load(path)
    ident = recorded["scoring_identity"]
    version = get_benchmark(ident["benchmark"]).scoring_version
    if ident["scoring_version"] != version:
        pytest.skip(f"recorded under {ident['benchmark']} scoring_version "
                    f"{ident['scoring_version']}, the scorer is now {version}: re-record "
                    "(tests/fixtures/record_real_outputs.py)")
    if ident["benchmark"] == "clibench":
        for generation, row in zip(recorded["generations"], recorded["rows"], strict=True):
            assert [item["text"] for item in row["items"]] == split_items(generation["output"])
        return
    try:
        inputs = checked_inputs(ident, FileHashes())
    except DataError as err:
        pytest.skip(f"a scoring input differs from the recorded one here: {err}")
    rows, _ = scored_cell("recorded", ident, recorded["examples"], recorded["generations"],
                          path, inputs)
    assert rows == recorded["rows"]
