"""What a step declares: its identities, its jobs (:class:`Job`) and the Snakemake rules that run
them (:class:`Rule`), in one :class:`Step`.

A job's files are named once, here: the manifest its step reads is written from the job
(:mod:`clineval.workflow.plan.manifests`), its rule takes the job's inputs and the same outputs
(``rules/steps.smk``), and settling and the missing-file check read the same lists
(:mod:`clineval.workflow.run.settle`). This module imports nothing of the plan, so that a step's
process (``clineval step NAME``) loads its declaration cheaply.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clineval.workflow.plan.identities import Facts
    from clineval.workflow.plan.layout import Plan

#: A shard in a job's key (``k-of-n``).
_SHARD = re.compile(r"^(\d+)-of-(\d+)$")

#: Files by name: a rule's inputs or outputs (each name one or more paths, as text).
Files = dict[str, list[str]]


@dataclass
class Job:
    """One job of a step: the manifest its step reads (written to ``manifest_file``), the files
    Snakemake compares, by the rule's names (the manifest's own file among the inputs, as
    ``manifest``), and the provenance records that prove its outputs: (record, identity sha)."""

    step: str
    #: What names the job among its step's: a task, a model and a benchmark, a table, ...
    key: tuple[str, ...]
    manifest_file: str
    manifest: dict[str, Any]
    inputs: Files
    outputs: Files
    records: list[tuple[str, str]] = field(default_factory=list)
    #: The rule's ``params`` of this job (a table's title and caption, escaped for the report).
    params: dict[str, str] = field(default_factory=dict)
    #: The job's category in ``snakemake --report`` (a table's or figure's section).
    category: str | None = None

    @property
    def name(self) -> str:
        """The job in messages: its step and key, a shard as ``k/n`` (a model's only shard,
        ``1-of-1``, left out)."""
        parts = (_SHARD.sub(r"\1/\2", part) for part in self.key if part != "1-of-1")
        return " ".join((self.step, *parts))

    @property
    def input_files(self) -> list[str]:
        return [path for paths in self.inputs.values() for path in paths]

    @property
    def output_files(self) -> list[str]:
        return [path for paths in self.outputs.values() for path in paths]

    def data(self) -> list[Any]:
        """The job as JSON (the plan cache keeps it): :meth:`from_data` makes it again."""
        return [self.step, list(self.key), self.manifest_file, self.manifest, self.inputs,
                self.outputs, [list(r) for r in self.records], self.params, self.category]

    @classmethod
    def from_data(cls, data: list[Any]) -> Job:
        step, key, manifest_file, manifest, inputs, outputs, records, params, category = data
        return cls(step, tuple(key), manifest_file, manifest, inputs, outputs,
                   [(str(r), str(sha)) for r, sha in records], params, category)


def job(step: str, key: tuple[str, ...], manifest_file: object, manifest: dict[str, Any],
        inputs: Mapping[str, Any], outputs: Mapping[str, Any],
        records: list[tuple[object, str]] | None = None, **extra: Any) -> Job:
    """A :class:`Job` from paths: each input and output a path or a list of them, the
    manifest's file added to the inputs as ``manifest``; ``manifest`` gets ``step`` first."""
    return Job(step, key, str(manifest_file), {"step": step, **manifest},
               {**files(inputs), "manifest": [str(manifest_file)]}, files(outputs),
               [(str(r), sha) for r, sha in records or ()], **extra)


def files(named: Mapping[str, Any]) -> Files:
    """Named paths (each a path or a list of them) as :data:`Files`."""
    return {name: [str(p) for p in value] if isinstance(value, list | tuple) else [str(value)]
            for name, value in named.items()}


@dataclass
class Rule:
    """One Snakemake rule of a step: the jobs whose key matches :attr:`key` (wildcards in
    braces, filled from the rule's wildcards) with these output patterns."""

    name: str
    step: str
    key: tuple[str, ...]
    outputs: Files
    log: dict[str, str]
    #: Outputs Snakemake keeps until the job replaces them (``update``): a rebuilt file that
    #: comes back byte-identical keeps its place.
    update: tuple[str, ...] = ()
    #: Outputs shown in ``snakemake --report``, with their labels.
    report: dict[str, dict[str, str]] = field(default_factory=dict)
    #: The names of the jobs' :attr:`Job.params`.
    params: tuple[str, ...] = ()
    local: bool = True
    constraints: dict[str, str] = field(default_factory=dict)
    resources: dict[str, Any] = field(default_factory=dict)
    threads: int = 1
    conda: str = "../envs/cpu.yaml"

    @property
    def shell(self) -> str:
        log = "log.main" if len(self.log) > 1 else "log"
        return f"clineval step {self.step} --manifest {{input.manifest}} > {{{log}}} 2>&1"

    def job_key(self, wildcards: Mapping[str, str]) -> tuple[str, ...]:
        """The key of the job that makes the rule's outputs for ``wildcards``."""
        return (self.step, *(part.format_map(wildcards) for part in self.key))


@dataclass(frozen=True)
class Step:
    """A workflow step declared once: its name (``clineval step NAME``, ``results/jobs/NAME/``),
    what its manifest holds (:data:`clineval.workflow.plan.manifests.FIELDS`), the identities it
    adds to the plan, its jobs, its rules and the function ``clineval step NAME`` runs on a
    job's manifest (``run``)."""

    name: str
    help: str
    fields: dict[str, Any]
    jobs: Callable[[Plan], Iterator[Job]]
    rules: Callable[[Plan], Iterator[Rule]]
    #: What ``clineval step NAME`` runs on a job's manifest, ``module:function``: found by name,
    #: so that the plan's layer names the steps' code without importing it.
    run: str = ""
    #: Where the step's jobs come among all steps' (build order: a job after those it reads).
    order: int = 0
    identities: Callable[[Plan, Facts], None] | None = None
    #: Whether settling and the missing-file check see its jobs (built by ``all_tables``).
    settled: bool = True
