"""What every CLUE loader shares: the settings that name files (rows are ``clineval.io.Record``).

Each dataset has its own module (``loaders_mednli``, ``loaders_meqsum``,
``loaders_problem_summary``, ``loaders_medisum``, ``longhealth``) with one ``load_*`` function:
files in, ``(examples, exemplars)`` out, in the shape of the CLUE contract. A dataset without a
train split takes its exemplars out of the evaluated file
(:func:`clineval.benchmarks.base.exemplars.hold_out`), so an exemplar is never evaluated.
"""

from __future__ import annotations


def setting(task: str, key: str) -> str:
    """The config key that points a task at one of its files, e.g. ``tasks.mednli.data.test``."""
    return f"tasks.{task}.data.{key}"
