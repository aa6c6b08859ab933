"""The scorer's agreement with graders (``clineval agreement``, the report's "Agreement with
graders" section; docs/report.md, Graders in the loop).

Each grade (:mod:`clineval.report.grades`) is set against its cell as the results stand now
(:class:`CellNow`): a grade whose cell, example, output hash or scoring identity does not match
them is stale, listed with its reason and never counted. The others are counted per benchmark
and per cell: the grade agrees when its verdict is the scorer's verdict under the grade's
reading. Where two graders graded the same example and reading, Cohen's κ between them is
given for each pair of graders.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from itertools import combinations
from pathlib import Path
from urllib.parse import quote

from clineval.benchmarks import get_benchmark, title
from clineval.io import read_identity
from clineval.metrics.agreement import cohen_kappa
from clineval.report import examples as data
from clineval.report.grades import Grade, output_sha256


@dataclass(frozen=True)
class CellFiles:
    """One cell's files that a grade is checked against: its scoring identity, examples,
    generations and score rows."""

    cell: str
    identity: Path
    examples: Path
    generations: Path
    rows: Path


@dataclass(frozen=True)
class CellNow:
    """A cell as its results stand now: its benchmark, scoring identity and, per scored
    example, its output's hash and the scorer's verdict per reading (the first reading's
    under a reading the example has none of, as the explorer shows it)."""

    cell: str
    benchmark: str
    scoring: str
    outputs: dict[str, str]
    verdicts: dict[str, dict[str, str]]

    def verdict(self, example: str, reading: str) -> str:
        found = self.verdicts[example]
        return found.get(reading, next(iter(found.values())))


def cell_now(files: CellFiles) -> CellNow:
    """Read one cell's files (:func:`clineval.report.examples.read_cell`, no prompts)."""
    sha, scoring = read_identity(files.identity)
    # without prompts no request is read: the generations stand in for the requests' file
    cell = data.read_cell(files.cell, scoring["benchmark"], scoring["task"],
                          data.CellFiles(files.examples, files.generations, files.generations,
                                         files.rows), prompts=False)
    bench = get_benchmark(cell.benchmark)
    verdicts = {}
    for row in cell.rows:
        reading = bench.reading(row, cell.examples[row["id"]])
        verdicts[str(row["id"])] = {j.name: j.verdict for j in reading.judgements}
    outputs = {str(i): output_sha256(str(g["output"])) for i, g in cell.generations.items()}
    return CellNow(files.cell, cell.benchmark, sha, outputs, verdicts)


@dataclass(frozen=True)
class Counted:
    """A grade counted: the scorer's verdict beside it and the cell's benchmark."""

    grade: Grade
    scorer: str
    benchmark: str

    @property
    def agrees(self) -> bool:
        return self.grade.verdict == self.scorer


@dataclass
class Agreement:
    """The grades counted and the stale ones (each with its reason)."""

    counted: list[Counted] = field(default_factory=list)
    stale: list[tuple[Grade, str]] = field(default_factory=list)


def stale_reason(grade: Grade, now: CellNow | None) -> str | None:
    """Why ``grade`` no longer fits the results (None: it fits)."""
    if now is None:
        return f"cell {grade.cell} is not among the results"
    if grade.id not in now.verdicts:
        return f"example {grade.id} is not among the cell's scored examples"
    if grade.scoring != now.scoring:
        return (f"scoring identity changed ({grade.scoring[:12]} graded, "
                f"{now.scoring[:12]} now)")
    if grade.output_sha256 != now.outputs.get(grade.id):
        return "the output changed since it was graded"
    return None


def compare(grades: Iterable[Grade], cells: Mapping[str, CellNow]) -> Agreement:
    """Each grade against its cell now (``cells``, by cell path)."""
    found = Agreement()
    for grade in grades:
        now = cells.get(grade.cell)
        reason = stale_reason(grade, now)
        if reason is not None or now is None:  # (stale_reason names a missing cell)
            found.stale.append((grade, reason or ""))
        else:
            found.counted.append(Counted(grade, now.verdict(grade.id, grade.reading),
                                         now.benchmark))
    return found


@dataclass(frozen=True)
class Share:
    """Grades that agree with the scorer, of those counted, under one label."""

    label: str
    agree: int
    graded: int

    @property
    def text(self) -> str:
        return f"{100 * self.agree / self.graded:.1f}" if self.graded else "–"


def shares(counted: Sequence[Counted], by: str) -> list[Share]:
    """Per benchmark (``by="benchmark"``) or per cell (``by="cell"``), in first-seen order."""
    groups: dict[str, list[Counted]] = {}
    for c in counted:
        label = title(c.benchmark) if by == "benchmark" else c.grade.cell
        groups.setdefault(label, []).append(c)
    return [Share(label, sum(c.agrees for c in found), len(found))
            for label, found in groups.items()]


@dataclass(frozen=True)
class Kappa:
    """Two graders' agreement with each other on the examples both graded."""

    a: str
    b: str
    n: int
    same: int
    kappa: float | None

    @property
    def text(self) -> str:
        return "not defined" if self.kappa is None else f"{self.kappa:.3f}"


