"""Which data may reach a model that sends prompts off the machine, decided per cell of the plan.

A cell sends its task's data to its model (the prompts), and its scoring sends the model's answers
on that data to the task's judges. The data's tiers are those of the files the task reads
(:meth:`~clineval.workflow.plan.layout.Plan.tiers`): the demo's are the project's synthetic files,
anyone's; official files have the least tier their benchmark declares for them (its
``source_tiers``: MIMIC's files are credentialed, MedDisK's knowledge base unreleased), and the
task's ``access`` (:data:`clineval.config.schema.tasks.ACCESS`) may add a tier, never remove
one: ``access: public`` on restricted files stops the plan (:func:`check_tiers`). A remote
model (a backend that declares ``remote``: openai, a vLLM server) receives the cells of a
credentialed task only with ``access.allow_credentialed_data: true``, and those of an unreleased
or private task only with ``access.allow_private_data: true``. Otherwise the plan stops before
any job, naming for each model the cells that would send such data, why they may not, and the
setting that allows it. Cells the plan does not build send nothing: those ``grid.select`` leaves
out (a table selection keeps only the cells its tables show), and those of a task skipped for
missing files. A cell that a model's setting lets through (a server the data's licence allows)
is named on stderr when the plan is made, and its generation and score records say so
(``data_access``: :func:`allowed`).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from clineval.config.schema.tasks import RESTRICTED
from clineval.errors import ConfigError
from clineval.inference.registry import backend_of
from clineval.io import Record
from clineval.workflow.plan.layout import Cell, Plan

#: Per tier that may not leave the machine: why, the model's ``access`` setting that lets it,
#: and for which server to set it.
TIERS: dict[str, tuple[str, str, str]] = {
    "credentialed": ("A data use agreement (PhysioNet's for MIMIC) forbids sharing it with third "
                     "parties", "allow_credentialed_data", "a server that agreement allows"),
    "unreleased": ("Its authors have not released it (MedDisK's knowledge base, MedEval's VA "
                   "data): whoever gave it to you decides where it may go, and a test set sent "
                   "to a server may end up in training data", "allow_private_data",
                   "a server its owner allows"),
    "private": ("It is your own unreleased data, and the server's operator would receive it",
                "allow_private_data", "a server you trust with it"),
}
#: Cells named per model and tier; the rest are counted.
SHOWN = 12


def refuses(model: Mapping[str, Any], tier: str) -> bool:
    """``model`` may not receive data of ``tier``: it is remote and its config does not allow
    that tier (a local model receives any)."""
    if tier not in TIERS or not backend_of(model).remote:
        return False
    return (model.get("access") or {}).get(TIERS[tier][1]) is not True


def _cells(paths: list[str]) -> str:
    more = len(paths) - SHOWN
    return (f"{len(paths)} cell{'s' if len(paths) > 1 else ''}: {', '.join(paths[:SHOWN])}"
            + (f" and {more} more" if more > 0 else ""))


def check_tiers(plan: Plan) -> None:
    """Stop (ConfigError, one line) when a task the plan builds declares ``access: public`` for
    official files whose benchmark declares them restricted: a setting cannot lower their tier."""
    for task in dict.fromkeys(c.task for c in plan.cells):
        declared = plan.cfg["tasks"][task].get("access")
        if declared is None or declared in RESTRICTED:
            continue
        by_tier: dict[str, list[str]] = {}
        for role, tier in sorted(plan.source_tiers(task).items()):
            if tier in RESTRICTED:
                by_tier.setdefault(tier, []).append(role)
        if by_tier:
            files = " and ".join(f"{', '.join(roles)} {'are' if len(roles) > 1 else 'is'} "
                                 f"{tier} ({TIERS[tier][0][0].lower()}{TIERS[tier][0][1:]})"
                                 for tier, roles in by_tier.items())
            raise ConfigError(
                f"tasks.{task}.access={declared}: the official files it reads are not {declared}"
                f": {files}; a task's access may add a tier to its files', never lower it, so "
                f"leave tasks.{task}.access unset or set it to {', '.join(RESTRICTED[:-1])} or "
                f"{RESTRICTED[-1]}")


def _receivers(plan: Plan, cell: Cell) -> list[tuple[tuple[str, str, str], Mapping[str, Any]]]:
    """Who receives the cell's data: its model, and its task's judges: (who, the text before
    and after its ``access`` setting's name), with its config."""
    model = plan.cfg["models"][cell.model]
    return [((f"models.{cell.model} ({model['backend']} backend)", f"models.{cell.model}.access.",
              ""), model),
            *(((f"the judge {name} of tasks.{cell.task}.scoring ({judge['backend']} backend)",
                "access.", f" in its config under tasks.{cell.task}.scoring"), judge)
              for name, judge in sorted(plan.judges(cell.task).items()))]


def allowed(plan: Plan, cell: Cell) -> Record | None:
    """The exception a cell's data is sent under, where a remote model or judge receives it
    because its config allows the data's tier: ``{"tier": the data's tier, "allowed_by": [the
    settings]}`` (its provenance records keep it); None for any other cell."""
    settings = [f"{before}{TIERS[tier][1]}{after}"
                for tier in plan.tiers(cell.task) if tier in TIERS
                for (_, before, after), spec in _receivers(plan, cell)
                if backend_of(spec).remote and not refuses(spec, tier)]
    if not settings:
        return None
    return {"tier": plan.tier(cell.task), "allowed_by": list(dict.fromkeys(settings))}


def check_access(plan: Plan) -> None:
    """Stop (ConfigError) when a cell of the plan would send credentialed, unreleased or private
    data to a remote model, or to a remote judge of its task's scoring, not allowed to receive
    it; name on stderr, per setting and tier, the cells that a setting lets through."""
    check_tiers(plan)
    #: (who, the text before and after its setting's name) -> tier -> the cells
    found: dict[tuple[str, str, str], dict[str, list[str]]] = {}
    let: dict[tuple[str, str, str], dict[str, list[str]]] = {}
    tasks: dict[str, set[str]] = {}  # tier -> its tasks
    for cell in plan.cells:
        for tier in plan.tiers(cell.task):
            for receiver, spec in _receivers(plan, cell):
                if tier not in TIERS or not backend_of(spec).remote:
                    continue
                if refuses(spec, tier):
                    found.setdefault(receiver, {}).setdefault(tier, []).append(cell.path)
                    tasks.setdefault(tier, set()).add(cell.task)
                else:
                    let.setdefault(receiver, {}).setdefault(tier, []).append(cell.path)
    if not found:
        for (who, before, after), tiers in let.items():
            for tier, paths in tiers.items():
                print(f"clineval: {who} receives {tier} data from {_cells(paths)}, as "
                      f"{before}{TIERS[tier][1]}=true{after} allows; their records say so",
                      file=sys.stderr)
        return
    lines = []
    for (who, before, after), tiers in found.items():
        for tier, paths in tiers.items():
            why, flag, server = TIERS[tier]
            lines.append(f"{who} would receive {tier} data from {_cells(paths)}. {why}. "
                         f"Set {before}{flag}=true{after} only for {server}.")
    read = "; ".join(f"{', '.join(sorted(names))}: access {tier}"
                     for tier, names in sorted(tasks.items()))
    lines.append(f"These cells read their tasks' official files ({read}); leave them out "
                 "(grid.select) or run the tasks on the demo's synthetic files "
                 "(tasks.<task>.data.source=demo).")
    raise ConfigError("\n".join(lines))
