"""The benchmark SDK: the interface every benchmark package implements, and what it may use.

A benchmark package (``clineval/benchmarks/<name>/``) imports only this package
(``base``: the protocol, ``sources``, ``exemplars``, ``prompts``), ``clineval.io``,
``clineval.errors``, ``clineval.mimic``, ``clineval.tables`` and ``clineval.metrics``; a test
enforces it (``tests/platform/test_sdk_imports.py``). See docs/sdk.md.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from clineval.io import Record
from clineval.metrics import aggregate
from clineval.metrics.bootstrap import Replicates, replicates_of
from clineval.provenance.hashing import sha256_obj

if TYPE_CHECKING:
    from clineval.benchmarks.base.headline import LeaderboardColumn, Metric
    from clineval.benchmarks.base.reading import Reading


def request_record(
    example_id: str, messages: list[dict[str, str]], exemplar_ids: list[str],
    completion: bool = False,
) -> Record:
    """One rendered request as the workflow stores it (``truncation`` set by the requests step).

    ``completion``: the one message's text is sent as it is, without a chat template (a base
    model's continuation prompt); the flag is part of ``request_sha``.
    """
    record: Record = {
        "id": example_id,
        "messages": messages,
        "exemplar_ids": exemplar_ids,
        "truncation": None,
        "request_sha": sha256_obj({"completion": messages} if completion else messages),
    }
    if completion:
        if len(messages) != 1:
            raise ValueError(f"request {example_id}: a completion request is one text, not "
                             f"{len(messages)} messages")
        record["completion"] = True
    return record


def scored_rows(rows: list[Record]) -> list[Record]:
    """The rows a cell's summary is computed over: every row, except those a benchmark marks
    ``evaluated: false`` (MedEval: validation rows and exemplar draws not chosen). These are
    the units a bootstrap resamples and a paired test matches by ``id``."""
    return [row for row in rows if row.get("evaluated", True)]


def literal_rows(rows: list[Record]) -> list[Record] | None:
    """The rows under the paper's literal reading: each row with its ``literal`` fields in
    place of its own (docs/scoring.md, Two readings); None when no row reads otherwise."""
    if not any(row.get("literal") for row in rows):
        return None
    return [{**row, **(row.get("literal") or {})} for row in rows]


def replicates_by_rows(bench: Benchmark, task: Record, rows: list[Record],
                       drawn: np.ndarray) -> Replicates:
    """The reference for :meth:`Benchmark.headline_replicates`: ``headline(summarize_rows)``
    recomputed on each resample's rows, one resample at a time."""
    return replicates_of(
        lambda indices: bench.headline(bench.summarize_rows(task, [rows[i] for i in indices])),
        drawn)


class DeclaredAggregates:
    """The default :meth:`Benchmark.headline_replicates` of a benchmark that declares its
    headline numbers once, as aggregates over the rows (``headline_aggregates``,
    :mod:`clineval.metrics.aggregate`); its ``summarize_rows`` takes them from the same
    declaration (:func:`clineval.metrics.aggregate.values`)."""

    def headline_aggregates(self, task: Record, rows: list[Record]) -> aggregate.Headline:
        raise NotImplementedError

    def headline_replicates(self, task: Record, rows: list[Record], drawn: np.ndarray
                            ) -> Replicates:
        return aggregate.replicates(self.headline_aggregates(task, rows), rows, drawn)


@dataclass(frozen=True)
class DerivedInput:
    """A file the workflow builds from a task's scoring inputs, once, before any scoring job
    reads it (CliBench: the embeddings of its candidate titles)."""

    #: The file's name in the task's derived folder.
    name: str
    #: Everything besides the scoring inputs' bytes that decides its content (its identity).
    settings: Record


def derived_scoring_inputs(bench: Benchmark, task: Record) -> dict[str, DerivedInput]:
    """The files the benchmark derives from the task's scoring inputs, by role
    (:meth:`Benchmark.derived_scoring_inputs`; :class:`.standard.StandardBenchmark`'s: none)."""
    return dict(bench.derived_scoring_inputs(task))


def source_tiers(bench: Benchmark, task: Record, sources: dict[str, Path]) -> dict[str, str]:
    """The least data-access tier of each of the task's official ``sources`` (by role, as
    ``source_files`` gave them; :data:`.sources.TIERS`): the tier the file's licence puts it
    in, whatever the task's ``access`` says (MIMIC's files are ``credentialed``), as
    :meth:`Benchmark.source_tiers` declares it (:class:`.standard.StandardBenchmark`'s: each
    ``OfficialFile.tier``, public for a demo file)."""
    return dict(bench.source_tiers(task, sources))


