"""grid.slices: a model on a subset of each task's examples (by limit, seed, offset or ids);
other cells unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from clineval import cli
from clineval.config.compose import ConfigError
from clineval.config.slices import take
from clineval.io import read_json, read_jsonl
from clineval.workflow.plan.build import build_plan
from clineval.workflow.plan.manifests import manifests, write_manifests

CONF = Path(__file__).resolve().parents[2] / "conf"
BASE = ["grid.select.tasks=[medcalc]", "grid.select.models=[oracle,constant]"]


def _plan(tmp_path: Path, *overrides: str):
    return build_plan(CONF, [*BASE, *overrides], results=tmp_path / "results",
                      data_root=tmp_path / "data")


EXAMPLES = [{"id": f"row-{i}"} for i in range(40)]


def _ids(rows: list[dict]) -> list[str]:
    return [e["id"] for e in rows]


def test_take_is_order_free_nested_and_keeps_file_order() -> None:
    five, ten = take(EXAMPLES, {"slice": 5}), take(EXAMPLES, {"slice": 10})
    assert len(five) == 5 and len(ten) == 10
    assert set(_ids(five)) < set(_ids(ten))
    assert take(EXAMPLES[::-1], {"slice": 5}) == five[::-1]  # the same, in the file's order
    assert _ids(five) == sorted(_ids(five), key=lambda i: int(i.split("-")[1]))
    assert take(EXAMPLES, {}) == EXAMPLES and take(EXAMPLES, {"slice": 99}) == EXAMPLES


def test_a_seed_draws_another_sample_the_same_each_time() -> None:
    first = take(EXAMPLES, {"slice": 8})
    seeded = take(EXAMPLES, {"slice": 8, "slice_seed": 1})
    assert len(seeded) == 8 and set(_ids(seeded)) != set(_ids(first))
    assert take(EXAMPLES[::-1], {"slice": 8, "slice_seed": 1}) == seeded[::-1]
    assert take(EXAMPLES, {"slice": 8, "slice_seed": 2}) != seeded


def test_offsets_give_disjoint_windows_that_cover_the_task() -> None:
    windows = [take(EXAMPLES, {"slice": 10, "slice_offset": k, "slice_seed": 4})
               for k in (0, 10, 20, 30)]
    ids = [set(_ids(w)) for w in windows]
    assert all(len(w) == 10 for w in ids)
    assert set().union(*ids) == set(_ids(EXAMPLES))  # four windows of 10: all 40, no overlap
    assert take(EXAMPLES, {"slice_offset": 30, "slice_seed": 4}) == windows[3]  # the rest
    assert windows[0] == take(EXAMPLES, {"slice": 10, "slice_seed": 4})


def test_ids_take_exactly_those_examples_in_the_file_order() -> None:
    rows = take(EXAMPLES, {"slice_ids": ["row-7", "row-2", "row-31"]})
    assert _ids(rows) == ["row-2", "row-7", "row-31"]
    assert _ids(take([{"id": 12}, {"id": 5}], {"slice_ids": ["5"]})) == [5]  # ids as text


@pytest.mark.parametrize(("ident", "message"), [
    ({"slice_ids": ["row-1", "row-99", "x", "y", "z", "w", "v"], "cell": "m/medcalc/cot"},
     "grid.slices.m.tasks.medcalc.ids: 6 of 7 ids are not examples of task medcalc; "
     "first: 'row-99', 'x', 'y', 'z', 'w'"),
    ({"slice": 5, "slice_offset": 40, "cell": "m/medcalc/cot"},
     "grid.slices.m: offset 40 leaves no example of task medcalc, which has 40"),
])
def test_a_slice_the_task_cannot_give_stops_with_one_line(ident: dict, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        take(EXAMPLES, ident)
    assert str(err.value) == message


def test_a_slice_changes_only_the_sliced_model_cells(tmp_path: Path) -> None:
    whole = _plan(tmp_path)
    sliced = _plan(tmp_path, "+grid.slices={oracle: {limit: 5}}")
    for cell in whole.cells:
        for kind in ("requests", "generation", "scoring"):
            key = f"{cell.path}/{kind}"
            same = whole.identities[key]["sha"] == sliced.identities[key]["sha"]
            assert same == (cell.model != "oracle"), key
    assert sliced.identities["oracle/medcalc/zero_shot/requests"]["identity"]["slice"] == 5
    assert sliced.identities["oracle/medcalc/zero_shot/scoring"]["identity"]["slice"] == 5
    table = sliced.identities["tables/medcalc_table2"]["identity"]["models"]
    assert table["oracle"]["sliced"] is True and "sliced" not in table["constant"]


def test_a_task_limit_overrides_the_model_limit(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "+grid.slices={oracle: {limit: 5, tasks: {medcalc: {limit: 2}}}}")
    assert plan.identities["oracle/medcalc/cot/requests"]["identity"]["slice"] == 2


#: Slices and the keys they add to a cell's identities.
ADDED = [
    ("{oracle: {limit: 5}}", {"slice": 5}),  # as before seeds, offsets and ids existed
    ("{oracle: {limit: 5, seed: 3}}", {"slice": 5, "slice_seed": 3}),
    ("{oracle: {limit: 5, tasks: {medcalc: {offset: 10}}}}", {"slice": 5, "slice_offset": 10}),
    ("{oracle: {seed: 0, offset: 2}}", {"slice_seed": 0, "slice_offset": 2}),
    ("{oracle: {limit: 5, seed: 3, tasks: {medcalc: {ids: [a, 7]}}}}",
     {"slice_ids": ["a", "7"]}),
]


def test_identities_add_exactly_the_slice_keys_set(tmp_path: Path) -> None:
    whole = _plan(tmp_path).identities
    for slices, added in ADDED:
        sliced = _plan(tmp_path, f"+grid.slices={slices}").identities
        key = "oracle/medcalc/zero_shot/requests"
        assert sliced[key]["identity"] == whole[key]["identity"] | added, slices
        scoring = sliced["oracle/medcalc/zero_shot/scoring"]["identity"]
        assert {k: v for k, v in scoring.items() if k.startswith("slice")} == added, slices
        assert sliced["data/medcalc"] == whole["data/medcalc"]
        assert sliced["tables/medcalc_table2"]["identity"]["models"]["oracle"]["sliced"] is True


def test_the_demo_slices_keep_their_identities(tmp_path: Path) -> None:
    """The demo's slices are limits alone: their identities hold ``slice`` and no new key, so
    a finished demo stays up to date."""
    plan = build_plan(CONF, ["grid=demo"], results=tmp_path / "results",
                      data_root=tmp_path / "data")
    held = {key: {k for k in entry["identity"] if k.startswith("slice")}
            for key, entry in plan.identities.items()
            if key.startswith("smollm2_135m/") and key.endswith("/requests")}
    assert held and all(keys == {"slice"} for keys in held.values())
    assert plan.identities["smollm2_135m/medcalc/cot/requests"]["identity"]["slice"] == 2


@pytest.mark.parametrize(("slices", "message"), [
    ("{gpt9: {limit: 5}}", "grid.slices.gpt9: no model 'gpt9'"),
    ("{oracle: {limt: 5}}", "grid.slices.oracle.limt: unknown key"),
    ("{oracle: {limit: 0}}", "grid.slices.oracle.limit=0"),
    ("{oracle: {limit: abc}}", "grid.slices.oracle.limit='abc'"),
    ("{oracle: {tasks: {medcalk: {limit: 2}}}}", "grid.slices.oracle.tasks.medcalk: no task"),
    ("{oracle: {tasks: {medcalc: {limit: 2, modes: [cot]}}}}",
     "grid.slices.oracle.tasks.medcalc.modes: unknown key"),
    ("{oracle: {limit: 2, offset: -1}}", "grid.slices.oracle.offset=-1: out of range"),
    ("{oracle: {limit: 2, seed: -3}}", "grid.slices.oracle.seed=-3: out of range"),
    ("{oracle: {limit: 2, seed: x}}", "grid.slices.oracle.seed='x'"),
    ("{oracle: {seed: 3}}", "grid.slices.oracle: seed 3 with neither a limit nor an offset "
                            "on task medcalc takes every example"),
    ("{oracle: {ids: [a]}}", "grid.slices.oracle.ids: unknown key"),
    ("{oracle: {tasks: {medcalc: {ids: [a], limit: 2}}}}",
     "grid.slices.oracle.tasks.medcalc: ids name the examples themselves; drop limit"),
    ("{oracle: {tasks: {medcalc: {ids: []}}}}", "grid.slices.oracle.tasks.medcalc.ids: empty"),
    ("{oracle: {tasks: {medcalc: {ids: [a, b, a]}}}}",
     "grid.slices.oracle.tasks.medcalc.ids: 'a' is listed twice"),
])
def test_bad_slices_stop_the_plan(tmp_path: Path, slices: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        _plan(tmp_path, f"+grid.slices={slices}")
    assert message in str(err.value)


def _run_steps(plan, steps: tuple[str, ...]) -> None:
    """Each step's jobs of the plan from their manifests, in this process."""
    plan.write_identities()
    cache = plan.results / "cache"
    write_manifests(plan, cache)
    jobs = list(manifests(plan, cache))
    for step in steps:
        for path, manifest in jobs:
            if manifest["step"] == step:
                assert cli.main(["step", step, "--manifest", str(path)]) == 0, path


