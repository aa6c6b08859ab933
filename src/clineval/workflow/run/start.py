"""What a Snakemake start does before its rules are read: the one call of ``rules/common.smk``.

In order: outside benchmark packages are added, the plan is loaded (from its cache when
current) and checked, results whose code changed are named, the sources of tasks whose derived
data is not current are checked, identity files and job manifests are written, the jobs'
environment is pinned to this checkout, pulled artifacts are settled, unfinished jobs are
forgotten, missing files are found, a dead run's lock is released, and each model's and
benchmark's resources are read. The steps that speak to the console or touch Snakemake's state
run in the main process only (``workflow.is_main_process``).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clineval.benchmarks import add_include
from clineval.workflow.plan.check_data import check_data
from clineval.workflow.plan.checks import check_plan
from clineval.workflow.plan.code_changes import warn as warn_code_changes
from clineval.workflow.plan.layout import Plan
from clineval.workflow.plan.manifests import write_manifests
from clineval.workflow.plan.resources import conda_env, model_resources, scoring_resources
from clineval.workflow.run import checkout
from clineval.workflow.run.locks import at_start as release_stale_lock
from clineval.workflow.run.missing import forget_unfinished
from clineval.workflow.run.missing import targets as missing_files
from clineval.workflow.run.plan_cache import load_plan
from clineval.workflow.run.settle import settle


class SourcesRefused(Exception):
    """A task's source files failed their check: the message lists each problem, one a line."""


@dataclass(frozen=True)
class Start:
    """What the rules read: the plan, the files to rebuild, the resources of each model's and
    benchmark's jobs, and the folders."""

    plan: Plan
    missing: list[str]
    model_resources: dict[str, dict[str, Any]]
    model_threads: dict[str, int]
    scoring_resources: dict[str, dict[str, Any]]
    conda_envs: dict[str, str]
    demo_tasks: list[str]
    official_tasks: str  # a regex alternative of the tasks with official sources
    results: str
    data: str


def start(workflow: Any, config: dict[str, Any]) -> Start:
    """Load, check and write out the plan for Snakemake's parse (raises ``ConfigError`` for a
    bad config, :class:`SourcesRefused` for bad source files)."""
    main = workflow.is_main_process
    # benchmark packages from outside the project (--config include=DIR, os.pathsep-separated,
    # or $CLINEVAL_INCLUDE): the plan and every job process (which inherit the variable) find
    # them
    add_include(config.get("include"))
    plan, settle_jobs, _ = load_plan(
        Path(workflow.basedir) / "conf", config.get("overrides"),
        results=Path(config.get("results", "results")), data_root=Path(config.get("data", "data")))
    check_plan(plan)  # nothing to build stops here; tables their data cannot fill warn
    if main:
        warn_code_changes(plan)
    # --config check_data=false leaves the source check to the data jobs (MIMIC-scale sources
    # read twice otherwise)
    if main and str(config.get("check_data", True)).lower() not in ("false", "0", "no"):
        found = check_data(plan, workflow=True)
        if not found.ok:
            raise SourcesRefused(found.message())
    plan.write_identities()
    if main:
        checkout.export()  # jobs refuse an environment that imports another checkout's clineval
    # the generation cache, keyed by full generation identity, serves every grid: a grid whose
    # official files changed (a new folder) takes its unchanged cells' answers from it; a
    # manifest is rewritten only where it changes
    write_manifests(plan, Path(config.get("results", "results")) / "cache")
    settle(plan, settle_jobs)  # pulled artifacts that verify by hash get build-order times
    if main:
        forget_unfinished(settle_jobs)  # failed before its step ran: counted done by Snakemake
    missing = missing_files(workflow, settle_jobs)
    release_stale_lock(workflow)
    begun = _resources(plan, missing)
    if plan.results != Path(config.get("results", "results")):  # a grid's own folders
        print(f"clineval: grid {plan.cfg['grid']['name']}: results in {begun.results}/, data in "
              f"{begun.data}/", file=sys.stderr)
    return begun


def _resources(plan: Plan, missing: list[str]) -> Start:
    """The plan's resources, environments and task groups, as the rules read them."""
    models = model_resources(plan.cfg["models"])
    tasks = sorted({c.task for c in plan.cells})
    demo = [t for t in tasks if plan.cfg["tasks"][t]["data"]["source"] == "demo"]
    results, data = str(plan.results), str(plan.data_root)
    return Start(
        plan=plan, missing=missing,
        model_resources={name: {k: v for k, v in res.snakemake().items() if v is not None}
                         for name, res in models.items()},
        model_threads={name: res.threads() for name, res in models.items()},
        scoring_resources={
            bench: scoring_resources({t: plan.cfg["tasks"][t] for t in plan.benchmark_tasks(bench)})
            .snakemake() for bench in plan.benchmarks},
        conda_envs={name: f"../envs/{conda_env(spec)}"
                    for name, spec in plan.cfg["models"].items()},
        demo_tasks=demo,
        # derive_data serves the tasks with official sources only (a demo task has its own rule)
        official_tasks="|".join(re.escape(t) for t in tasks if t not in demo) or "(?!)",
        results=results, data=data)
