"""CliBench tables in the paper's layouts: Table 3 (diagnoses: F1 per level, average P/R/F1),
Table 4 (procedures, lab orders, prescriptions: F1 per level), Tables 10-13 (one task: P/R/F1
per level and their averages), and the breakdown by subgroup (the paper's fairness figures).

Every average is recomputed here as the plain mean of the per-level values a cell's summary
holds. Column labels are flat ("Chapter F1"); values on the paper's 0-100 scale.
"""

from __future__ import annotations

from collections.abc import Sequence

from clineval.benchmarks.base.settings import read_own
from clineval.errors import ConfigError
from clineval.io import Record
from clineval.metrics import hierarchical
from clineval.tables.format import SMOKE_MARK, fmt, smoke_note
from clineval.tables.render import Block, Table, link

from . import kinds
from .settings import TABLES, Breakdown

MODE_TITLES = {"zero_shot": "Zero-shot (the paper's setting)", "cot": "Zero-shot chain of thought",
               "one_shot": "One-shot (one exemplar admission from the training pool)"}
LAYOUTS = ("clibench_table3", "clibench_table4", "clibench_full", "clibench_breakdown")
_METRICS = (("precision", "P"), ("recall", "R"), ("f1", "F1"))


def level_values(summary: Record) -> list[hierarchical.PRF]:
    return [hierarchical.PRF(lv["precision"], lv["recall"], lv["f1"]) for lv in summary["levels"]]


def average(summary: Record) -> hierarchical.PRF:
    """The plain mean over levels of a cell's per-level values."""
    return hierarchical.mean_over_levels(level_values(summary))


def _task_of(cells: Sequence[Record], kind: str) -> list[Record]:
    return [c for c in cells if c["summary"]["task"] == kind]


def _name(cell: Record, smoke: list[str]) -> str:
    if cell["smoke"] and cell["display_name"] not in smoke:
        smoke.append(cell["display_name"])
    return cell["display_name"] + (SMOKE_MARK if cell["smoke"] else "")


def _columns(layout: str, spec: Record) -> list[tuple[str, str, str | int, str]]:
    """(header, task, level index or 'avg', metric) for each value column."""
    if layout == "clibench_table3":
        titles = kinds.kind("diagnoses").level_titles
        return [*((f"{t} F1", "diagnoses", i, "f1") for i, t in enumerate(titles)),
                *((f"Avg {short}", "diagnoses", "avg", m) for m, short in _METRICS)]
    if layout == "clibench_table4":
        prefix = {"procedures": "Proc", "labs": "Lab", "prescriptions": "Rx"}
        return [(f"{prefix[k]} {t}", k, i, "f1") for k in prefix
                for i, t in enumerate(kinds.kind(k).level_titles)]
    kind = spec.get("task_kind")
    if kind not in kinds.KINDS:
        raise ConfigError(f"table layout {layout} needs task_kind: one of {', '.join(kinds.KINDS)}")
    titles = [*kinds.kind(kind).level_titles, "Avg"]
    return [(f"{t} {short}", kind, "avg" if t == "Avg" else i, m)
            for i, t in enumerate(titles) for m, short in _METRICS]


def _value(cell: Record | None, level: str | int, metric: str) -> float | None:
    if cell is None:
        return None
    if level == "avg":
        return getattr(average(cell["summary"]), metric)
    return cell["summary"]["levels"][level][metric]


def _link(cell: Record, level: str | int, metric: str, where: dict[str, str] | None = None,
          n: int | None = None) -> list[Record]:
    """The source of a value: the cell's admissions (``where``: a subgroup's, ``n`` of them),
    the metric pooled at its level (``avg``: at every level, then their mean), as the
    explorer states it."""
    names = [lv["name"] for lv in cell["summary"]["levels"]]
    return link(cell, None, where, cell["summary"].get("n") if where is None else n,
                measure=metric, level=names if level == "avg" else [names[int(level)]])


def build_table(spec: Record, cells: list[Record], notes: list[str]) -> Table:
    layout = spec["layout"]
    if layout == "clibench_breakdown":
        return breakdown_table(spec, cells, notes)
    columns = _columns(layout, spec)
    decimals = read_own(TABLES[layout], spec, "table").decimals
    blocks, records, smoke = [], [], []
    for mode in spec["modes"]:
        in_mode = [c for c in cells if c["mode"] == mode]
        rows, sources = [], []
        for model in dict.fromkeys(c["model"] for c in in_mode):
            mine = {c["summary"]["task"]: c for c in in_mode if c["model"] == model}
            row = [_name(next(iter(mine.values())), smoke)]
            sources.append([[], *(_link(mine[kind], level, metric) if kind in mine else []
                                  for _, kind, level, metric in columns)])
            for header, kind, level, metric in columns:
                value = _value(mine.get(kind), level, metric)
                row.append("–" if kind not in mine else fmt(None if value is None
                                                             else 100 * value, decimals))
                records.append({"mode": mode, "model": model, "task": kind, "column": header,
                                "n": mine[kind]["summary"]["n"] if kind in mine else "",
                                "value": "" if value is None else f"{100 * value:.4f}"})
            rows.append(row)
        blocks.append(Block(MODE_TITLES.get(mode, mode), rows, sources))
    table_notes = ["Micro precision, recall and F1 (0-100) pooled over admissions at each level; "
                   "Avg: the plain mean of the per-level values.", *notes]
    if smoke:
        table_notes.append(smoke_note(smoke))
    return Table(spec["title"], ["Model", *(c[0] for c in columns)], blocks, table_notes,
                 records)


def breakdown_table(spec: Record, cells: list[Record], notes: list[str]) -> Table:
    """Average F1 over levels within each subgroup (``spec.group``: a key of the rows'
    ``groups``), pooled from the per-admission counts of the score rows."""
    layout = read_own(Breakdown, spec, "table")
    group, decimals, kind = layout.group, layout.decimals, layout.task_kind
    chosen = [c for c in _task_of(cells, kind) if c["mode"] in spec["modes"]]
    values = sorted({str((r.get("groups") or {}).get(group, "unknown"))
                     for c in chosen for r in c.get("rows") or []})
    blocks, records, smoke = [], [], []
    for mode in spec["modes"]:
        rows, sources = [], []
        for cell in [c for c in chosen if c["mode"] == mode]:
            if cell.get("rows") is None:
                raise ConfigError("the clibench_breakdown layout needs rows: true in its spec")
            names = [lv["name"] for lv in cell["summary"]["levels"]]
            row, origin = [_name(cell, smoke)], [[]]
            for value in values:
                counts = [[hierarchical.Counts(*c) for c in r["counts"]] for r in cell["rows"]
                          if r["counts"] is not None
                          and str((r.get("groups") or {}).get(group, "unknown")) == value]
                score = hierarchical.pooled(names, counts) if counts else None
                f1 = None if score is None else score.average.f1
                row.append("–" if score is None else fmt(100 * f1, decimals))
                origin.append([] if score is None
                              else _link(cell, "avg", "f1", {group: value}, len(counts)))
                records.append({"mode": mode, "model": cell["model"], "group": group,
                                "value_of_group": value, "n": len(counts),
                                "avg_f1": "" if f1 is None else f"{100 * f1:.4f}"})
            rows.append(row)
            sources.append(origin)
        blocks.append(Block(MODE_TITLES.get(mode, mode), rows, sources))
    table_notes = [f"Average F1 over levels (0-100) within each {group} group, {kind}.", *notes]
    if smoke:
        table_notes.append(smoke_note(smoke))
    return Table(spec["title"], ["Model", *values], blocks, table_notes, records)
