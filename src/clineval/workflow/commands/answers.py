"""``clineval answers``: how a model's outputs came through, cell by cell.

For each finished cell: the examples scored, the share of prompts cut to fit the context (the
requests' ``truncation``), the share of outputs stopped by ``max_tokens`` (``finish_reason:
length``), the share ended in a repetition loop (``finish_reason: loop``, the transformers
backend's ``sampling.stop_loop``), both "not known" where no output has a known finish reason
(recorded outputs: ``finish_reason: recorded``), and the share of answers the scorer could read
under the reading the next column names (the benchmark's ``answered`` and
``answered_reading``: MedCalc-Bench's official extraction, the careful reading elsewhere; the
explorer's verdict of that reading is ``unanswered`` for exactly the others). "–" where every
output is its answer, as a summary is; where only some outputs are no answer, as a summary
replaying an exemplar's, the others count as answered. A real model's numbers are read with
these beside them: an accuracy of 0 with 0% answered is a format failure, not a knowledge
failure. The copy columns give the share of outputs that copy their prompt (each row's
``copied``, :mod:`clineval.metrics.copying`; words restating the question are no copy): the
example's own text (``input``: the note, the record, the sentence), an exemplar or its answer,
or the instruction with its format example; "–" for scores written before rows recorded it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from clineval.benchmarks import get_benchmark
from clineval.benchmarks.base import scored_rows
from clineval.inference.base import UNKNOWN_FINISH
from clineval.io import DataError, read_jsonl
from clineval.metrics.copying import KINDS
from clineval.provenance.record import read_record
from clineval.workflow.plan.layout import Cell, Plan

#: What a share shows where its figure is not known (never 0).
NOT_KNOWN = "not known"


@dataclass(frozen=True)
class CellAnswers:
    cell: str
    n: int
    cut: float
    #: None: no output's finish reason is known
    at_max_tokens: float | None
    answered: float | None
    #: ended by ``sampling.stop_loop`` in a repetition loop (not at ``max_tokens``); None: not
    #: known
    looped: float | None = 0.0
    #: per kind of copied text (:data:`~clineval.metrics.copying.KINDS`), the share of outputs
    copied: dict[str, float] | None = None
    #: the reading ``answered`` follows (the benchmark's ``answered_reading``)
    reading: str = "careful"


def _share(flags: list[bool]) -> float:
    return 100.0 * sum(flags) / len(flags) if flags else 0.0


def finish_share(reasons: list[str | None], reason: str) -> float | None:
    """The share of outputs that ended for ``reason`` among those whose finish reason is
    known; None where none is."""
    known = [r for r in reasons if r not in UNKNOWN_FINISH]
    return _share([r == reason for r in known]) if known else None


def cell_answers(plan: Plan, cell: Cell) -> CellAnswers | None:
    """The cell's shares; None while its scores are not written."""
    scores = plan.artifact("scores", cell)
    if not scores.is_file():
        return None
    bench = get_benchmark(plan.benchmark(cell.task))
    rows = scored_rows(read_jsonl(scores, ("id",)))
    ids = {row["id"] for row in rows}
    requests = [r for r in read_jsonl(plan.artifact("requests", cell), ("id",)) if r["id"] in ids]
    generations = [g for g in read_jsonl(plan.artifact("generations", cell), ("id",))
                   if g["id"] in ids]
    answered = [bench.answered(row) for row in rows]
    known = [a for a in answered if a is not None]
    copied = None
    if rows and all("copied" in row for row in rows):
        kinds = [(row["copied"] or {}).get("kind") for row in rows]
        copied = {kind: _share([k == kind for k in kinds]) for kind in KINDS}
    reasons = [g.get("finish_reason") for g in generations]
    return CellAnswers(
        cell=cell.path,
        n=len(rows),
        cut=_share([bool(r.get("truncation")) for r in requests]),
        at_max_tokens=finish_share(reasons, "length"),
        answered=_share([a is not False for a in answered]) if known else None,
        looped=finish_share(reasons, "loop"),
        copied=copied,
        reading=bench.answered_reading,
    )


def built_for_plan(plan: Plan, cell: Cell) -> bool:
    """The cell's requests, generations and scores were made for the plan's identities (each
    provenance record names the identity it was built for): a grid's folder may hold the files
    of other settings, e.g. another batch size, which the table must not pass off as these."""
    for kind, record in (("requests", "requests"), ("generation", "generation"),
                         ("scoring", "scores")):
        try:
            built = read_record(plan.record_file(record, cell.path))["identity"]
        except (OSError, DataError):
            return False
        if built != plan.identities[f"{cell.path}/{kind}"]["sha"]:
            return False
    return True


#: The copy columns, in the order a reader meets the prompt's parts.
COPY_COLUMNS = ("input", "exemplar", "instruction")


def _percent(value: float | None) -> str:
    return NOT_KNOWN if value is None else f"{value:.0f}"


def markdown(results: list[CellAnswers]) -> str:
    heads = "".join(f" copies {kind} (%) |" for kind in COPY_COLUMNS)
    lines = [f"| cell | n | cut to fit (%) | at max_tokens (%) | looped (%) | answered (%) | "
             f"answered under |{heads}",
             "|:---|---:|---:|---:|---:|---:|:---|" + "---:|" * len(COPY_COLUMNS)]
    for r in results:
        answered = "–" if r.answered is None else f"{r.answered:.0f}"
        copies = "".join(" – |" if r.copied is None else f" {r.copied[kind]:.0f} |"
                         for kind in COPY_COLUMNS)
        lines.append(f"| {r.cell} | {r.n} | {r.cut:.0f} | {_percent(r.at_max_tokens)} | "
                     f"{_percent(r.looped)} | {answered} | {r.reading} reading |{copies}")
    return "\n".join(lines) + "\n"


def report(plan: Plan, models: list[str] | None) -> tuple[str, list[str]]:
    """The Markdown table of the models' finished cells, and the cells not scored yet."""
    found, missing = [], []
    for cell in plan.cells:
        if models and cell.model not in models:
            continue
        if plan.backend(cell.model).baseline:
            continue
        result = cell_answers(plan, cell) if built_for_plan(plan, cell) else None
        if result is None:
            missing.append(cell.path)
        else:
            found.append(result)
    return markdown(found), missing


def run(conf: Path, overrides: list[str], models: list[str] | None,
        results: Path = Path("results"), data: Path = Path("data")) -> int:
    from clineval.workflow.plan.build import build_plan

    text, missing = report(build_plan(conf, overrides, results=results, data_root=data), models)
    print(text, end="")
    if missing:
        print(f"{len(missing)} cell(s) not scored yet, e.g. {missing[0]}: run snakemake "
              "all_tables first")
    return 0