def kappas(counted: Sequence[Counted]) -> list[Kappa]:
    """Cohen's κ of each pair of graders over the examples and readings both graded."""
    by_grader: dict[str, dict[tuple[str, str, str], str]] = {}
    for c in counted:
        by_grader.setdefault(c.grade.grader, {})[c.grade.key] = c.grade.verdict
    found = []
    for a, b in combinations(sorted(by_grader), 2):
        shared = [k for k in by_grader[a] if k in by_grader[b]]
        if not shared:
            continue
        va = [by_grader[a][k] for k in shared]
        vb = [by_grader[b][k] for k in shared]
        found.append(Kappa(a, b, len(shared), sum(x == y for x, y in zip(va, vb, strict=True)),
                           cohen_kappa(va, vb)))
    return found


def example_link(prefix: str, grade: Grade) -> str:
    """The explorer page of the grade's cell at its example (``prefix``: the folder of the
    explorer's pages)."""
    return f"{prefix}/{grade.cell}.html#example-{quote(grade.id, safe='')}"


def _where(grade: Grade) -> str:
    return f"{grade.path}:{grade.line}"


def markdown(found: Agreement, prefix: str) -> str:
    """The agreement as Markdown: per benchmark, per cell, κ between graders, the
    disagreements with links to their examples (``prefix``: the explorer's folder) and the
    stale grades."""
    lines = ["## Agreement with graders", "",
             f"{len(found.counted)} grades counted, {len(found.stale)} stale (not counted).", ""]
    for heading, by in (("benchmark", "benchmark"), ("cell", "cell")):
        lines += [f"| {heading} | graded | agree | agree (%) |", "|:---|---:|---:|---:|"]
        lines += [f"| {s.label} | {s.graded} | {s.agree} | {s.text} |"
                  for s in shares(found.counted, by)]
        lines.append("")
    pairs = kappas(found.counted)
    if pairs:
        lines += ["| graders | both graded | same verdict | Cohen's κ |", "|:---|---:|---:|---:|"]
        lines += [f"| {k.a} · {k.b} | {k.n} | {k.same} | {k.text} |" for k in pairs]
        lines.append("")
    wrong = [c for c in found.counted if not c.agrees]
    lines.append(f"### Disagreements ({len(wrong)})")
    lines += [f"- [{c.grade.cell} {c.grade.id}]({example_link(prefix, c.grade)}), reading "
              f"{c.grade.reading}: scorer {c.scorer}, {c.grade.grader} {c.grade.verdict}"
              + (f": {c.grade.note}" if c.grade.note else "") for c in wrong]
    if found.stale:
        lines += ["", f"### Stale grades ({len(found.stale)}, not counted)"]
        lines += [f"- {_where(g)} ({g.cell} {g.id}, {g.grader}): {why}"
                  for g, why in found.stale]
    return "\n".join(lines) + "\n"


def _table(heading: str, rows: Sequence[Share]) -> list[str]:
    return ["<table>", f"<caption>Per {heading}</caption>",
            f"<thead><tr><th>{heading.capitalize()}</th><th>Graded</th><th>Agree</th>"
            "<th>Agree (%)</th></tr></thead>", "<tbody>",
            *(f"<tr><td>{escape(s.label)}</td><td>{s.graded}</td><td>{s.agree}</td>"
              f"<td>{s.text}</td></tr>" for s in rows), "</tbody></table>"]


def html(found: Agreement, prefix: str) -> list[str]:
    """The report's section body: what :func:`markdown` says, as HTML (every text escaped)."""
    lines = [f"<p>{len(found.counted)} grades counted, {len(found.stale)} stale (their output "
             "or scoring identity changed since they were graded: not counted). A grade agrees "
             "when its verdict is the scorer's under the reading graded.</p>",
             *_table("benchmark", shares(found.counted, "benchmark")),
             *_table("cell", shares(found.counted, "cell"))]
    pairs = kappas(found.counted)
    if pairs:
        lines += ["<table>", "<caption>Graders with each other</caption>",
                  "<thead><tr><th>Graders</th><th>Both graded</th><th>Same verdict</th>"
                  "<th>Cohen's κ</th></tr></thead>", "<tbody>",
                  *(f"<tr><td>{escape(k.a)} · {escape(k.b)}</td><td>{k.n}</td><td>{k.same}"
                    f"</td><td>{k.text}</td></tr>" for k in pairs), "</tbody></table>"]
    wrong = [c for c in found.counted if not c.agrees]
    lines.append(f"<h3>Disagreements ({len(wrong)})</h3>")
    if wrong:
        lines += ["<ul>", *(
            f'<li><a href="{escape(example_link(prefix, c.grade))}">{escape(c.grade.cell)} '
            f"{escape(c.grade.id)}</a>, reading {escape(c.grade.reading)}: scorer "
            f"{escape(c.scorer)}, {escape(c.grade.grader)} {escape(c.grade.verdict)}"
            + (f": {escape(c.grade.note)}" if c.grade.note else "") + "</li>"
            for c in wrong), "</ul>"]
    if found.stale:
        lines += [f"<h3>Stale grades ({len(found.stale)})</h3>", "<ul>", *(
            f"<li>{escape(_where(g))} ({escape(g.cell)} {escape(g.id)}, {escape(g.grader)}): "
            f"{escape(why)}</li>" for g, why in found.stale), "</ul>"]
    return lines
