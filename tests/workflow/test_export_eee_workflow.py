"""Results in the Every Eval Ever schema (docs/export.md): every file an export writes is valid
against the published schemas, its numbers are its tables', credentialed cells keep no text, and
an export follows only its own cells. The schemas are not in the repository: the checks read the
copy in ``$CLINEVAL_DATA_DIR/every-eval-ever/`` and skip without it.

The module's grid is MedCalc-Bench's Table 2 with the two baselines, the constant one answering
2 to every integer question (right on 3 of the demo's 55), so that intervals are not empty; its
steps run in this process from their manifests (seconds). The Snakemake target's rebuilds are
the one slow test.
"""

from __future__ import annotations

import re

import pytest
from workflow_run import planned_jobs, snakemake

OVERRIDES = ["grid.select.models=[oracle,constant]", "grid.select.tables=[medcalc_table2]",
             "tasks.medcalc.scoring.baselines.constant.integer=2"]


@pytest.mark.slow
def test_the_export_target_rebuilds_only_when_its_cells_change(tmp_path):
    overrides = " ".join(OVERRIDES)
    for target in ("all_tables", "all_exports"):
        done = snakemake(tmp_path, target, overrides=overrides)
        assert done.returncode == 0, done.stderr[-3000:]
    assert planned_jobs(tmp_path, overrides) == {}
    assert planned_jobs(tmp_path, overrides, target="all_exports") == {}
    changed = overrides + " models.constant.revision=2"
    jobs = planned_jobs(tmp_path, changed, target="all_exports")
    assert jobs["export_eee"] == 1 and "all_exports" in jobs
    dry = snakemake(tmp_path, "all_exports", "-n", overrides=changed).stdout
    assert re.findall(r"output: results/export/eee/(\w+)/medcalc\.json", dry) == ["constant"]
