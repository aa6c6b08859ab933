"""``clineval audit``: walk each table back to its data by hashes and recompute its scores.

For every table the chain is checked from the top, and the first link that does not hold is
reported (the file, what was recorded, what is there now):

    table files ← table record ← score summaries ← score records ← generations ← requests ←
    derived data ← source files
                                                   score records ← files derived for scoring

A link holds when the downstream record names the plan's identity for its artifact and the
sha256 it recorded for each file equals the file's sha256 now. Then the scores are recomputed
from the stored generations and compared with the stored rows and summaries, and the table is
re-rendered from the stored summaries and compared byte for byte. A figure's record must name
the plan's identity and the current bytes of its tables' files, and the figure is drawn again
from them and compared byte for byte (drawing is deterministic).

Results built by code that has changed since, with the same versions, are noted per table and
figure with the changed modules (:mod:`clineval.workflow.plan.code_changes`); they fail nothing by
themselves: where the change alters scores or a table, recomputing them fails.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clineval.io import DataError, json_text, jsonl_line, read_json, read_jsonl
from clineval.provenance.hashing import canonical_json
from clineval.provenance.location import portable
from clineval.provenance.record import FileHashes, changed_files, read_record
from clineval.workflow.plan import code_changes
from clineval.workflow.plan.build import build_plan
from clineval.workflow.plan.code_changes import Finding
from clineval.workflow.plan.jobs import figure as figure_step
from clineval.workflow.plan.jobs import report as report_step
from clineval.workflow.plan.jobs import table as table_step
from clineval.workflow.plan.layout import Cell, Plan


def as_stored(identity: dict[str, Any]) -> dict[str, Any]:
    """An identity as a step reads it back from its file (canonical JSON: keys sorted), so that
    recomputing iterates every mapping in the order the step did."""
    return json.loads(canonical_json(identity))


#: what a missing artifact's message says to do (docs/workflow.md: missing files)
RESTORE = ("`snakemake all_tables` with the same overrides rebuilds it (`dvc checkout` where DVC "
           "tracks the run)")


class BrokenLink(Exception):
    """One link of the chain does not hold; the message says which and why."""


@dataclass
class TableAudit:
    """One table's audit (``kind`` "figure": one figure's, ``cells``: its tables; "report":
    the HTML report's, ``cells``: the tables it shows)."""

    table: str
    cells: int = 0
    checked: list[str] = field(default_factory=list)
    broken: str | None = None
    notes: list[str] = field(default_factory=list)
    kind: str = "table"
    #: Its results built by code that differs from the code now (the versions the same).
    code: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.broken is None


def _record(
    path: Path, identity: str, what: str, hashes: FileHashes | None = None
) -> dict[str, Any]:
    """Read a record and check it was made for the plan's identity of ``what``; when it was
    not, name the input files that changed since (``hashes`` given)."""
    if not path.is_file():
        raise BrokenLink(f"{what}: no provenance record {path}: the artifact is missing or "
                         f"its job did not finish; {RESTORE}")
    try:
        record = read_record(path)
    except DataError as err:
        raise BrokenLink(f"{what}: {err}") from err
    if record["identity"] != identity:
        changed = changed_files(record["inputs"], hashes) if hashes else []
        if changed:
            role, recorded, current = changed[0]
            now = "is missing" if current is None else f"has sha256 {current[:16]}"
            raise BrokenLink(
                f"{what}: {record['inputs'][role]['path']} ({role}) {now}, but {path} recorded "
                f"{recorded[:16]} when it read it: the file changed since the run, so the "
                "artifact is out of date (run snakemake all_tables)"
            )
        raise BrokenLink(
            f"{what}: {path} was built for identity {record['identity'][:16]}, the config now "
            f"gives {identity[:16]}: the artifact is out of date (run snakemake all_tables)"
        )
    return record


def _files(
    record: dict[str, Any], side: str, path: Path, what: str, hashes: FileHashes
) -> None:
    """Every file the record lists on ``side`` still has its recorded sha256."""
    for role, recorded, current in changed_files(record[side], hashes):
        file = record[side][role]["path"]
        if current is None:
            raise BrokenLink(f"{what}: {file} ({role}) is missing; {RESTORE}")
        now = f"has sha256 {current[:16]}"
        raise BrokenLink(
            f"{what}: {file} ({role}) {now}, but {path} recorded {recorded[:16]} when it "
            f"{'read' if side == 'inputs' else 'wrote'} it: the file changed afterwards"
        )


