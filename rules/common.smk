# The plan, loaded, checked and written out by one call at parse time; what the rules read of it.
import sys
from pathlib import Path

from clineval.errors import ConfigError
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
JOBS = START.jobs  # (step, *key) -> the job: its manifest, inputs, outputs, records
RULES = START.rules  # each step's rules, as the steps declare them (clineval.workflow.plan.jobs)
MISSING = START.missing
RESULTS = START.results


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


RULE_OF = {_r.name: _r for _r in RULES}


def command(declared, names):
    """The shell command of a step's rule. Snakemake evaluates it twice: at parse time
    (``declared``: the loop's rule; this text is what Snakemake records as the rule's code),
    and when a job runs, inside the job's function, after the loop has moved on: there
    ``names`` (that function's locals) holds the rule's name."""
    name = names.get("rule")
    return (RULE_OF[name] if isinstance(name, str) else declared).shell


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
    return [p for job in JOBS.values() if job.step in steps for p in job.output_files]


onstart:
    # a SLURM run checks sbatch, the status command and the controller before any job is
    # submitted (one message per missing piece); any other executor checks and waits for nothing
    slurm_preflight(workflow)
    # long jobs' progress lines (their steps write them beside their logs) on this console,
    # whatever node runs them (clineval.workflow.run.progress)
    if workflow.is_main_process:
        console_progress.start(Path(RESULTS))
