"""``figure``: a figure spec over its tables' CSV and statistics -> PNG and SVG, one job per
figure (it reads no score file: a figure-only change draws that figure alone)."""

from __future__ import annotations

from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clineval.workflow.plan.jobs import table
from clineval.workflow.plan.jobs.job import Job, Rule, Step, files, job

if TYPE_CHECKING:
    from clineval.workflow.plan.identities import Facts
    from clineval.workflow.plan.layout import Plan

#: A figure's files by format, in the order of :meth:`Plan.figure_outputs`.
FIGURE_FILES = ("png", "svg")
#: Version of the figure drawing code (clineval.figures): bump when it draws differently.
FIGURES_VERSION = "1"
FIELDS = {"identity": "path", "tables": ["path"],
          "outputs": dict.fromkeys(FIGURE_FILES, "path"), "record": "path"}


def figure_files(plan: Plan, name: str) -> list[Path]:
    """The figure's PNG and SVG (:data:`FIGURE_FILES`)."""
    return [plan.results / "figures" / f"{name}.{ext}" for ext in FIGURE_FILES]


def inputs(plan: Plan, name: str) -> list[Path]:
    """The table files a figure reads: each table's CSV and statistics."""
    return [plan.results / "tables" / f"{table}.{ext}"
            for table in plan.figures[name] for ext in ("csv", "stats.json")]


def section(plan: Plan, name: str) -> str:
    """The report section of a figure: that of the first table it draws from."""
    return table.section(plan, plan.figures[name][0])


def identities(plan: Plan, facts: Facts) -> None:
    """A figure depends on its spec, its tables' identities, the display fields of their
    models, tasks and modes, and the drawing code."""
    cfg = plan.cfg
    for name, shown in plan.figures.items():
        cells = [c for t in shown for c in plan.tables[t]]
        tasks = sorted({c.task for c in cells})
        facts.add(f"figures/{name}", {
            "kind": "figure",
            "figure": name,
            "credentialed": any(plan.identities[f"tables/{t}"]["identity"]["credentialed"]
                                for t in shown),
            "spec": cfg["figures"][name],
            "tables": {t: facts.sha(f"tables/{t}") for t in shown},
            "models": {m: {k: cfg["models"][m].get(k) for k in ("display_name", "smoke")}
                       | facts.sliced(m, tasks)
                       | facts.shown_recorded(m, [c.task for c in cells if c.model == m])
                       for m in sorted({c.model for c in cells})},
            "tasks": {t: cfg["tasks"][t].get("display_name") for t in tasks},
            "modes": {m: cfg["modes"][m]["description"] for m in sorted({c.mode for c in cells})},
            "drawing": {"version": FIGURES_VERSION, "matplotlib": version("matplotlib")},
        }, code=True)


def _outputs(plan: Plan, name: str) -> dict[str, Any]:
    return {**dict(zip(FIGURE_FILES, figure_files(plan, name), strict=True)),
            "record": plan.record_file("figure", name)}


def jobs(plan: Plan) -> Iterator[Job]:
    from clineval.report.page import section_title
    from clineval.report.text import rst_escape

    for name in plan.figures:
        identity, outputs = plan.identity_file("figures", name), _outputs(plan, name)
        tables = inputs(plan, name)
        spec = plan.cfg["figures"][name]
        yield job("figure", (name,), plan.manifest_file("figure", name), {
            "figure": name, "identity": str(identity), "tables": [str(p) for p in tables],
            "outputs": {fmt: str(outputs[fmt]) for fmt in FIGURE_FILES},
            "record": str(outputs["record"])},
            {"identity": identity, "tables": tables}, outputs,
            [(outputs["record"], plan.identities[f"figures/{name}"]["sha"])],
            params={key: rst_escape(spec[key]) for key in ("title", "caption")},
            category=section_title(section(plan, name)))


def rules(plan: Plan) -> Iterator[Rule]:
    yield Rule("figure", "figure", ("{figure}",), files(_outputs(plan, "{figure}")),
               {"log": str(plan.results / "logs" / "figures" / "{figure}.log")},
               update=FIGURE_FILES, report={"png": {"figure": "{figure}", "format": "PNG"}},
               params=("title", "caption"))


STEP = Step("figure", "draw a figure from its tables (PNG and SVG)",
            FIELDS, jobs, rules, run="clineval.workflow.steps.entry:figure_job", order=80,
            identities=identities)
