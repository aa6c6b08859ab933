"""`clineval answers`: each benchmark says which score rows hold a readable answer."""

from __future__ import annotations

import pytest
from workflow_run import REPO


@pytest.mark.slow
def test_only_cells_built_for_the_settings_are_shown(demo, capsys, monkeypatch) -> None:
    """The demo's SmolLM2 cells are shown under the demo's settings; under another batch size
    (another generation identity) the same folder's files are of other settings: not shown."""
    from clineval.cli import main

    monkeypatch.chdir(demo)
    conf = ["--conf", str(REPO / "conf"), "--model", "smollm2_135m"]
    assert main(["answers", *conf]) == 0
    shown = capsys.readouterr().out
    assert "| smollm2_135m/medcalc/zero_shot |" in shown and "not scored yet" not in shown
    assert main(["answers", *conf, "models.smollm2_135m.engine.batch_size=4"]) == 0
    shown = capsys.readouterr().out
    assert "| smollm2_135m/" not in shown
    assert "cell(s) not scored yet" in shown
