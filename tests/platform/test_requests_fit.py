"""The requests step fits every request into the model's context by cutting the note only."""

from __future__ import annotations

from pathlib import Path

import pytest

from clineval.benchmarks.medcalc.benchmark import BENCHMARK
from clineval.inference import tiny_model
from clineval.inference.tokens import ChatTokenCounter
from clineval.workflow.plan.build import build_plan
from clineval.workflow.steps.requests import fit_requests

CONF = Path(__file__).resolve().parents[2] / "conf"


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fit")
    plan = build_plan(CONF, ["grid.select.models=[tiny_llama]", "grid.select.tasks=[medcalc]",
                             "tasks.medcalc.data.demo.per_calculator=1"],
                      results=tmp / "results", data_root=tmp / "data")
    model_dir = tmp / "model"
    tiny_model.build(plan.cfg["models"]["tiny_llama"]["build"], model_dir)
    task = plan.cfg["tasks"]["medcalc"]
    sources = plan.sources("medcalc")
    BENCHMARK.write_demo(task, sources)
    examples, exemplars = BENCHMARK.derive(task, sources)
    return plan, ChatTokenCounter(model_dir), examples, exemplars


@pytest.mark.parametrize("mode", ["zero_shot", "one_shot"])
def test_long_requests_are_cut_in_the_note_and_fit(setup, mode):
    plan, count, examples, exemplars = setup
    ident = plan.identities[f"tiny_llama/medcalc/{mode}/requests"]["identity"]
    whole = BENCHMARK.build_requests(ident["task"], ident["mode"], ident["templates"], examples,
                                     exemplars)
    # a context just above the longest request without its note: every note must be cut
    empty = [BENCHMARK.with_fields(e, {"note": ""}) for e in examples]
    overhead = max(count(r["messages"]) for r in BENCHMARK.build_requests(
        ident["task"], ident["mode"], ident["templates"], empty, exemplars))
    budget = overhead + 40
    limits = {**ident["model_limits"],
              "max_model_len": budget + ident["model_limits"]["max_tokens"]}
    fitted = fit_requests(BENCHMARK, {**ident, "model_limits": limits}, examples, exemplars,
                          count)
    cut = [r for r in fitted if r["truncation"]]
    assert cut, "a context this tight must cut some notes"
    by_id = {r["id"]: r for r in whole}
    notes = {e["id"]: e["note"] for e in examples}
    for record in fitted:
        assert count(record["messages"]) <= budget
        original = by_id[record["id"]]
        if record["truncation"] is None:
            assert record == original
            continue
        assert record["truncation"]["field"] == "note"
        assert record["request_sha"] != original["request_sha"]
        # instructions and exemplars (the system message) are never cut
        assert record["messages"][0] == original["messages"][0]
        kept = notes[record["id"]][: len(notes[record["id"]]) - record["truncation"]["chars_cut"]]
        assert kept in record["messages"][-1]["content"]


def test_generous_context_changes_nothing(setup):
    plan, count, examples, exemplars = setup
    ident = plan.identities["tiny_llama/medcalc/cot/requests"]["identity"]
    roomy = {**ident, "model_limits": {**ident["model_limits"], "max_model_len": 16384}}
    fitted = fit_requests(BENCHMARK, roomy, examples, exemplars, count)
    assert all(r["truncation"] is None for r in fitted)


def test_max_tokens_is_part_of_the_requests_identity(tmp_path):
    def sha(*overrides):
        plan = build_plan(CONF, ["grid.select.models=[tiny_llama]", *overrides],
                          results=tmp_path / "r", data_root=tmp_path / "d")
        return plan.identities["tiny_llama/medcalc/cot/requests"]["sha"]

    assert sha() != sha("models.tiny_llama.sampling.max_tokens=64")
