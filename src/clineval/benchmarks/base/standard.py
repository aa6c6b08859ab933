"""The defaults of a benchmark: what most benchmarks do, written once (docs/extending.md).

A benchmark subclasses :class:`StandardBenchmark` and overrides only what differs. It must give
its name and files (``name``, ``demo_files``, ``official_files``), how to write its demo and
read its examples (``write_demo``, ``read_examples``), how to score one output
(``score_row``), its headline metrics (``metrics``: :mod:`.headline`, with their aggregates, or
``headline_aggregates`` where they depend on the task) and its table (``table``, or the by-mode
table of :mod:`clineval.tables.by_mode`). The rest has a default:

- sources: the demo files under ``data/demo/<task>/``, else the official ones its
  ``official_files`` name by setting, each with the least data-access tier its licence gives
  it (``OfficialFile.tier``, ``source_tiers``);
- exemplars: ``exemplars.count`` (else ``paper_exemplars``) held out of the test examples by
  seeded rank, never evaluated;
- prompts: a system message, the exemplars as user/assistant turns, the example as the user
  message, from the task's templates (``system``, ``user``, ``answer`` and ``answer_format``,
  by style: ``direct`` or ``reasoning``); for a model without a chat template (prompt kind
  ``completion``) the same texts as one prompt to continue;
- context truncation over the example's ``truncatable`` fields;
- scoring: :meth:`score_row` over every example, the summary from the headline aggregates;
- paired tests over the declared accuracies (a metric's ``outcome``);
- ``clineval score <name>`` over a task's derived examples (:mod:`.external`).
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from clineval.benchmarks.base import (
    DeclaredAggregates,
    DerivedInput,
    headline,
    literal_rows,
    request_record,
)
from clineval.benchmarks.base import external as external_scoring
from clineval.benchmarks.base.exemplars import exemplar_count, hold_out, shown_exemplars
from clineval.benchmarks.base.headline import LeaderboardColumn, Metric
from clineval.benchmarks.base.prompts import fill
from clineval.benchmarks.base.reading import Reading, standard
from clineval.benchmarks.base.sources import demo_or_official, require
from clineval.errors import ConfigError
from clineval.io import Record
from clineval.metrics import aggregate, copying
from clineval.progress import progress
from clineval.tables import by_mode
from clineval.tables.render import Table

#: The two answer styles of a task's templates: a mode with ``reasoning`` asks for ``reasoning``.
STYLES = ("direct", "reasoning")


@dataclass(frozen=True)
class OfficialFile:
    """An official source file: the ``data`` setting that points at it, what it is and where a
    user gets it (the message of a task that lacks it)."""

    setting: str
    description: str
    where: str
    #: The least data-access tier of the file (:data:`.sources.TIERS`): what its licence makes
    #: it, whatever a task's ``access`` says.
    tier: str = "public"


class StandardBenchmark(DeclaredAggregates):
    """A benchmark with every default; the class attributes are its declarations."""

    name: str
    data_version = "1"
    scoring_version = "1"
    baselines: tuple[str, ...] = ()
    #: The reading :meth:`answered` follows (``clineval answers`` names it).
    answered_reading = "careful"
    #: Source files by role: their names under ``data/demo/<task>/``.
    demo_files: ClassVar[Mapping[str, str]] = {}
    #: Source files by role: the official file each role reads.
    official_files: ClassVar[Mapping[str, OfficialFile]] = {}
    #: Exemplars an exemplar mode shows when the task does not say (``exemplars.count``).
    paper_exemplars = 1
    #: The example fields context truncation may shorten (the long inputs).
    truncatable: tuple[str, ...] = ()
    #: The headline metrics, each declared once (:mod:`clineval.benchmarks.base.headline`):
    #: labels, accuracies, lower-is-better and every metric choice derive from them.
    metrics: ClassVar[tuple[Metric, ...]] = ()
    #: The benchmark's leaderboard column; None: none.
    leaderboard: ClassVar[LeaderboardColumn | None] = None
    #: What the paper's literal reading credits that this benchmark's reading does not (copied
    #: prompt text); None where the two readings never differ. Rows where they differ carry
    #: ``literal``: the row's fields under that reading (:func:`literal_rows`).
    literal_reading: str | None = None
    #: The modules of the package whose code each version covers, by the names of the package:
    #: ``{"data": ("loader", "synthetic"), "scoring": ("scoring", "extract")}``; a part not
    #: named, the whole package. The code fingerprints follow the shared modules they import
    #: (docs/workflow.md, Versions and code fingerprints).
    code_modules: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    #: Whether scoring reads the mode (which answer format its prompt asked for): only then
    #: does a score identity hold the mode.
    scoring_reads_mode = False

    @property
    def metric_labels(self) -> dict[str, str]:
        """Each declared metric (a name or a pattern) -> its label."""
        return headline.labels(self.metrics)

    @property
    def accuracies(self) -> dict[str, str]:
        """The declared accuracies -> the row field of each one's 0/1 outcome."""
        return headline.accuracies(self.metrics)

    @property
    def lower_is_better(self) -> tuple[str, ...]:
        """The metrics where lower is better (names or shell-style patterns; an export says
        so, docs/export.md); every other one is better higher."""
        return headline.lower_is_better(self.metrics)

    @property
    def title(self) -> str:
        """The package's ``TITLE`` (the benchmark's name for people)."""
        return str(importlib.import_module(type(self).__module__.rpartition(".")[0]).TITLE)

    # --- data ---------------------------------------------------------------------------

    def source_files(self, task: Record, data_root: Path, task_name: str) -> dict[str, Path]:
        data = task["data"]

        def official() -> dict[str, Path]:
            return {role: require(data.get(f.setting), task_name, f.description, f.where,
                                  f"tasks.{task_name}.data.{f.setting}", self.title)
                    for role, f in self.official_files.items()}

        return demo_or_official(task, task_name, data_root, dict(self.demo_files), official)

    def source_tiers(self, task: Record, sources: Mapping[str, Path]) -> dict[str, str]:
        """The least data-access tier of each official source file (``source_files``, by
        role): its ``official_files`` entry's ``tier``."""
        return {role: self.official_files[role].tier if role in self.official_files
                else "public" for role in sources}

    def write_demo(self, task: Record, sources: dict[str, Path]) -> None:
        raise NotImplementedError

    def read_examples(self, task: Record, sources: dict[str, Path]) -> list[Record]:
        """The examples of the task's source files, each with a stable ``id``."""
        raise NotImplementedError

    def derive(self, task: Record, sources: dict[str, Path]) -> tuple[list[Record], list[Record]]:
        """The examples, with ``exemplars.count`` (else ``paper_exemplars``) held out of them
        by seeded rank (``exemplars.seed``) as the exemplar pool."""
        count = exemplar_count(task, self.paper_exemplars)
        examples = self.read_examples(task, sources)
        if not count:
            return examples, []
        return hold_out(examples, count, int((task.get("exemplars") or {}).get("seed", 0)))

    # --- prompts ------------------------------------------------------------------------

    def style(self, mode: Record) -> str:
        """The templates' answer style of ``mode``: ``reasoning`` or ``direct``."""
        return "reasoning" if mode["reasoning"] else "direct"

    def templates_for(self, templates: Record, example: Record) -> Record:
        """The templates ``example`` is rendered with (one set for every example)."""
        return templates

    def prompt_values(self, example: Record) -> dict[str, str]:
        """The values a template's ``{name}`` placeholders take from an example."""
        return {name: str(value) for name, value in example.items() if isinstance(value, str)}

    def answer_values(self, exemplar: Record) -> dict[str, str]:
        """The values the ``answer`` template (an exemplar's assistant turn) takes."""
        return self.prompt_values(exemplar)

    def exemplars_for(self, task: Record, mode: Record, example: Record,
                      exemplars: list[Record]) -> list[Record]:
        """The exemplars ``example``'s request shows: the first of the pool."""
        count = shown_exemplars(task, mode, self.paper_exemplars)
        if len(exemplars) < count:
            raise ValueError(f"{self.title}: {count} exemplar(s) requested, {len(exemplars)} "
                             "available (tasks.<task>.exemplars.count)")
        return exemplars[:count]

    def render(self, templates: Record, style: str, example: Record,
               exemplars: list[Record]) -> list[dict[str, str]]:
        """System message, exemplar turns (user, assistant), the example's user message."""
        answer_format = templates["answer_format"][style]
        messages = [{"role": "system",
                     "content": fill(templates["system"], {"answer_format": answer_format})}]
        for exemplar in exemplars:
            turn = {**self.prompt_values(exemplar), "answer_format": answer_format}
            messages.append({"role": "user", "content": fill(templates["user"], turn)})
            messages.append({"role": "assistant",
                             "content": fill(templates["answer"], self.answer_values(exemplar))})
        user = {**self.prompt_values(example), "answer_format": answer_format}
        messages.append({"role": "user", "content": fill(templates["user"], user)})
        return messages

    def build_requests(self, task: Record, mode: Record, templates: Record,
                       examples: list[Record], exemplars: list[Record],
                       prompt_kind: str = "chat") -> list[Record]:
        """One request per example (:meth:`render`); for prompt kind ``completion`` the
        messages' texts joined by blank lines, as one prompt to continue."""
        leaked = sorted({e["id"] for e in examples} & {e["id"] for e in exemplars})
        if leaked:
            raise ValueError(f"{self.title} exemplar id(s) {leaked[:5]} are also evaluated "
                             "examples")
        style, completion = self.style(mode), prompt_kind == "completion"
        requests = []
        for example in examples:
            chosen = self.exemplars_for(task, mode, example, exemplars)
            messages = self.render(self.templates_for(templates, example), style, example,
                                   chosen)
            if completion:
                messages = [{"role": "user",
                             "content": "\n\n".join(m["content"] for m in messages)}]
            requests.append(request_record(example["id"], messages, [e["id"] for e in chosen],
                                           completion=completion))
        return requests

    def input_fields(self, example: Record) -> dict[str, str]:
        return {name: example[name] for name in self.truncatable}

    def with_fields(self, example: Record, fields: dict[str, str]) -> Record:
        return {**example, **fields}

    def prompt_inputs(self, example: Record, user: str) -> list[str]:
        """The example's own texts as the final user message ``user`` shows them (what is not
        the instruction): by default its fields' strings found there
        (:func:`clineval.metrics.copying.shown_inputs`)."""
        return copying.shown_inputs(example, user)

    def restated_texts(self, example: Record) -> list[str]:
        """None by default: every word an output shares with the prompt may be a copy."""
        return []

    # --- scoring ------------------------------------------------------------------------

    def baseline(self, name: str, task: Record, examples: list[Record]) -> Callable[[Record], str]:
        raise ConfigError(f"{self.title} has no baseline {name!r}; it has "
                          f"{', '.join(self.baselines) or 'none'}")

    def scoring_inputs(self, task: Record, task_name: str, data_root: Path) -> dict[str, Path]:
        return {}

    def derived_scoring_inputs(self, task: Record) -> dict[str, DerivedInput]:
        """None: scoring reads its inputs as they are."""
        return {}

    def derive_scoring_input(self, role: str, settings: Record, inputs: dict[str, Path],
                             out: Path) -> Record:
        raise NotImplementedError(f"{self.name} derives no scoring input ({role})")

    def score_row(self, task: Record, example: Record, output: str) -> Record:
        """One example's score row (its ``id``, and ``answered`` where it applies)."""
        raise NotImplementedError

    def score(self, task: Record, examples: list[Record], generations: list[Record]
              ) -> tuple[list[Record], Record]:
        outputs = {g["id"]: g["output"] for g in generations}
        missing = [e["id"] for e in examples if e["id"] not in outputs]
        if missing:
            raise ValueError(f"{self.title}: no output for example(s) {missing[:5]}")
        rows = [self.score_row(task, e, outputs[e["id"]])
                for e in progress(examples, f"{self.title} scoring", unit="examples")]
        return rows, self.summarize_rows(task, rows)

    def answered(self, row: Record) -> bool | None:
        return row.get("answered")

    def reading(self, row: Record, example: Record) -> Reading:
        """The default reading (:func:`clineval.benchmarks.base.reading.standard`): right or
        wrong by the row's ``correct``, unanswered where :meth:`answered` says so."""
        return standard(row, example, self.answered(row))

    def summarize_rows(self, task: Record, rows: list[Record]) -> Record:
        """``n`` and each headline value (``metrics``), from the declared aggregates; where
        some row reads otherwise under the paper's literal reading, that reading's summary
        too (``literal``)."""
        summary = self._summary(task, rows)
        literal = literal_rows(rows)
        if literal is not None:
            summary["literal"] = self._summary(task, literal)
        return summary

    def headline_aggregates(self, task: Record, rows: list[Record]) -> aggregate.Headline:
        """Each declared metric's aggregate, in the order declared."""
        undeclared = [m.name for m in self.metrics if m.aggregate is None]
        if undeclared or not self.metrics:
            raise NotImplementedError(
                f"{self.title}: metric(s) {', '.join(undeclared) or '(none)'} declare no "
                "aggregate; declare one for each or override headline_aggregates")
        return {m.name: aggregate.Shown(m.aggregate) for m in self.metrics
                if m.aggregate is not None}

    def _summary(self, task: Record, rows: list[Record]) -> Record:
        declared = self.headline_aggregates(task, rows)
        values = aggregate.values({k: shown.aggregate for k, shown in declared.items()}, rows)
        return {"n": len(rows), "metrics": values}

    def headline(self, summary: Record) -> dict[str, float | None]:
        return dict(summary["metrics"])

    def headline_source(self, key: str, summary: Record) -> Record:
        """The whole cell: a headline number's link names no part of it."""
        return {}

    def outcomes(self, task: Record, rows: list[Record]) -> dict[str, dict[str, int]]:
        """Each declared accuracy's 0/1 outcome per example (its row field)."""
        return {name: {row["id"]: int(bool(row[key])) for row in rows}
                for name, key in self.accuracies.items()}

    # --- tables -------------------------------------------------------------------------

    def data_note(self, task: Record) -> str:
        """Where the table's numbers come from: the synthetic demo or the official files."""
        if task["data"]["source"] == "demo":
            return (f"Data: synthetic demo in {self.title}'s official format, not the "
                    "paper's data.")
        return f"Data: {self.title} {task['version']} from the official files."

    def table(self, spec: Record, cells: list[Record], tasks: dict[str, Record]) -> Table:
        """The headline ``metrics`` by model and mode (:mod:`clineval.tables.by_mode`)."""
        if len(tasks) != 1:
            raise ConfigError(f"a {self.title} table shows one task, not {', '.join(tasks)}")
        task = next(iter(tasks.values()))
        shown = {name: headline.label(self.metrics, name) for name in spec["metrics"]}
        return by_mode.build_table(spec, cells, self.headline, shown,
                                   [self.data_note(task), *spec.get("context_notes", [])],
                                   task["display_name"])

    def table_warnings(self, name: str, spec: Record, tasks: dict[str, Record]) -> list[str]:
        """None: every column of the benchmark's tables can be filled."""
        return []

    # --- clineval score <name> ----------------------------------------------------------

    def add_score_arguments(self, parser: argparse.ArgumentParser) -> None:
        external_scoring.add_arguments(parser, self.title)

    def score_external(self, args: argparse.Namespace) -> int:
        return external_scoring.score(self, args)