def test_the_steps_score_and_export_the_slice_the_identity_holds(tmp_path: Path) -> None:
    """A seeded window and a list of ids through the requests, scoring and export steps."""
    first = _plan(tmp_path, "grid.select.tables=[medcalc_table2]")
    _run_steps(first, ("derive",))
    examples = read_jsonl(first.derived("medcalc")["examples"])
    chosen = [str(examples[i]["id"]) for i in (3, 17, 40)]
    plan = _plan(tmp_path, "grid.select.tables=[medcalc_table2]",
                 f"+grid.slices={{oracle: {{limit: 6, seed: 9, offset: 6}}, "
                 f"constant: {{tasks: {{medcalc: {{ids: [{', '.join(chosen)}]}}}}}}}}")
    _run_steps(plan, ("requests", "generate", "score", "export-eee"))
    window = take(examples, {"slice": 6, "slice_seed": 9, "slice_offset": 6})
    for model, expected in (("oracle", _ids(window)), ("constant", chosen)):
        for mode in ("zero_shot", "cot"):
            requests = read_jsonl(plan.results / "requests" / model / "medcalc" / f"{mode}.jsonl")
            scores = read_jsonl(plan.results / "scores" / model / "medcalc" / f"{mode}.jsonl")
            assert [str(r["id"]) for r in requests] == expected, (model, mode)
            assert [str(r["id"]) for r in scores] == expected, (model, mode)
    assert not set(_ids(window)) & set(_ids(take(examples, {"slice": 6, "slice_seed": 9})))
    document = read_json(plan.export_outputs("oracle", "medcalc")[0])
    details = document["evaluation_results"][0]["score_details"]["details"]
    assert (details["slice"], details["slice_seed"], details["slice_offset"]) == ("6", "9", "6")
    document = read_json(plan.export_outputs("constant", "medcalc")[0])
    details = document["evaluation_results"][0]["score_details"]["details"]
    assert details["slice_ids"] == ", ".join(chosen) and "slice" not in details


def test_ids_the_task_lacks_stop_the_requests_step_with_one_line(tmp_path: Path,
                                                                 capsys) -> None:
    plan = _plan(tmp_path, "grid.select.tables=[medcalc_table2]",
                 "+grid.slices={oracle: {tasks: {medcalc: {ids: [nope-1, nope-2]}}}}")
    _run_steps(plan, ("derive",))
    cache = plan.results / "cache"
    path = next(p for p, m in manifests(plan, cache)
                if m["step"] == "requests" and p.parent.name == "oracle")
    assert cli.main(["step", "requests", "--manifest", str(path)]) == 2
    assert capsys.readouterr().err == (
        "clineval: error: grid.slices.oracle.tasks.medcalc.ids: 2 of 2 ids are not examples "
        "of task medcalc; first: 'nope-1', 'nope-2'\n")
