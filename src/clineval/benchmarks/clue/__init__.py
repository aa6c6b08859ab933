"""CLUE (Dada et al., 2024): six clinical tasks in two levels.

Level 1: MedNLI, MeQSum, Problem Summary. Level 2: LongHealth (tasks 1-3), MeDiSumQA,
MeDiSumCode. Loaders read the official files (``loaders_*``, ``longhealth``), ``synthetic``
writes demo files in the same formats, ``clineval.benchmarks.base.sources.MissingSource`` names a
credentialed file that is not there.
"""

TITLE = "CLUE"