def _expect(record: dict[str, Any], side: str, role: str, path: Path, what: str) -> None:
    """The record names ``path`` as its ``role`` file (it was made from the plan's file)."""
    entry = record[side].get(role)
    if entry is None or entry["path"] != portable(path):
        found = entry["path"] if entry else "nothing"
        raise BrokenLink(f"{what}: the record lists {found} as {role}, the plan expects {path}")


def _check_cell(
    plan: Plan, cell: Cell, summary_path: Path, audit: TableAudit, hashes: FileHashes
) -> None:
    key = cell.path
    ids = plan.identities
    scores = _record(plan.record_file("scores", key), ids[f"{key}/scoring"]["sha"],
                     f"scores {key}", hashes)
    for role, path in plan.scoring_inputs(cell.task).items():
        _expect(scores, "inputs", role, path, f"scores {key} ← scoring inputs")
    for role in plan.derived_inputs(cell.task):
        what = f"scores {key} ← {role} of {cell.task}"
        record_path = plan.record_file("scoring_input", f"{cell.task}/{role}")
        derived = _record(record_path, ids[f"inputs/{cell.task}/{role}"]["sha"], what, hashes)
        _files(derived, "outputs", record_path, what, hashes)
    _expect(scores, "outputs", "summary", summary_path, f"scores {key}")
    _files(scores, "outputs", plan.record_file("scores", key), f"scores {key}", hashes)
    generations = plan.artifact("generations", cell)
    _expect(scores, "inputs", "generations", generations, f"scores {key} ← generations")
    _expect(scores, "inputs", "requests", plan.artifact("requests", cell),
            f"scores {key} ← requests")
    _files(scores, "inputs", plan.record_file("scores", key),
           f"scores {key} ← generations and requests", hashes)
    meta_path = plan.record_file("generation", key)
    meta = _record(meta_path, ids[f"{key}/generation"]["sha"], f"generations {key}", hashes)
    _files(meta, "outputs", meta_path, f"generations {key}", hashes)
    requests = plan.artifact("requests", cell)
    _expect(meta, "inputs", "requests", requests, f"generations {key} ← requests")
    _files(meta, "inputs", meta_path, f"generations {key} ← requests", hashes)
    by_id = {r["id"]: r["request_sha"] for r in read_jsonl(requests, ("id", "request_sha"))}
    for number, gen in enumerate(read_jsonl(generations, ("id", "request_sha")), start=1):
        if by_id.get(gen["id"]) != gen["request_sha"]:
            raise BrokenLink(f"generations {key} ← requests: {generations}, row {number}, "
                             f"field 'request_sha' does not match the request {gen['id']!r}")
    req_path = plan.record_file("requests", key)
    req = _record(req_path, ids[f"{key}/requests"]["sha"], f"requests {key}", hashes)
    _files(req, "outputs", req_path, f"requests {key}", hashes)
    derived = plan.derived(cell.task)
    for role in ("examples", "exemplars"):
        _expect(req, "inputs", role, derived[role], f"requests {key} ← data")
    _files(req, "inputs", req_path, f"requests {key} ← data", hashes)
    audit.checked.append(key)


def _check_data(plan: Plan, task: str, audit: TableAudit, hashes: FileHashes) -> None:
    path = plan.record_file("data", task)
    record = _record(path, plan.identities[f"data/{task}"]["sha"], f"data {task}", hashes)
    _files(record, "outputs", path, f"data {task}", hashes)
    for role, recorded, current in changed_files(record["inputs"], hashes):
        file = record["inputs"][role]["path"]
        if current is None and record.get("credentialed"):
            audit.notes.append(f"data {task}: source {file} is not here (credentialed data "
                               "stays with its owner); the derived files were checked")
            continue
        now = "is missing" if current is None else f"has sha256 {current[:16]}"
        raise BrokenLink(f"data {task} ← sources: {file} ({role}) {now}, but {path} recorded "
                         f"{recorded[:16]}")


