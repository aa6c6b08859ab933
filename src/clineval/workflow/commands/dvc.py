"""DVC's view of the workflow: ``dvc.yaml`` stages per phase and ``params.yaml`` from the plan.

Each stage runs a Snakemake target, so Snakemake alone decides which jobs run; DVC versions
what they produce. ``params.yaml`` holds the composed config and, per phase, the identity hash
of every artifact: a stage's parameters are exactly the identities its Snakemake target
depends on, so ``dvc status`` and ``snakemake -n`` see the same changes. The ``plan`` stage
rewrites ``params.yaml`` when ``conf/`` or the code changes; stages whose identities did not
change are skipped. The ``tables`` stage runs ``all_tables``, which also draws the figures of
the tables: its outputs and parameters include the figures'.

Outputs are one directory per task (data: the examples, and files derived for scoring such as
CliBench's title embeddings) or per model and task (requests, generations, scores), so that
artifacts derived from credentialed data can be kept off remotes: their outputs get
``push: false`` unless the config says ``dvc.push_credentialed: true``.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from clineval.errors import ConfigError
from clineval.workflow.plan.layout import Plan

HEADER = (
    "# Written by `clineval dvc write{args}` from the plan of the grid; do not edit by hand.\n"
    "# Re-run that command after adding or removing models, tasks, modes or tables (a test\n"
    "# checks that this file is current). See docs/reproducibility.md.\n"
)
PHASE_IDENTITIES = {
    "data": ["data", "inputs"],
    "generations": ["models", "requests", "generation"],
    "scores": ["scoring"],
    "tables": ["tables", "figures", "report"],
}
PARAMS_FILE = "params.yaml"


def params(plan: Plan, overrides: Sequence[str]) -> dict[str, Any]:
    """The composed config and every artifact's identity hash, grouped by phase."""
    ids: dict[str, dict[str, str]] = {
        group: {} for groups in PHASE_IDENTITIES.values() for group in groups
    }
    for key, ident in sorted(plan.identities.items()):
        if ident["identity"]["kind"] == "export":  # `all_exports` is no stage of dvc.yaml
            continue
        head, _, rest = key.partition("/")
        if head in ("data", "inputs", "models", "tables", "figures", "report"):
            ids[head][rest] = ident["sha"]
        else:
            cell, _, kind = key.rpartition("/")
            ids[kind][cell] = ident["sha"]
    return {"overrides": list(overrides), "identities": ids, "config": plan.cfg}


def _push(plan: Plan, tasks: set[str]) -> bool:
    setting = (plan.cfg.get("dvc") or {}).get("push_credentialed", False)
    if not isinstance(setting, bool):
        raise ConfigError(f"dvc.push_credentialed must be true or false, got {setting!r}")
    return setting or not any(plan.credentialed(t) for t in tasks)


def _out(path: Path, push: bool) -> dict[str, Any]:
    options: dict[str, Any] = {"persist": True}  # Snakemake, not DVC, decides what to rebuild
    if not push:
        options["push"] = False
    return {str(path): options}


def _snakemake(target: str, overrides: Sequence[str]) -> str:
    cmd = f"snakemake {target} --cores all"
    if overrides:
        cmd += " --config " + shlex.quote("overrides=" + shlex.join(overrides))
    return cmd


def stages(plan: Plan, overrides: Sequence[str]) -> dict[str, Any]:
    """The ``stages`` of dvc.yaml for the plan's grid."""
    tasks = sorted({c.task for c in plan.cells})
    pairs = sorted({(c.model, c.task) for c in plan.cells})
    models = sorted({c.model for c in plan.cells})
    data_outs = []
    for task in tasks:
        push = _push(plan, {task})
        if plan.cfg["tasks"][task]["data"].get("source") == "demo":
            data_outs.append(_out(plan.data_root / "demo" / task, push))
        data_outs.append(_out(plan.data_root / "derived" / task, push))
    gen_outs = [
        _out(plan.results / "models" / m, True) for m in models if f"models/{m}" in plan.identities
    ]
    for model in models:
        if plan.shards(model) > 1:  # each shard job writes its run summary under _shards/
            shard_tasks = {c.task for c in plan.cells_of(model)}
            gen_outs.append(_out(plan.results / "generations" / model / "_shards",
                                 _push(plan, shard_tasks)))
        else:
            gen_outs.append(_out(plan.results / "generations" / model / "run-summary.json", True))
    for kind in ("requests", "generations"):
        gen_outs += [_out(plan.results / kind / m / t, _push(plan, {t})) for m, t in pairs]
    table_outs, metrics = [], []
    for name, cells in plan.tables.items():
        push = _push(plan, {c.task for c in cells})
        table_outs += [_out(p, push) for p in plan.table_outputs(name)]
        table_outs.append(_out(plan.record_file("table", name), push))
        metrics.append(_out(plan.metrics_file(name), push))
    for name, shown in plan.figures.items():  # all_tables draws the figures of its tables
        push = _push(plan, {c.task for t in shown for c in plan.tables[t]})
        table_outs += [_out(p, push) for p in
                       (*plan.figure_outputs(name), plan.record_file("figure", name))]
    if "report/index" in plan.identities:  # all_tables also writes the report of them all
        shown = {c.task for cells in plan.tables.values() for c in cells}
        table_outs.append(_out(plan.report_file().parent, _push(plan, shown)))
    params_ref = [{PARAMS_FILE: [f"identities.{g}" for g in groups]}
                  for groups in PHASE_IDENTITIES.values()]
    plan_cmd = "clineval dvc params --out " + PARAMS_FILE
    if overrides:
        plan_cmd += " " + shlex.join(overrides)
    return {
        "plan": {
            "cmd": plan_cmd,
            "deps": ["conf", "src/clineval"],
            "outs": [{PARAMS_FILE: {"cache": False}}],
        },
        "data": {
            "cmd": _snakemake("all_data", overrides),
            "params": [params_ref[0]],
            "outs": data_outs,
        },
        "generations": {
            "cmd": _snakemake("all_generations", overrides),
            "deps": [str(plan.data_root / "derived" / t) for t in tasks],
            "params": [params_ref[1]],
            "outs": gen_outs,
        },
        "scores": {
            "cmd": _snakemake("all_scores", overrides),
            # the generations, and the files derived for scoring (CliBench's title embeddings)
            "deps": [str(plan.results / "generations" / m / t) for m, t in pairs]
            + [str(plan.data_root / "derived" / t) for t in tasks if plan.derived_inputs(t)],
            "params": [params_ref[2]],
            "outs": [_out(plan.results / "scores" / m / t, _push(plan, {t})) for m, t in pairs],
        },
        "tables": {
            "cmd": _snakemake("all_tables", overrides),
            "deps": [str(plan.results / "scores" / m / t) for m, t in pairs],
            "params": [params_ref[3]],
            "outs": table_outs,
            "metrics": metrics,
        },
    }


def dvc_yaml_text(plan: Plan, overrides: Sequence[str]) -> str:
    args = "".join(" " + shlex.quote(o) for o in overrides)
    body = yaml.safe_dump({"stages": stages(plan, overrides)}, sort_keys=False, width=100)
    return HEADER.format(args=args) + body


def params_text(plan: Plan, overrides: Sequence[str]) -> str:
    return yaml.safe_dump(params(plan, overrides), sort_keys=True, width=100)
