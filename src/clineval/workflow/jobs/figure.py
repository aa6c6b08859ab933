"""``figure``: a figure spec over its tables' CSV and statistics -> PNG and SVG, one job per
figure (it reads no score file: a figure-only change draws that figure alone)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from clineval.workflow.jobs.job import Job, Rule, Step, files, job

if TYPE_CHECKING:
    from clineval.workflow.layout import Plan

#: A figure's files by format, in the order of :meth:`Plan.figure_outputs`.
FIGURE_FILES = ("png", "svg")
FIELDS = {"identity": "path", "tables": ["path"],
          "outputs": dict.fromkeys(FIGURE_FILES, "path"), "record": "path"}


def _outputs(plan: Plan, name: str) -> dict[str, Any]:
    return {**dict(zip(FIGURE_FILES, plan.figure_outputs(name), strict=True)),
            "record": plan.record_file("figure", name)}


def jobs(plan: Plan) -> Iterator[Job]:
    from clineval.report.page import section_title
    from clineval.report.text import rst_escape

    for name in plan.figures:
        identity, outputs = plan.identity_file("figures", name), _outputs(plan, name)
        tables = plan.figure_inputs(name)
        spec = plan.cfg["figures"][name]
        yield job("figure", (name,), plan.manifest_file("figure", name), {
            "figure": name, "identity": str(identity), "tables": [str(p) for p in tables],
            "outputs": {fmt: str(outputs[fmt]) for fmt in FIGURE_FILES},
            "record": str(outputs["record"])},
            {"identity": identity, "tables": tables}, outputs,
            [(outputs["record"], plan.identities[f"figures/{name}"]["sha"])],
            params={key: rst_escape(spec[key]) for key in ("title", "caption")},
            category=section_title(plan.figure_section(name)))


def rules(plan: Plan) -> Iterator[Rule]:
    yield Rule("figure", "figure", ("{figure}",), files(_outputs(plan, "{figure}")),
               {"log": str(plan.results / "logs" / "figures" / "{figure}.log")},
               update=FIGURE_FILES, report={"png": {"figure": "{figure}", "format": "PNG"}},
               params=("title", "caption"))


def run(job: dict[str, Any]) -> None:
    from clineval.workflow import steps

    steps.figure(job["identity"], job["tables"], job["outputs"], job["record"])


STEP = Step("figure", "draw a figure from its tables (PNG and SVG)", FIELDS, jobs, rules, run,
            order=80)
