# The plan, loaded, checked and written out by one call at parse time; the rules' input functions.
import sys
from pathlib import Path

from clineval.errors import ConfigError
from clineval.report.page import section_title
from clineval.report.text import rst_escape
from clineval.workflow.plan.grades import report_grades
from clineval.workflow.plan.layout import Cell
from clineval.workflow.plan.manifests import EXPORT_FILES, FIGURE_FILES, TABLE_FILES
from clineval.workflow.run import progress as console_progress
from clineval.workflow.run.job_errors import short_messages
from clineval.workflow.run.slurm import check as slurm_preflight
from clineval.workflow.run.start import SourcesRefused, start


try:
    # the plan (reused while conf/, the overrides and its files are unchanged), its checks, its
    # identity files and manifests, settled and missing files (clineval.workflow.run.start)
    START = start(workflow, config)
except ConfigError as err:
    sys.exit(f"clineval: configuration error: {err}")
except SourcesRefused as err:  # one line per problem (clineval check-data prints the same)
    sys.exit(str(err))
PLAN = START.plan
MISSING = START.missing
PLAN_RESOURCES = START.model_resources
PLAN_THREADS = START.model_threads
SCORING_RESOURCES = START.scoring_resources
PLAN_CONDA_ENVS = START.conda_envs
DEMO_TASKS = START.demo_tasks
OFFICIAL_TASKS_PATTERN = START.official_tasks
RESULTS = START.results
DATA = START.data
LOGS = f"{RESULTS}/logs"


onsuccess:
    console_progress.stop()  # the jobs' last progress lines, then Snakemake's summary


onerror:
    console_progress.stop()
    # the console ends with each failed step's one-line message (file, row, field, expected)
    for _line in short_messages(log):
        print(_line, file=sys.stderr)


wildcard_constraints:
    model="[^/]+",
    task="[^/]+",
    mode="[^/]+",
    table="[^/.]+",
    figure="[^/.]+",


def identity(kind):
    """Input function: the content-addressed identity file of a cell's artifact."""

    def find(wildcards):
        if kind == "data":
            return str(PLAN.identity_file("data", wildcards.task))
        if kind == "model":
            return str(PLAN.identity_file("models", wildcards.model))
        if kind == "table":
            return str(PLAN.identity_file("tables", wildcards.table))
        if kind == "figure":
            return str(PLAN.identity_file("figures", wildcards.figure))
        return str(PLAN.identity_file(wildcards.model, wildcards.task, wildcards.mode, kind))

    return find


def manifest(step, wildcard):
    """Input function: the manifest of the ``step`` job named by the rule's ``wildcard``."""

    def find(wildcards):
        return str(PLAN.manifest_file(step, getattr(wildcards, wildcard)))

    return find


def all_table_outputs():
    return [str(p) for name in PLAN.tables for p in PLAN.table_outputs(name)]


def report_outputs():
    """The HTML report, when the grid builds any table."""
    return [str(PLAN.report_file())] if "report/index" in PLAN.identities else []


def report_inputs(wildcards):
    tables, figures = PLAN.report_sources()
    return {"identity": str(PLAN.identity_file("report", "index")),
            "manifest": str(PLAN.manifest_file("report", "index"))} | {
        f"table_{name}": str(path) for name, path in tables.items()
    } | {f"figure_{name}": str(path) for name, path in figures.items()} | {
        f"cells_{name}": str(path) for name, path in PLAN.report_links().items()
    } | report_grade_inputs()


def report_grade_inputs():
    """With report.grades: the graders' files and each of the report's cells' files."""
    grades, graded = report_grades(PLAN)
    inputs = {f"grades_{i}": str(p) for i, p in enumerate(grades)}
    for i, c in enumerate(graded):
        inputs |= {f"graded_scoring_{i}": str(c.identity), f"graded_examples_{i}": str(c.examples),
                   f"graded_generations_{i}": str(c.generations), f"graded_rows_{i}": str(c.rows)}
    return inputs


def example_outputs():
    """The explorer's pages, when the grid builds any table."""
    return [str(p) for p in PLAN.example_outputs()] if "report/examples" in PLAN.identities else []


def example_inputs(wildcards):
    """The explorer's identity and manifest, and each of its cells' scoring identity,
    examples, requests, generations and score rows."""
    inputs = {"identity": str(PLAN.identity_file("report", "examples")),
              "manifest": str(PLAN.manifest_file("examples", "index"))}
    for i, c in enumerate(PLAN.example_cells()):
        inputs |= {f"scoring_{i}": str(PLAN.identity_file(c.model, c.task, c.mode, "scoring")),
                   f"requests_{i}": str(PLAN.artifact("requests", c)),
                   f"generations_{i}": str(PLAN.artifact("generations", c)),
                   f"rows_{i}": str(PLAN.artifact("scores", c))}
    for task in sorted({c.task for c in PLAN.example_cells()}):
        inputs[f"{task}_examples"] = derived(task)["examples"]
    return inputs


def report_category(wildcards):
    """Snakemake report category of a table or figure: its benchmark (the leaderboard's own)."""
    if "figure" in wildcards.keys():
        return section_title(PLAN.figure_section(wildcards.figure))
    return section_title(PLAN.table_section(wildcards.table))


def caption_field(group, key):
    """Input function: a table's or figure's (``group``: tables, figures) title or caption,
    escaped for the RST caption."""
    wildcard = group.removesuffix("s")
    return lambda wildcards: rst_escape(PLAN.cfg[group][getattr(wildcards, wildcard)][key])


def all_figure_outputs():
    return [str(p) for name in PLAN.figures for p in PLAN.figure_outputs(name)]


