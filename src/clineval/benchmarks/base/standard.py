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
from typing import Any, ClassVar

from clineval.benchmarks.base import DerivedInput, headline
from clineval.benchmarks.base import external as external_scoring
from clineval.benchmarks.base.exemplars import exemplar_count, hold_out
from clineval.benchmarks.base.headline import LeaderboardColumn
from clineval.benchmarks.base.prompting import StandardPrompts
from clineval.benchmarks.base.scoring import StandardScoring
from clineval.benchmarks.base.settings import read_own
from clineval.benchmarks.base.sources import demo_or_official, require
from clineval.errors import ConfigError
from clineval.io import Record
from clineval.tables import by_mode
from clineval.tables.render import Table


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


class StandardBenchmark(StandardPrompts, StandardScoring):
    """A benchmark with every default; the class attributes are its declarations. The prompt
    members' defaults are in :mod:`.prompting`, the scoring members' in :mod:`.scoring`."""

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
    #: The benchmark's leaderboard column; None: none.
    leaderboard: ClassVar[LeaderboardColumn | None] = None
    #: What the paper's literal reading credits that this benchmark's reading does not (copied
    #: prompt text); None where the two readings never differ. Rows where they differ carry
    #: ``literal``: the row's fields under that reading (:func:`.literal_rows`).
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
    def title(self) -> str:
        """The package's ``TITLE`` (the benchmark's name for people)."""
        return str(importlib.import_module(type(self).__module__.rpartition(".")[0]).TITLE)

    def settings(self, task: Record) -> Any:
        """The task's own settings, typed (:func:`.settings.read_own` with the ``TASK``
        schema of the package's ``settings.py``): ``self.settings(task).data.demo.n``."""
        module = importlib.import_module(type(self).__module__.rpartition(".")[0] + ".settings")
        return read_own(module.TASK, task, "task")

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
        return hold_out(examples, count, self.settings(task).exemplars.seed)

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
