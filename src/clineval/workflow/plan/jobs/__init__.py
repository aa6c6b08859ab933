"""Every workflow step declared once (docs/architecture.md, Adding a step).

Each module of this package declares one step as its ``STEP`` (:class:`~.job.Step`): what its
manifest holds, the identities it adds to the plan, the jobs it yields (key, manifest, inputs,
outputs, records) and the Snakemake rules that run them. The manifests
(:mod:`clineval.workflow.plan.manifests`), the rules (``rules/steps.smk``), settling and the
missing-file check all read the jobs of :func:`plan_jobs`; ``clineval step NAME`` runs the
step's code on its job's manifest (:mod:`clineval.cli`).
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import TYPE_CHECKING

from clineval.workflow.plan.jobs.job import Job, Rule, Step

if TYPE_CHECKING:
    from clineval.workflow.plan.layout import Plan


def step(name: str) -> Step:
    """The declaration of the step ``name`` (``score``, ``export-eee``, ...)."""
    module = importlib.import_module(f"{__name__}.{name.replace('-', '_')}")
    found: Step = module.STEP
    return found


@cache
def steps() -> tuple[Step, ...]:
    """Every declared step, in build order."""
    names = [m.name for m in pkgutil.iter_modules(__path__) if m.name != "job"]
    return tuple(sorted((step(n) for n in names), key=lambda s: s.order))


def plan_jobs(plan: Plan) -> list[Job]:
    """Every job of the plan, in build order (a job after the jobs whose outputs it reads)."""
    return [job for declared in steps() for job in declared.jobs(plan)]


def plan_rules(plan: Plan) -> list[Rule]:
    """Every rule of the plan's steps."""
    return [rule for declared in steps() for rule in declared.rules(plan)]
