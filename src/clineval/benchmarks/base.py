"""The interface every benchmark package implements for the workflow."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from clineval.provenance.hashing import sha256_obj

Record = dict[str, Any]


def request_record(
    example_id: str, messages: list[dict[str, str]], exemplar_ids: list[str]
) -> Record:
    """One rendered request as the workflow stores it (``truncation`` set by the requests step)."""
    return {
        "id": example_id,
        "messages": messages,
        "exemplar_ids": exemplar_ids,
        "truncation": None,
        "request_sha": sha256_obj(messages),
    }


class Benchmark(Protocol):
    """A benchmark: official data -> examples -> requests -> scores -> its tables."""

    name: str
    #: Bump when the loader or the demo generator changes, so derived data is rebuilt.
    data_version: str
    #: Bump when scoring logic changes, so stored scores are recomputed.
    scoring_version: str
    #: The names a baseline model may give (``baseline:``); it runs only this benchmark's tasks.
    baselines: tuple[str, ...]

    def source_files(self, task: Record, data_root: Path, task_name: str) -> dict[str, Path]:
        """Files the derive step reads: the official files, or the demo files to generate.

        Raise ``FileNotFoundError`` (its message: which file, where to get it, which setting)
        when an official file is missing: the plan then skips the task and runs the rest.
        """

    def write_demo(self, task: Record, sources: dict[str, Path]) -> None:
        """Generate the synthetic demo sources in the official formats."""

    def derive(self, task: Record, sources: dict[str, Path]) -> tuple[list[Record], list[Record]]:
        """Official files -> (examples with stable ``id``, exemplars with stable ``id``)."""

    def build_requests(
        self,
        task: Record,
        mode: Record,
        templates: Record,
        examples: list[Record],
        exemplars: list[Record],
    ) -> list[Record]:
        """Render each example as chat ``messages`` (plus ``exemplar_ids``)."""

    def input_fields(self, example: Record) -> dict[str, str]:
        """The example's input texts that context truncation may shorten (never instructions)."""

    def with_fields(self, example: Record, fields: dict[str, str]) -> Record:
        """``example`` with its input texts replaced by ``fields`` (shortened ones)."""

    def baseline(self, name: str, task: Record, examples: list[Record]) -> Callable[[Record], str]:
        """A non-model baseline over the task's ``examples``: example -> raw output text."""

    def score(
        self, task: Record, examples: list[Record], generations: list[Record]
    ) -> tuple[list[Record], Record]:
        """Per-example score rows and the cell summary."""

    def headline(self, summary: Record) -> dict[str, float | None]:
        """A cell's headline numbers (DVC metrics), named ``<metric>`` or ``<part>.<metric>``."""

    def table(self, spec: Record, cells: list[Record], tasks: dict[str, Record]) -> Any:
        """Build a table (``clineval.tables.render.Table``) from scored cells of ``tasks``.

        Each cell carries its ``model``, ``task``, ``mode`` and ``summary``; ``tasks`` maps the
        table's task names to their settings.
        """