def _recompute(plan: Plan, cells: list[Cell], stored: dict[str, Any], name: str,
               rescored: set[str]) -> None:
    """Score every cell again from its stored generations, except those in ``rescored`` (cells
    this audit has already scored again identically, for another table); re-render the
    table."""
    from clineval.workflow.steps.entry import scored_cell, table_texts, with_prompts

    for cell in (c for c in cells if c.path not in rescored):
        scoring = plan.identities[f"{cell.path}/scoring"]
        sha, ident = scoring["sha"], as_stored(scoring["identity"])
        examples = read_jsonl(plan.derived(cell.task)["examples"], ("id",))
        gens = with_prompts(read_jsonl(plan.artifact("generations", cell), ("id", "output")),
                            read_jsonl(plan.artifact("requests", cell), ("id", "messages")),
                            plan.artifact("requests", cell))
        rows, document = scored_cell(sha, ident, examples, gens, plan.artifact("generations", cell),
                                     plan.scoring_inputs(cell.task))
        for path, text in ((plan.artifact("scores", cell), "".join(map(jsonl_line, rows))),
                           (plan.artifact("scores", cell, ".json"), json_text(document))):
            if path.read_text(encoding="utf-8") != text:
                raise BrokenLink(f"recomputed scores {cell.path}: {path} differs from the "
                                 "scores computed again from the stored generations")
        rescored.add(cell.path)
    rows = {c.path: read_jsonl(plan.artifact("scores", c), ("id",)) for c in cells}
    texts = table_texts(as_stored(plan.identities[f"tables/{name}"]["identity"]),
                        [stored[c.path] for c in cells], rows)
    outputs = [*table_step.table_files(plan, name), table_step.metrics_file(plan, name)]
    for (fmt, text), path in zip(texts.items(), outputs, strict=True):
        if path.read_text(encoding="utf-8") != text:
            raise BrokenLink(f"re-rendered table {name}: {path} differs from the {fmt} built "
                             "from the stored score summaries")


def _check_code(plan: Plan, keys: list[str], audit: TableAudit) -> None:
    """Note the results of ``keys`` whose recorded code differs from the code now, and how many
    have no record of their code."""
    audit.code = code_changes.stale(plan, keys)
    missing = [key for key in keys if code_changes.recorded(plan, key) is None]
    if missing:
        audit.notes.append(f"{len(missing)} of its {len(keys)} results have no record of their "
                           "code (built before code fingerprints, or pulled: results/identity/ "
                           "stays with the run that built them)")


def _code_keys(plan: Plan, name: str) -> list[str]:
    """The table's results that record their code: the table, its cells' scores, their tasks'
    derived data and files derived for scoring."""
    cells = plan.tables[name]
    tasks = sorted({c.task for c in cells})
    return [f"tables/{name}", *(f"{c.path}/scoring" for c in cells),
            *(f"data/{task}" for task in tasks),
            *(f"inputs/{task}/{role}" for task in tasks for role in plan.derived_inputs(task))]


def audit_table(plan: Plan, name: str, rehash: bool = False,
                rescored: set[str] | None = None) -> TableAudit:
    """Check one table's chain; ``rehash`` reads every source file again instead of trusting
    the hash recorded for its size and modification time. ``rescored``: the cells whose scores
    were computed again identically for an earlier table of the same audit (the files are
    still checked against their records), to which this table's are added."""
    result = TableAudit(name, cells=len(plan.tables[name]))
    hashes = FileHashes(None if rehash else plan.file_hashes)
    try:
        record_path = plan.record_file("table", name)
        record = _record(record_path, plan.identities[f"tables/{name}"]["sha"], f"table {name}",
                         hashes)
        _files(record, "outputs", record_path, f"table {name}", hashes)
        cells = plan.tables[name]
        for cell in cells:
            _expect(record, "inputs", cell.path, plan.artifact("scores", cell, ".json"),
                    f"table {name} ← scores")
            _expect(record, "inputs", f"{cell.path}:rows", plan.artifact("scores", cell),
                    f"table {name} ← score rows")
        _files(record, "inputs", record_path, f"table {name} ← scores", hashes)
        for cell in cells:
            _check_cell(plan, cell, plan.artifact("scores", cell, ".json"), result, hashes)
        for task in sorted({c.task for c in cells}):
            _check_data(plan, task, result, hashes)
        stored = {c.path: read_json(plan.artifact("scores", c, ".json")) for c in cells}
        _recompute(plan, cells, stored, name, set() if rescored is None else rescored)
    except (BrokenLink, DataError) as err:
        result.broken = str(err)
    _check_code(plan, _code_keys(plan, name), result)
    return result


def audit_report(plan: Plan) -> TableAudit:
    """Check the HTML report: its record names the plan's identity, every table Markdown and
    figure PNG it read still has its recorded hash, and rendering again from them (with the
    recorded code state) gives the page byte for byte."""
    from clineval.report.step import report_text
    from clineval.workflow.plan.grades import report_grades

    result = TableAudit("report", cells=len(plan.tables), kind="report")
    hashes = FileHashes(plan.file_hashes)
    try:
        path = plan.record_file("report", "index")
        ident = plan.identities["report/index"]
        record = _record(path, ident["sha"], "report", hashes)
        _expect(record, "outputs", "html", report_step.page(plan), "report")
        _files(record, "outputs", path, "report", hashes)
        tables, figures = report_step.sources(plan)
        for role, file in [*((f"table:{n}", p) for n, p in tables.items()),
                           *((f"figure:{n}", p) for n, p in figures.items())]:
            _expect(record, "inputs", role, file, "report ← tables and figures")
        _files(record, "inputs", path, "report ← tables and figures", hashes)
        links = report_step.table_links(plan)
        for name, file in links.items():
            _expect(record, "inputs", f"cells:{name}", file, "report ← tables' cells")
        grades, graded = report_grades(plan)
        text = report_text(as_stored(ident["identity"]), tables, figures, links, record["code"],
                           path, grades, graded)
        if report_step.page(plan).read_text(encoding="utf-8") != text:
            raise BrokenLink(f"re-rendered report: {report_step.page(plan)} differs from the page "
                             "built from the recorded tables and figures")
        result.checked = list(plan.tables)
    except (BrokenLink, DataError) as err:
        result.broken = str(err)
    return result