class Prompting(Protocol):
    """The prompt members of a :class:`Benchmark`: an example -> the request a model answers."""

    def build_requests(
        self,
        task: Record,
        mode: Record,
        templates: Record,
        examples: list[Record],
        exemplars: list[Record],
        prompt_kind: str = "chat",
    ) -> list[Record]:
        """Render each example as chat ``messages`` (plus ``exemplar_ids``).

        ``prompt_kind``: the model's (``chat``, or ``completion`` for a base model without a
        chat template; config/prompt_kind.py). A benchmark whose prompts differ by kind uses
        it; the others accept and ignore it.
        """

    def style(self, mode: Record) -> str:
        """The answer style of ``mode`` (``reasoning`` or ``direct``): which templates render
        it and which answer budget its cells get."""

    def input_fields(self, example: Record) -> dict[str, str]:
        """The example's input texts that context truncation may shorten (never instructions)."""

    def with_fields(self, example: Record, fields: dict[str, str]) -> Record:
        """``example`` with its input texts replaced by ``fields`` (shortened ones)."""

    def prompt_inputs(self, example: Record, user: str) -> list[str]:
        """The example's own texts as the final user message ``user`` shows them; the rest of
        the prompt is instruction or exemplars (:mod:`clineval.metrics.copying`)."""

    def restated_texts(self, example: Record) -> list[str]:
        """The example's question as an answer may restate it ("The patient's anion gap ...
        is 1."): words that repeat it are no copy (:func:`clineval.metrics.copying.find_copy`)."""


