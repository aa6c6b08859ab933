# Config loading, validation and the plan (cells, identity files, jobs and their manifests).
import sys
from pathlib import Path

from clineval.benchmarks import add_include
from clineval.workflow.checks import check_plan
from clineval.workflow.code_changes import warn as warn_code_changes
from clineval.errors import ConfigError
from clineval.workflow.settle import settle
from clineval.workflow.locks import at_start as release_stale_lock
from clineval.workflow.missing import forget_unfinished
from clineval.workflow.missing import targets as missing_files
from clineval.workflow.check_data import check_data
from clineval.workflow import checkout
from clineval.workflow import progress as console_progress
from clineval.workflow.job_errors import short_messages
from clineval.workflow.jobs import plan_rules
from clineval.workflow.manifests import write_manifests
from clineval.workflow.plan_cache import load_plan
from clineval.workflow.settle import settled
from clineval.workflow.slurm import check as slurm_preflight


try:
    # benchmark packages from outside the project (--config include=DIR, os.pathsep-separated, or
    # $CLINEVAL_INCLUDE): the plan and every job process (which inherit the variable) find them
    add_include(config.get("include"))
    # reused from results/identity/plans/ while conf/, the overrides and the files it read are
    # unchanged (clineval.workflow.plan_cache)
    PLAN, PLAN_JOBS, _ = load_plan(
        Path(workflow.basedir) / "conf",
        config.get("overrides"),
        results=Path(config.get("results", "results")),
        data_root=Path(config.get("data", "data")),
    )
    check_plan(PLAN)  # nothing to build stops here; tables their data cannot fill warn
except ConfigError as err:
    sys.exit(f"clineval: configuration error: {err}")
# results whose code changed while their versions did not: one warning naming them and the
# modules (grid.code_changes=rerun re-runs them instead; clineval.workflow.code_changes)
if workflow.is_main_process:
    warn_code_changes(PLAN)
# the sources of official tasks whose derived data is not current, read by their loaders: a bad
# file stops here with one line per problem (clineval check-data prints the same);
# --config check_data=false leaves it to the data jobs (MIMIC-scale sources read twice otherwise)
if workflow.is_main_process and str(config.get("check_data", True)).lower() not in (
        "false", "0", "no"):
    _DATA_CHECK = check_data(PLAN, workflow=True)
    if not _DATA_CHECK.ok:
        sys.exit(_DATA_CHECK.message())
PLAN.write_identities()
# jobs refuse an environment that imports another checkout's clineval (workflow/checkout.py)
if workflow.is_main_process:
    checkout.export()
# each job's manifest, the one argument of its step; rewritten only when it changes
write_manifests(PLAN_JOBS)
SETTLE_JOBS = settled(PLAN_JOBS)  # what all_tables builds (exports are asked for by name)


onsuccess:
    console_progress.stop()  # the jobs' last progress lines, then Snakemake's summary


onerror:
    console_progress.stop()
    # the console ends with each failed step's one-line message (file, row, field, expected)
    for _line in short_messages(log):
        print(_line, file=sys.stderr)


settle(PLAN, SETTLE_JOBS)  # pulled artifacts that verify by hash get time stamps in build order
# finished files that went missing are rebuilt (all_tables asks for them); a killed run's lock
# whose owner is dead is removed (docs/workflow.md, Interruptions, failures and missing files)
if workflow.is_main_process:
    forget_unfinished(SETTLE_JOBS)  # failed before its step ran: counted as done by Snakemake
MISSING = missing_files(workflow, SETTLE_JOBS)
release_stale_lock(workflow)
try:  # each step's rules, as the steps declare them (clineval.workflow.jobs)
    RULES = plan_rules(PLAN)
except ConfigError as err:
    sys.exit(f"clineval: configuration error: {err}")
JOBS = {(job.step, *job.key): job for job in PLAN_JOBS}
RESULTS = str(PLAN.results)
DATA = str(PLAN.data_root)
if PLAN.results != Path(config.get("results", "results")):  # a grid's own folders (roots.py)
    print(f"clineval: grid {PLAN.cfg['grid']['name']}: results in {RESULTS}/, data in {DATA}/",
          file=sys.stderr)
LOGS = f"{RESULTS}/logs"


wildcard_constraints:
    model="[^/]+",
    task="[^/]+",
    mode="[^/]+",
    table="[^/.]+",
    figure="[^/.]+",


def job_inputs(rule):
    """Input function: the inputs of the rule's job for its wildcards."""

    def inputs(wildcards):
        return JOBS[rule.job_key(wildcards)].inputs

    return inputs


def job_param(rule, name):
    """Params function: the job's ``name`` param (a table's title, escaped for the report)."""
    return lambda wildcards: JOBS[rule.job_key(wildcards)].params[name]


def rule_outputs(rule):
    """The rule's outputs, those it keeps until its job replaces them as ``update``, those of
    ``snakemake --report`` with their labels and the job's category."""
    outputs = {}
    for name, paths in rule.outputs.items():
        value = paths
        if name in rule.report:
            category = lambda wildcards: JOBS[rule.job_key(wildcards)].category
            value = report(paths[0], caption="../report/caption.rst", category=category,
                           labels=rule.report[name])
        outputs[name] = update(value) if name in rule.update else value
    return outputs


def outputs_of(*steps):
    """Every output of the plan's jobs of ``steps``: targets of the ``all_*`` rules."""
    return [p for job in PLAN_JOBS if job.step in steps for p in job.output_files]


onstart:
    # a SLURM run checks sbatch, the status command and the controller before any job is
    # submitted (one message per missing piece); any other executor checks and waits for nothing
    slurm_preflight(workflow)
    # long jobs' progress lines (their steps write them beside their logs) on this console,
    # whatever node runs them (clineval.workflow.progress)
    if workflow.is_main_process:
        console_progress.start(Path(RESULTS))