def all_outputs(phase):
    """Every file of one phase of the grid (targets for DVC stages and partial runs)."""
    if phase == "data":
        tasks = sorted({c.task for c in PLAN.cells})
        return [p for task in tasks for p in derived(task).values()] + [
            str(p) for task in tasks for p in PLAN.derived_inputs(task).values()]
    suffix = ".json" if phase == "scores" else ".jsonl"
    return [str(PLAN.artifact(phase, cell, suffix)) for cell in PLAN.cells]


def source_files(wildcards):
    return {k: str(v) for k, v in PLAN.sources(wildcards.task).items()}


def derived(task):
    return {k: str(v) for k, v in PLAN.derived(task).items()}


def derived_input_sources(benchmark):
    """The identities of the benchmark's derived scoring inputs, the files they read and the
    job's manifest."""
    inputs = {"manifest": str(PLAN.manifest_file("scoring-inputs", benchmark))}
    for k, (task, role, _) in enumerate(PLAN.derived_input_files(benchmark)):
        inputs[f"identity_{k}"] = str(PLAN.identity_file("inputs", task, role))
        named = PLAN.named_scoring_inputs(task).values()
        inputs |= {f"{task}_{role}_input_{i}": str(p) for i, p in enumerate(named)}
    return inputs


def table_summaries(wildcards):
    return [str(PLAN.artifact("scores", c, ".json")) for c in PLAN.tables[wildcards.table]]


def figure_tables(wildcards):
    """The CSV and statistics of the tables a figure draws from."""
    return [str(p) for p in PLAN.figure_inputs(wildcards.figure)]


def table_rows(wildcards):
    """Per-example score rows of the table's cells (its statistics resample them)."""
    return [str(PLAN.artifact("scores", c)) for c in PLAN.tables[wildcards.table]]


def export_inputs(wildcards):
    """The export's identity and manifest, and its cells' files."""
    inputs = {"identity": str(PLAN.identity_file("export-eee", wildcards.model, wildcards.task)),
              "manifest": str(PLAN.manifest_file("export-eee", wildcards.model, wildcards.task))}
    for i, c in enumerate(PLAN.export_cells(wildcards.model, wildcards.task)):
        inputs |= {f"summary_{i}": str(PLAN.artifact("scores", c, ".json")),
                   f"rows_{i}": str(PLAN.artifact("scores", c)),
                   f"requests_{i}": str(PLAN.artifact("requests", c)),
                   f"generations_{i}": str(PLAN.artifact("generations", c)),
                   f"meta_{i}": str(PLAN.artifact("generations", c, ".meta.json"))}
    return inputs


def all_export_outputs():
    return [str(p) for model, task in PLAN.export_groups()
            for p in PLAN.export_outputs(model, task)]


def of_benchmark(function, benchmark):
    """``function(wildcards, benchmark)`` as an input or params function of one benchmark's
    rule: a plain function, whose signature Snakemake reads for every job faster than a
    partial's."""

    def bound(wildcards):
        return function(wildcards, benchmark)

    return bound


def cell_files(benchmark, kind, suffix):
    """One job's per-cell files: every (task, mode) of the benchmark, for ``{model}`` (the
    plan's paths with the wildcard as the model)."""
    return [str(PLAN.artifact(kind, Cell("{model}", task, mode), suffix))
            for task, mode in PLAN.benchmark_cells(benchmark)]


def requests_inputs(wildcards, benchmark):
    """The job's manifest, identities and derived data of the cells; a built model's tokenizer
    config."""
    cells = PLAN.cells_of_group(wildcards.model, benchmark)
    inputs = {f"identity_{i}": str(PLAN.identity_file(c.model, c.task, c.mode, "requests"))
              for i, c in enumerate(cells)}
    inputs["manifest"] = str(PLAN.manifest_file("requests", wildcards.model, benchmark))
    for task in sorted({c.task for c in cells}):
        inputs |= {f"{task}_{k}": v for k, v in derived(task).items()}
    config = PLAN.tokenizer_config(wildcards.model)
    return inputs | ({"model": str(config)} if config else {})


def score_inputs(wildcards, benchmark):
    """The job's manifest, identities, examples, requests and generations of the cells, the
    files scoring reads, and the built judge models it runs."""
    cells = PLAN.cells_of_group(wildcards.model, benchmark)
    inputs = {"manifest": str(PLAN.manifest_file("score", wildcards.model, benchmark))}
    for i, c in enumerate(cells):
        inputs[f"identity_{i}"] = str(PLAN.identity_file(c.model, c.task, c.mode, "scoring"))
        inputs[f"requests_{i}"] = str(PLAN.artifact("requests", c))
        inputs[f"generations_{i}"] = str(PLAN.artifact("generations", c))
    for task in sorted({c.task for c in cells}):
        inputs[f"{task}_examples"] = derived(task)["examples"]
        paths = PLAN.scoring_inputs(task).values()
        inputs |= {f"{task}_scoring_input_{k}": str(path) for k, path in enumerate(paths)}
        judges = PLAN.judge_files(task)
        inputs |= {f"{task}_judge_{k}": str(path) for k, path in enumerate(judges)}
    return inputs


onstart:
    # a SLURM run checks sbatch, the status command and the controller before any job is
    # submitted (one message per missing piece); any other executor checks and waits for nothing
    slurm_preflight(workflow)
    # long jobs' progress lines (their steps write them beside their logs) on this console,
    # whatever node runs them (clineval.workflow.run.progress)
    if workflow.is_main_process:
        console_progress.start(Path(RESULTS))
