"""A grid's identities hold only the settings it uses: the demo plans the same whatever
variables the docs tell a user to export for real data (clineval.config.unused)."""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_variables import NOT_DATA, documented, exported, read_by_conf
from workflow_run import REPO

from clineval.workflow.plan.build import build_plan

CONF = REPO / "conf"


@pytest.fixture(scope="module")
def roots(tmp_path_factory) -> dict[str, Path]:
    """Results and data roots the module's plans share: the file-hash memo (encoders, the
    GGUF) is filled once."""
    base = tmp_path_factory.mktemp("insulation")
    return {"results": base / "results", "data_root": base / "data"}


def test_every_documented_variable_is_a_data_variable_or_known() -> None:
    """A variable the docs add is classified here, so that the demo's insulation covers it."""
    unknown = documented() - read_by_conf() - set(NOT_DATA)
    assert not unknown, f"classify in NOT_DATA or read it in conf/: {sorted(unknown)}"


def test_the_demo_plans_the_same_with_every_variable_of_the_docs(tmp_path, monkeypatch,
                                                                 roots) -> None:
    """Identities, folders and cells of the demo do not move when every variable is exported
    (10 tables and figures used to read as broken, and 62 jobs to be planned)."""
    before = build_plan(CONF, [], **roots)
    for name, value in exported(tmp_path / "exported").items():
        monkeypatch.setenv(name, value)
    after = build_plan(CONF, [], **roots)
    assert (after.results, after.data_root) == (before.results, before.data_root)
    assert after.cells == before.cells
    assert {k: v["sha"] for k, v in after.identities.items()} == {
        k: v["sha"] for k, v in before.identities.items()}


def test_a_setting_is_null_where_its_section_does_not_read_it(tmp_path, monkeypatch,
                                                              roots) -> None:
    """An official task keeps its file; the exemplar file and the label file count only with
    ``exemplars.source: official`` and ``scoring.labels: file``."""
    csv, shots, labels = (tmp_path / name for name in ("test.csv", "shots.json", "labels.csv"))
    for path in (csv, shots, labels):
        path.write_text("x\n")
    monkeypatch.setenv("CLINEVAL_MEDCALC_EXEMPLARS", str(shots))
    monkeypatch.setenv("CLINEVAL_MEDCALC_LABELS", str(labels))
    base = ["grid.select.tasks=[medcalc]", "tasks.medcalc.data.source=official",
            f"tasks.medcalc.data.path={csv}"]

    def task(*overrides: str) -> dict:
        plan = build_plan(CONF, [*base, "grid.select.models=[oracle]", *overrides], **roots)
        return plan.cfg["tasks"]["medcalc"]

    plain = task()
    assert plain["data"]["path"] == str(csv)
    assert plain["exemplars"]["official_path"] is None
    assert plain["scoring"]["label_file"] is None
    used = task("tasks.medcalc.exemplars.source=official", "tasks.medcalc.scoring.labels=file")
    assert used["exemplars"]["official_path"] == str(shots)
    assert used["scoring"]["label_file"] == str(labels)
    demo = task("tasks.medcalc.data.source=demo")
    assert demo["data"]["path"] is None
