"""What the README and docs/workflow.md promise a change re-runs, checked on the identities the
rules take as inputs (a job re-runs when one of its identity files, or a file upstream, is new):
a sampling change, ``max_tokens``, a table change, a figure change and a model's display name.
A change to a model's cells also changes its exports (``all_exports``, docs/export.md), which
``all_tables`` does not build. The end-to-end dry runs of tests/platform/test_workflow_e2e.py
check the same on a built demo."""

from __future__ import annotations

from pathlib import Path

import pytest

from clineval.workflow.plan.build import build_plan
from clineval.workflow.plan.layout import Plan

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def roots(tmp_path_factory) -> tuple[Path, Path]:
    work = tmp_path_factory.mktemp("promises")
    return work / "results", work / "data"


def plan(roots: tuple[Path, Path], *overrides: str) -> Plan:
    return build_plan(REPO / "conf", list(overrides), results=roots[0], data_root=roots[1])


@pytest.fixture(scope="module")
def base(roots) -> Plan:
    return plan(roots)


def changed(base: Plan, other: Plan) -> set[str]:
    keys = set(base.identities) | set(other.identities)
    return {k for k in keys
            if base.identities.get(k, {}).get("sha") != other.identities.get(k, {}).get("sha")}


def cell_keys(p: Plan, model: str, kinds: tuple[str, ...]) -> set[str]:
    return {f"{c.path}/{kind}" for c in p.cells if c.model == model for kind in kinds}


def exports(p: Plan, model: str) -> set[str]:
    """The identities of the model's exports, one per task."""
    return {f"export-eee/{model}/{c.task}" for c in p.cells if c.model == model}


def test_a_sampling_change_reruns_that_models_generation_and_scoring_only(roots, base):
    other = plan(roots, "models.smollm2_135m.sampling.temperature=0.5")
    assert changed(base, other) == cell_keys(base, "smollm2_135m", ("generation", "scoring")) | (
        exports(base, "smollm2_135m"))


@pytest.mark.parametrize("model", ["smollm2_135m", "tiny_llama"])
def test_max_tokens_of_a_model_with_a_context_also_rebuilds_its_requests(roots, base, model):
    """max_tokens sets the prompt budget (max_model_len - max_tokens) where the model has a
    ``context`` block: its requests may be cut elsewhere, so they are rebuilt (README)."""
    assert base.cfg["models"][model].get("context")
    other = plan(roots, f"models.{model}.sampling.max_tokens=16")
    assert changed(base, other) == cell_keys(base, model, ("requests", "generation", "scoring")) | (
        exports(base, model))


def test_max_tokens_of_a_model_without_a_context_leaves_its_requests(roots, base):
    other = plan(roots, "models.smollm2_135m.sampling.max_tokens=16",
                 "models.smollm2_135m.context=null")
    context_only = plan(roots, "models.smollm2_135m.context=null")
    assert changed(context_only, other) == cell_keys(base, "smollm2_135m",
                                                     ("generation", "scoring")) | (
        exports(base, "smollm2_135m"))


def test_a_table_change_rebuilds_that_table_its_figures_and_the_report(roots, base):
    other = plan(roots, "tables.medcalc_table2.decimals=1")
    drawn = {f"figures/{f}" for f, tables in base.figures.items() if "medcalc_table2" in tables}
    assert drawn, "a figure draws the MedCalc table"
    assert changed(base, other) == {"tables/medcalc_table2", "report/index", *drawn}


def test_a_figure_change_redraws_that_figure_and_the_report_only(roots, base):
    other = plan(roots, "figures.clue_levels.title=Other")
    assert changed(base, other) == {"figures/clue_levels", "report/index"}


def test_renaming_a_model_rebuilds_only_the_tables_figures_and_report_that_show_it(roots, base):
    other = plan(roots, "models.tiny_llama.display_name=Tiny")
    showing = {f"tables/{t}" for t, cells in base.tables.items()
               if any(c.model == "tiny_llama" for c in cells)}
    drawn = {f"figures/{f}" for f, tables in base.figures.items()
             if any(f"tables/{t}" in showing for t in tables)}
    # the explorer's pages name each model (report/examples)
    assert changed(base, other) == (showing | drawn | {"report/index", "report/examples"}
                                    | exports(base, "tiny_llama"))


def test_adding_a_model_runs_its_cells_and_leaves_every_other_cell(roots, base):
    other = plan(roots, "+model@models.oracle2=oracle")
    new_cells = {f"{c.path}/{kind}" for c in other.cells if c.model == "oracle2"
                 for kind in ("requests", "generation", "scoring")}
    assert new_cells
    cell_changes = {k for k in changed(base, other) if k.count("/") == 3}
    assert cell_changes == new_cells, "no existing cell's requests, generation or scores"
