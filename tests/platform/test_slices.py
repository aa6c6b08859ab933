"""grid.slices: a model on a fixed subset of each task's examples; other cells unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from clineval.config.compose import ConfigError
from clineval.config.slices import take
from clineval.workflow.plan import build_plan

CONF = Path(__file__).resolve().parents[2] / "conf"
BASE = ["grid.select.tasks=[medcalc]", "grid.select.models=[oracle,constant]"]


def _plan(tmp_path: Path, *overrides: str):
    return build_plan(CONF, [*BASE, *overrides], results=tmp_path / "results",
                      data_root=tmp_path / "data")


def test_take_is_order_free_nested_and_keeps_file_order() -> None:
    examples = [{"id": f"row-{i}"} for i in range(40)]
    five, ten = take(examples, 5), take(examples, 10)
    assert len(five) == 5 and len(ten) == 10
    assert {e["id"] for e in five} < {e["id"] for e in ten}
    assert take(examples[::-1], 5) == five[::-1]  # the same examples, in the file's order
    assert [e["id"] for e in five] == sorted((e["id"] for e in five),
                                             key=lambda i: int(i.split("-")[1]))
    assert take(examples, None) == examples and take(examples, 99) == examples


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


@pytest.mark.parametrize(("slices", "message"), [
    ("{gpt9: {limit: 5}}", "grid.slices.gpt9: no model 'gpt9'"),
    ("{oracle: {limt: 5}}", "grid.slices.oracle.limt: unknown key"),
    ("{oracle: {limit: 0}}", "grid.slices.oracle.limit=0"),
    ("{oracle: {limit: abc}}", "grid.slices.oracle.limit='abc'"),
    ("{oracle: {tasks: {medcalk: {limit: 2}}}}", "grid.slices.oracle.tasks.medcalk: no task"),
    ("{oracle: {tasks: {medcalc: {limit: 2, modes: [cot]}}}}",
     "grid.slices.oracle.tasks.medcalc.modes: unknown key"),
])
def test_bad_slices_stop_the_plan(tmp_path: Path, slices: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        _plan(tmp_path, f"+grid.slices={slices}")
    assert message in str(err.value)
