"""Which data may reach a model that sends prompts off the machine, decided per cell of the plan.

A cell sends its task's data to its model (the prompts), and its scoring sends the model's answers
on that data to the task's judges. The data's tier is that of the files the task reads
(:meth:`~clineval.workflow.layout.Plan.tier`): the demo's are the project's synthetic files,
anyone's; official files have the tier the task declares (``access``: public, credentialed,
unreleased or private; :data:`clineval.config.schema.tasks.ACCESS`). A remote model (a backend
that declares ``remote``: openai, a vLLM server) receives the cells of a credentialed task only
with ``access.allow_credentialed_data: true``, and those of an unreleased or private task only
with ``access.allow_private_data: true``. Otherwise the plan stops before any job, naming for
each model the cells that would send such data, why they may not, and the setting that allows
it. Cells the plan does not build send nothing: those ``grid.select`` leaves out (a table
selection keeps only the cells its tables show), and those of a task skipped for missing files.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from clineval.errors import ConfigError
from clineval.inference.registry import backend_of
from clineval.workflow.layout import Plan

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


def check_access(plan: Plan) -> None:
    """Stop (ConfigError) when a cell of the plan would send credentialed, unreleased or private
    data to a remote model, or to a remote judge of its task's scoring, not allowed to receive
    it."""
    #: (who, the text before and after its setting's name) -> tier -> the cells
    found: dict[tuple[str, str, str], dict[str, list[str]]] = {}
    tasks: dict[str, set[str]] = {}  # tier -> its tasks
    for cell in plan.cells:
        tier = plan.tier(cell.task)
        model = plan.cfg["models"][cell.model]
        receivers = [(f"models.{cell.model} ({model['backend']} backend)",
                      f"models.{cell.model}.access.", "")] if refuses(model, tier) else []
        receivers += [(f"the judge {name} of tasks.{cell.task}.scoring ({judge['backend']} "
                       "backend)", "access.", f" in its config under tasks.{cell.task}.scoring")
                      for name, judge in sorted(plan.judges(cell.task).items())
                      if refuses(judge, tier)]
        for receiver in receivers:
            found.setdefault(receiver, {}).setdefault(tier, []).append(cell.path)
            tasks.setdefault(tier, set()).add(cell.task)
    if not found:
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
