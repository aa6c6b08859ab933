"""Problems found before any job runs: a grid with nothing to do stops with the setting to
fix; a table column that its data cannot fill is a warning (``clineval plan`` and the
workflow's start both run :func:`check_plan`)."""

from __future__ import annotations

import logging

from clineval.benchmarks import get_benchmark
from clineval.config.validate import table_tasks
from clineval.errors import ConfigError
from clineval.workflow.plan.layout import Plan

log = logging.getLogger("clineval")


def _selection(plan: Plan) -> str:
    select = plan.cfg["grid"].get("select") or {}
    chosen = {g: select.get(g) for g in ("models", "tasks", "modes", "tables")}
    return ", ".join(f"grid.select.{g}={v}" for g, v in chosen.items() if v is not None)


def no_work(plan: Plan) -> str | None:
    """Why the plan has nothing to build (no cells, or tables that show none), else None."""
    grid = plan.cfg["grid"].get("name", "?")
    if not plan.cells:
        lines = [f"grid {grid!r} plans no cells, so nothing would run."]
        if plan.skipped:
            lines.append("Its tasks have no data; point each at its files:")
            lines += [f"  - {message}" for message in plan.skipped.values()]
        else:
            selected = _selection(plan)
            lines.append(
                "No model, task and mode of the grid combine into a cell"
                + (f" under {selected}" if selected else "")
                + ": check grid.select, each task's modes (tasks.<task>.modes) and "
                  "the models' baselines."
            )
        return "\n".join(lines)
    keep = (plan.cfg["grid"].get("select") or {}).get("tables")
    configured = [n for n in plan.cfg.get("tables") or {} if keep is None or n in keep]
    unbuilt = [n for n in configured if n not in plan.tables]
    if configured and (not plan.tables or (keep is not None and unbuilt)):
        lines = [f"grid {grid!r}: table(s) {', '.join(unbuilt)} show none of the grid's "
                 f"{len(plan.cells)} cells; fix the table's settings or the grid's:"]
        for name in unbuilt:
            spec = plan.cfg["tables"][name]
            shown = [t for t in table_tasks(spec) if t in plan.skipped]
            why = (f"its task(s) {', '.join(shown)} have no data ({plan.skipped[shown[0]]})"
                   if shown else
                   f"tables.{name}.tasks={table_tasks(spec)}, tables.{name}.modes="
                   f"{list(spec.get('modes') or [])}, tables.{name}.models={spec.get('models')}"
                   " match no cell")
            lines.append(f"  - {name}: {why}")
        return "\n".join(lines)
    return None


def table_warnings(plan: Plan) -> list[str]:
    """Warnings of the benchmarks about tables whose columns their data cannot fill (e.g.
    MedEval's Misc. group on an all-chest source): each benchmark's ``table_warnings(name,
    spec, tasks)``."""
    found = []
    for name in plan.tables:
        spec = plan.cfg["tables"][name]
        tasks = {t: plan.cfg["tasks"][t] for t in table_tasks(spec) if t in plan.cfg["tasks"]}
        for bench in sorted({task["benchmark"] for task in tasks.values()}):
            found += get_benchmark(bench).table_warnings(
                name, spec, {t: s for t, s in tasks.items() if s["benchmark"] == bench})
    return found


def check_plan(plan: Plan) -> None:
    """Stop (ConfigError) when the plan has nothing to build; log each table warning."""
    problem = no_work(plan)
    if problem:
        raise ConfigError(problem)
    for warning in table_warnings(plan):
        log.warning("%s", warning)