class Benchmark(Prompting, Protocol):
    """A benchmark: official data -> examples -> requests (its :class:`Prompting` members) ->
    scores -> its tables."""

    name: str
    #: Bump when the loader or the demo generator changes, so derived data is rebuilt.
    data_version: str
    #: Bump when scoring logic changes, so stored scores are recomputed.
    scoring_version: str
    #: The names a baseline model may give (``baseline:``); it runs only this benchmark's tasks.
    baselines: tuple[str, ...]
    #: The headline metrics, each declared once (:mod:`.headline`): their labels, the
    #: accuracies, lower-is-better and every metric a setting may name derive from them. A
    #: benchmark may also declare ``leaderboard``, its :class:`.headline.LeaderboardColumn`.
    metrics: tuple[Metric, ...]
    #: The names or patterns of the metrics where lower is better (from ``metrics``).
    lower_is_better: tuple[str, ...]
    #: The benchmark's leaderboard column (:class:`.headline.LeaderboardColumn`); None: none.
    leaderboard: LeaderboardColumn | None
    #: What the paper's literal reading credits that this benchmark's reading does not (a
    #: table's reading note); None where the two readings never differ.
    literal_reading: str | None
    #: The modules of the package whose code each version covers (``{"data": (...),
    #: "scoring": (...)}``); a part not named: the whole package.
    code_modules: Mapping[str, tuple[str, ...]]
    #: Whether scoring reads the mode (a score identity then holds the mode).
    scoring_reads_mode: bool
    #: The reading :meth:`answered` follows, as ``clineval answers`` names it: ``careful``
    #: (the project's) or ``official`` (MedCalc-Bench's official extraction).
    answered_reading: str

    def source_files(self, task: Record, data_root: Path, task_name: str) -> dict[str, Path]:
        """Files the derive step reads: the official files, or the demo files to generate.

        Raise ``FileNotFoundError`` (its message: which file, where to get it, which setting)
        when an official file is missing: the plan then skips the task and runs the rest.
        """

    def source_tiers(self, task: Record, sources: Mapping[str, Path]) -> dict[str, str]:
        """The least data-access tier of each of the task's ``sources``, by role
        (:func:`source_tiers`)."""

    def write_demo(self, task: Record, sources: dict[str, Path]) -> None:
        """Generate the synthetic demo sources in the official formats."""

    def derive(self, task: Record, sources: dict[str, Path]) -> tuple[list[Record], list[Record]]:
        """Official files -> (examples with stable ``id``, exemplars with stable ``id``)."""

    def baseline(self, name: str, task: Record, examples: list[Record]) -> Callable[[Record], str]:
        """A non-model baseline over the task's ``examples``: example -> raw output text."""

    def scoring_inputs(self, task: Record, task_name: str, data_root: Path) -> dict[str, Path]:
        """Files the task's scoring reads beyond examples and generations (ontologies, label
        maps, encoder weights, classifiers), by role; ``data_root`` holds the demo sources
        (``<data_root>/demo/<task_name>/``) that a demo's scoring may read.

        Each is an input of the scoring job, part of the scoring identity by content hash and
        recorded in the score records that ``clineval audit`` checks. Heavy resources load
        once per scoring job (one process scores all of a model's cells of the benchmark).
        """

    def derived_scoring_inputs(self, task: Record) -> dict[str, DerivedInput]:
        """Files the workflow builds once from the task's scoring inputs before any scoring
        job reads them, by role (CliBench: its titles' embeddings); none for most."""

    def derive_scoring_input(self, role: str, settings: Record, inputs: dict[str, Path],
                             out: Path) -> Record:
        """Write ``out``, the derived scoring input ``role`` (its ``settings``: the
        :class:`DerivedInput`'s), from the scoring input files; return what its record keeps."""

    def score(
        self, task: Record, examples: list[Record], generations: list[Record]
    ) -> tuple[list[Record], Record]:
        """Per-example score rows (each with the example ``id``) and the cell summary.

        In a workflow job ``task`` also holds ``inputs``: the scoring input files by role, as
        ``scoring_inputs`` declared them and the job checked them against the identity; scoring
        reads those paths, so what it reads is what the identity hashed. A task whose scoring
        names a model (a judge, ``{preset: ...}`` in its scoring settings) also gets ``judges``:
        name -> ``{"dir": ...}``, where ``base.judge`` loads it from.
        """

    def answered(self, row: Record) -> bool | None:
        """Whether the model's output gave an answer the scorer could read (parsed, or
        qualified) under :attr:`answered_reading`; None where every output counts as its
        answer (a summary). False exactly where the explorer's verdict of that reading (the
        first judgement of :meth:`reading`) is ``unanswered``."""

    def reading(self, row: Record, example: Record) -> Reading:
        """How the scorer read one output, for people (the report's per-example explorer,
        :mod:`clineval.benchmarks.base.reading`): the example's gold, and per reading the row
        keeps its verdict, score, what was read and the rule that decided."""

    def headline(self, summary: Record) -> dict[str, float | None]:
        """A cell's headline numbers (DVC metrics), named ``<metric>`` or ``<part>.<metric>``."""

    def headline_source(self, key: str, summary: Record) -> Record:
        """The examples behind headline number ``key`` of a cell with ``summary``, as the
        fields of :func:`clineval.tables.render.link` (``view``, ``where``, ``n``, ``right``,
        ``measure``, ``level``, ``of``, ``by``) that the leaderboard's link carries; {}: the
        whole cell (:class:`~clineval.benchmarks.base.standard.StandardBenchmark`'s default)."""

    def summarize_rows(self, task: Record, rows: list[Record]) -> Record:
        """The cell summary recomputed from per-example score ``rows`` (all of a cell's scored
        rows, a subset or a bootstrap resample; duplicates count as often as they occur).

        Corpus-level metrics (micro F1, corpus BLEU, EMR) are recomputed from the rows, so
        ``headline(summarize_rows(task, rows))`` equals ``headline(summary)`` for a cell's own
        rows; parts that do not depend on rows (settings, encoder names) may be left out.
        """

    def headline_aggregates(self, task: Record, rows: list[Record]) -> aggregate.Headline:
        """The headline numbers declared once over ``rows`` (name -> ``Shown(aggregate,
        part)``, :mod:`clineval.metrics.aggregate`): ``summarize_rows`` writes their values,
        and :class:`DeclaredAggregates` gives ``headline_replicates`` from them."""

    def headline_replicates(self, task: Record, rows: list[Record], drawn: np.ndarray
                            ) -> Replicates:
        """The headline numbers of every bootstrap resample of ``rows`` at once (``drawn``: a
        resample's row positions per row, :func:`clineval.metrics.bootstrap.resamples`).

        Equal, value for value, to :func:`replicates_by_rows` (``headline(summarize_rows)`` per
        resample; a name a resample's headline lacks has no value for it). Inherited from
        :class:`DeclaredAggregates` (the declared aggregates summed over the draw counts); a
        benchmark whose headline cannot be declared may return :func:`replicates_by_rows`.
        """

    def outcomes(self, task: Record, rows: list[Record]) -> dict[str, dict[str, int]]:
        """Per headline metric that is an accuracy (the mean of 0/1 outcomes): example id ->
        outcome, for McNemar's test; metrics of other kinds are absent."""

    def table(self, spec: Record, cells: list[Record], tasks: dict[str, Record]) -> Any:
        """Build a table (``clineval.tables.render.Table``) from scored cells of ``tasks``.

        Each cell carries its ``model``, ``task``, ``mode``, ``summary``, ``display_name``,
        ``size`` and ``smoke``, its path ``cell`` (``model/task/mode``), and its per-example
        score ``rows`` when the spec sets ``rows: true`` (paired statistics); ``tasks`` maps
        the table's task names to their settings. A block's ``sources`` name the cells behind
        each value (``clineval.tables.render.source``): the report links values to them."""

    def table_warnings(self, name: str, spec: Record, tasks: dict[str, Record]) -> list[str]:
        """Warnings about the table ``name`` whose columns the data of ``tasks`` (this
        benchmark's tasks of the table) cannot fill (MedEval's Misc. group on an all-chest
        source); logged before any job runs."""

    def add_score_arguments(self, parser: argparse.ArgumentParser) -> None:
        """The options of ``clineval score <name>`` (score outputs produced anywhere)."""

    def score_external(self, args: argparse.Namespace) -> int:
        """Run ``clineval score <name>``: print per-row results and the metrics (``--json``:
        one JSON object); return the exit status."""