def audit_figure(plan: Plan, name: str) -> TableAudit:
    """Check one figure's record against its tables' files and draw it again."""
    from clineval.figures.data import read_tables
    from clineval.figures.draw import render

    result = TableAudit(name, cells=len(plan.figures[name]), kind="figure")
    hashes = FileHashes()
    try:
        record_path = plan.record_file("figure", name)
        record = _record(record_path, plan.identities[f"figures/{name}"]["sha"],
                         f"figure {name}", hashes)
        _files(record, "outputs", record_path, f"figure {name}", hashes)
        inputs = figure_step.inputs(plan, name)
        for path in inputs:
            _expect(record, "inputs", path.name, path, f"figure {name} ← tables")
        _files(record, "inputs", record_path, f"figure {name} ← tables", hashes)
        drawn = render(as_stored(plan.identities[f"figures/{name}"]["identity"]),
                       read_tables(inputs))
        for fmt, path in zip(drawn, figure_step.figure_files(plan, name), strict=True):
            if path.read_bytes() != drawn[fmt]:
                raise BrokenLink(f"re-drawn figure {name}: {path} differs from the {fmt} drawn "
                                 "again from the stored tables")
    except (BrokenLink, DataError) as err:
        result.broken = str(err)
    _check_code(plan, [f"figures/{name}"], result)
    return result


def audit(
    conf: Path, overrides: str | Sequence[str], results: Path, data: Path,
    names: Sequence[str] = (),
    rehash: bool = False, report: bool = False,
) -> list[TableAudit]:
    """Audit the named tables and figures of the grid (all when none are named); ``report``:
    the HTML report as well."""
    plan = build_plan(conf, overrides, results=results, data_root=data)
    unknown = [t for t in names if t not in plan.tables and t not in plan.figures]
    if unknown:
        raise DataError(conf, None, "tables",
                        f"{', '.join(unknown)} not in this grid; tables: {', '.join(plan.tables)}"
                        f"; figures: {', '.join(plan.figures) or '(none)'}")
    tables = [t for t in names if t in plan.tables] if names else list(plan.tables)
    figures = [f for f in names if f in plan.figures] if names else list(plan.figures)
    rescored: set[str] = set()  # a cell shown by several tables is scored again once
    return ([audit_table(plan, name, rehash, rescored) for name in tables]
            + [audit_figure(plan, name) for name in figures]
            + ([audit_report(plan)] if report and plan.tables else []))


def report(results: list[TableAudit], as_json: bool) -> int:
    """Print the audit; exit status 1 when any table's chain is broken."""
    if as_json:
        print(json.dumps([{r.kind: r.table, "ok": r.ok, "cells": r.cells, "broken": r.broken,
                           "notes": r.notes,
                           "code_changed": [{"result": f.key, "modules": list(f.modules)}
                                            for f in r.code]}
                          for r in results], indent=2))
    else:
        for r in results:
            if r.ok and r.kind == "report":
                print(f"ok      report: built from the {r.cells} tables' current files; "
                      "re-rendered identically")
            elif r.ok and r.kind == "figure":
                print(f"ok      {r.table}: figure ← {r.cells} table(s) holds; drawn again "
                      "identically")
            elif r.ok:
                print(f"ok      {r.table}: {r.cells} cells, chain table ← scores ← generations"
                      " ← requests ← data holds; scores and table recomputed identically")
            else:
                print(f"BROKEN  {r.table}: {r.broken}")
            for line in code_changes.lines(r.code):
                print(f"        code changed: {line}")
            for note in r.notes:
                print(f"        note: {note}")
    broken = [r.table for r in results if not r.ok]
    if broken:
        print(f"clineval audit: {len(broken)} table(s) or figure(s) failed: "
              f"{', '.join(broken)}",
              file=sys.stderr)
    return 1 if broken else 0
