"""Validate the source files of a grid's tasks before any job runs (``clineval check-data``,
and the Snakefile at start).

An official task's files are read by the benchmark's own loader (``derive``), so the check is
the one the data job makes: columns, types, ranges, required fields, truncated rows and
duplicate ids, each error naming the file, row, field and what was expected. A task whose
official file is missing is a problem too. A demo task's synthetic sources are written by its
own job, which reads them with the same loader; they are not checked here.
"""

from __future__ import annotations

import logging
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from clineval.benchmarks import get_benchmark
from clineval.errors import DataError
from clineval.provenance.record import read_record
from clineval.workflow.plan.build import build_plan
from clineval.workflow.plan.layout import Plan

log = logging.getLogger("clineval")


@dataclass
class DataCheck:
    """What a check found: one line per problem; the tasks checked, passed over and why."""

    problems: list[str] = field(default_factory=list)
    checked: dict[str, float] = field(default_factory=dict)  # task -> seconds
    demo: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def message(self) -> str:
        """One line per problem, each starting ``clineval: data error:``."""
        return "\n".join(f"clineval: data error: {line}" for line in self.problems)

    def summary(self) -> str:
        parts = [f"{len(self.checked)} task(s) with official sources checked"]
        if self.unchanged:
            parts.append(f"{len(self.unchanged)} unchanged since derived")
        if self.demo:
            parts.append(f"{len(self.demo)} demo task(s) not checked (their job writes and "
                         "checks their synthetic sources)")
        return ", ".join(parts) + f": {len(self.problems) or 'no'} problem(s)"


def derived_from_same_sources(plan: Plan, task: str) -> bool:
    """The task's derived data was made from the identity the plan has now (same source file
    hashes, settings and loader version): its sources passed the same check then."""
    record = plan.record_file("data", task)
    examples = plan.derived(task)["examples"]
    if not (record.is_file() and examples.is_file()):
        return False
    try:
        return read_record(record).get("identity") == plan.identities[f"data/{task}"]["sha"]
    except (OSError, ValueError, KeyError):
        return False


def check_data(plan: Plan, workflow: bool = False) -> DataCheck:
    """Check every source of the plan's tasks; a task whose official file is missing is a
    problem too. ``workflow`` (the Snakefile's check at start): pass over tasks whose derived
    data is current, and leave missing files to the plan's warning (it runs the rest)."""
    result = DataCheck()
    if not workflow:
        result.problems += [f"{task}: {msg}" for task, msg in sorted(plan.skipped.items())]
    for task in sorted({c.task for c in plan.cells}):
        spec = plan.cfg["tasks"][task]
        if spec["data"].get("source") == "demo":
            result.demo.append(task)
            continue
        if workflow and derived_from_same_sources(plan, task):
            result.unchanged.append(task)
            continue
        start = time.perf_counter()
        try:
            get_benchmark(spec["benchmark"]).derive(spec, plan.sources(task))
        except DataError as err:
            result.problems.append(f"{task}: {err}")
        except FileNotFoundError as err:
            result.problems.append(f"{task}: {err}")
        result.checked[task] = time.perf_counter() - start
        log.debug("checked %s in %.2f s", task, result.checked[task])
    return result


def run(conf: Path, overrides: list[str]) -> int:
    """``clineval check-data``: one line per problem and a summary on stderr; 1 on problems."""
    result = check_data(build_plan(conf, overrides))
    print(result.summary(), file=sys.stderr)
    if result.problems:
        print(result.message(), file=sys.stderr)
    return 0 if result.ok else 1
