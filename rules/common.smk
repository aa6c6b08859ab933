# Config loading, validation and the plan (cells + identity files); input functions.
import sys
from pathlib import Path

from clineval.config.compose import ConfigError
from clineval.config.plan import build_plan
from clineval.provenance.settle import settle
from clineval.workflow.resources import CONDA_ENVS, DEFAULT_CONDA_ENV, model_resources


try:
    PLAN = build_plan(
        Path(workflow.basedir) / "conf",
        config.get("overrides"),
        results=Path(config.get("results", "results")),
        data_root=Path(config.get("data", "data")),
    )
except ConfigError as err:
    sys.exit(f"clineval: configuration error: {err}")
PLAN.write_identities()
settle(PLAN)  # pulled artifacts that verify by hash get time stamps in build order
try:
    PLAN_RESOURCES = {
        name: {k: v for k, v in res.snakemake().items() if v is not None}
        for name, res in model_resources(PLAN.cfg["models"]).items()
    }
except ConfigError as err:
    sys.exit(f"clineval: configuration error: {err}")
PLAN_CONDA_ENVS = {
    name: f"../envs/{CONDA_ENVS.get(spec['backend'], DEFAULT_CONDA_ENV)}"
    for name, spec in PLAN.cfg["models"].items()
}
RESULTS = str(PLAN.results)
DATA = str(PLAN.data_root)
LOGS = f"{RESULTS}/logs"


wildcard_constraints:
    model="[^/]+",
    task="[^/]+",
    mode="[^/]+",
    table="[^/.]+",


def identity(kind):
    """Input function: the content-addressed identity file of a cell's artifact."""

    def find(wildcards):
        if kind == "data":
            return str(PLAN.identity_file("data", wildcards.task))
        if kind == "model":
            return str(PLAN.identity_file("models", wildcards.model))
        if kind == "table":
            return str(PLAN.identity_file("tables", wildcards.table))
        return str(PLAN.identity_file(wildcards.model, wildcards.task, wildcards.mode, kind))

    return find


def all_table_outputs():
    return [str(p) for name in PLAN.tables for p in PLAN.table_outputs(name)]


def all_outputs(phase):
    """Every file of one phase of the grid (targets for DVC stages and partial runs)."""
    if phase == "data":
        return [p for task in sorted({c.task for c in PLAN.cells}) for p in derived(task).values()]
    suffix = ".json" if phase == "scores" else ".jsonl"
    return [str(PLAN.artifact(phase, cell, suffix)) for cell in PLAN.cells]


def source_files(wildcards):
    return {k: str(v) for k, v in PLAN.sources(wildcards.task).items()}


def derived(task):
    return {k: str(v) for k, v in PLAN.derived(task).items()}






def table_summaries(wildcards):
    return [str(PLAN.artifact("scores", c, ".json")) for c in PLAN.tables[wildcards.table]]


def tokenizer_input(wildcards):
    """A built model's files: the requests step counts tokens with its tokenizer."""
    config = PLAN.tokenizer_config(wildcards.model)
    return {"model": str(config)} if config else {}


def model_dir_flag(wildcards):
    spec = PLAN.cfg["models"][wildcards.model]
    model_dir = PLAN.model_dir(wildcards.model)
    return f"--model-dir {model_dir}" if spec.get("context") and model_dir else ""
