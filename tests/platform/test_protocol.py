"""The benchmark protocol is honest: it declares every member the platform uses, each with its
default in the base class, and the platform never probes a benchmark for a member."""

from __future__ import annotations

import re
from pathlib import Path

from clineval.benchmarks.base import Benchmark
from clineval.benchmarks.base.standard import StandardBenchmark

SRC = Path(__file__).resolve().parents[2] / "src" / "clineval"


def _members() -> set[str]:
    """What the protocol declares, in its own body and in the parts it extends (Prompting)."""
    parts = [c for c in Benchmark.__mro__ if c.__module__ == Benchmark.__module__]
    return {name for part in parts for name in part.__annotations__} | {
        name for part in parts for name, value in vars(part).items()
        if callable(value) and not name.startswith("_")}


def test_each_member_of_the_protocol_has_its_default_in_the_base_class() -> None:
    members = _members()
    assert {"style", "literal_reading", "scoring_reads_mode", "code_modules", "leaderboard",
            "table_warnings", "derived_scoring_inputs", "source_tiers"} <= members
    # ``name`` is the one member every benchmark gives itself
    assert sorted(m for m in members - {"name"} if not hasattr(StandardBenchmark, m)) == []


def test_no_module_probes_a_benchmark_for_a_member() -> None:
    probe = re.compile(r"\b(?:getattr|hasattr)\((?:bench\b|benchmark\b|get_benchmark\()")
    found = [f"{path.relative_to(SRC)}:{n}" for path in sorted(SRC.rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if probe.search(line)]
    assert found == []
