"""A grid's identities hold only the settings it uses: the demo plans the same whatever
variables the docs tell a user to export for real data (clineval.config.unused)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from doc_variables import exported
from workflow_run import REPO, planned_jobs

CONF = REPO / "conf"


@pytest.mark.slow
def test_the_demo_has_nothing_to_do_and_audits_clean_with_the_variables(demo, tmp_path):
    """The built demo under every variable of the docs: a dry run plans nothing, and the audit
    of tables and a figure that read as BROKEN before passes (the session demo, not rebuilt;
    the whole audit takes a minute)."""
    env = exported(tmp_path / "exported")
    assert planned_jobs(demo, env=env) == {}
    # BROKEN before: the paths of MedCalc-Bench and of Open-i entered their identities (the
    # dry run covers every identity; the audit reads the records, CLUE's BERTScore is slow)
    shown = ["medcalc_table2", "medeval_table5", "medcalc_bars"]
    checked = subprocess.run(
        [sys.executable, "-m", "clineval.cli", "audit", *shown, "--conf", str(CONF)],
        capture_output=True, text=True, timeout=600, cwd=demo, env={**os.environ, **env})
    assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr[-3000:]
    assert "BROKEN" not in checked.stdout
