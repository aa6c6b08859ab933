"""The scores of a benchmark with every default (:class:`.standard.StandardBenchmark`):
:meth:`~StandardScoring.score_row` over every example, the summary from the headline metrics'
declared aggregates (:mod:`.headline`), the paired tests' outcomes from the declared
accuracies (a metric's ``outcome``)."""

from __future__ import annotations

from typing import ClassVar

from clineval.benchmarks.base import DeclaredAggregates, headline, literal_rows
from clineval.benchmarks.base.headline import Metric
from clineval.benchmarks.base.reading import Reading, standard
from clineval.io import Record
from clineval.metrics import aggregate
from clineval.progress import progress


class StandardScoring(DeclaredAggregates):
    """The scoring members of :class:`.standard.StandardBenchmark`, with their defaults."""

    title: str
    #: The headline metrics, each declared once (:mod:`clineval.benchmarks.base.headline`):
    #: labels, accuracies, lower-is-better and every metric choice derive from them.
    metrics: ClassVar[tuple[Metric, ...]] = ()

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
