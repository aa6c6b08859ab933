"""MedDisK's tools: ``clineval meddisk calibrate``."""

from __future__ import annotations

from clineval.benchmarks.base.commands import Command
from clineval.benchmarks.meddisk.calibrate import add_calibrate_arguments, calibrate

COMMANDS = {
    "calibrate": Command("fit tier thresholds to expert tier labels (Spearman rho)",
                         add_calibrate_arguments, calibrate),
}
