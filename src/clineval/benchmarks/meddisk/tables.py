"""MedDisK tables: Table 4 (tier shares, score, level), Table 5 (Welch t per aspect x pair), the
per-aspect scores (the data of the paper's Figures 9-10) and the tier shares per metric (Figure
4's data). One block per task and mode.

Table 5 reads the per-example rows of its cells (spec ``rows: true``); pairs come from the spec
``pairs`` (``[{medical: <model>, backbone: <model>}, ...]``, set by the grid), ``metric``
(cosine; bleu_1 and rouge_1 give the paper's Tables 13-14), ``correction`` (none, holm, bh; one
family per block) and ``alpha`` (0.05). ``*`` marks p < alpha; positive t: the medical model's
mean is higher.
"""

from __future__ import annotations

from clineval.benchmarks.base.settings import read_own
from clineval.benchmarks.meddisk.aspects import registry
from clineval.benchmarks.meddisk.settings import Aspects, Table4, Table5
from clineval.io import Record
from clineval.metrics.significance import TTest, adjust, welch
from clineval.tables.format import SMOKE_MARK, fmt, smoke_note
from clineval.tables.render import Block, Table, link

MODE_TITLES = {"one_shot": "five demonstrations (the paper's setting)",
               "zero_shot": "no demonstrations (not the paper's setting)"}
_TEST_FIELDS = ("t", "df", "p", "mean_a", "mean_b", "n_a", "n_b")
METRIC_NAMES = {"cosine": "embedding cosine", "bleu_1": "BLEU-1", "rouge_1": "ROUGE-1 F1"}


def _name(cell: Record) -> str:
    return cell["display_name"] + (SMOKE_MARK if cell["smoke"] else "")


def _mean_link(cell: Record, of: str, aspect: str | None = None, n: int | None = None,
               by: str | None = None) -> list[Record]:
    """The source of a value that is the mean of a measure ``of`` its examples (the cell's,
    or one ``aspect``'s, ``n`` of them; ``by``: the mean of each group's mean), as the
    explorer states it (:func:`clineval.benchmarks.meddisk.reading.measures`)."""
    if n is None:
        n = (cell.get("summary") or {}).get("n")
    return link(cell, None, {"aspect": aspect} if aspect else None, n, measure="mean", of=of,
                by=by)


def _blocks(spec: Record, cells: list[Record], tasks: dict[str, Record]):
    """(task, mode, title, cells of the block) in the spec's order."""
    task_names = spec.get("tasks") or [spec["task"]]
    for task in task_names:
        for mode in spec["modes"]:
            shown = [c for c in cells if c["task"] == task and c["mode"] == mode]
            if shown:
                title = f"{tasks[task]['display_name']}, {MODE_TITLES.get(mode, mode)}"
                yield task, mode, title, shown


def _notes(spec: Record, cells: list[Record], tasks: dict[str, Record]) -> list[str]:
    encoders = sorted({c["summary"].get("encoder", "?") for c in cells})
    extractors = sorted({c["summary"].get("extractor", "delimiter") for c in cells})
    notes = []
    synthetic = [t["display_name"] for t in tasks.values()
                 if (t.get("data") or {}).get("source") == "demo"]
    if synthetic:
        notes.append(f"Data: the project's synthetic demo knowledge base ({', '.join(synthetic)}):"
                     " not clinically validated, not the paper's MedDisK.")
    notes.append(
        "Tiers: thresholds are placeholders (0.3/0.8 unless configured; the paper's Table 12 is "
        f"lost). Cosine encoder: {', '.join(encoders)} (the paper used M3E). Enumerated answers: "
        f"{', '.join(extractors)} extractor (the paper used an unreleased NER model).")
    smoke = [c["display_name"] for c in cells if c["smoke"]]
    if smoke:
        notes.append(smoke_note(smoke))
    return notes + list(spec.get("context_notes") or [])


def table4(spec: Record, cells: list[Record], tasks: dict[str, Record]) -> Table:
    """Tier shares (%), total score (0-10) and level per model, sorted by score."""
    types = spec.get("types") or {}
    decimals = read_own(Table4, spec, "table").decimals
    columns = ["Model", "Type", "Completely Wrong", "Partially Correct", "Basically Correct",
               "Total Score", "Level"]
    blocks, records = [], []
    for task, mode, title, shown in _blocks(spec, cells, tasks):
        rows, sources = [], []
        for cell in sorted(shown, key=lambda c: (-c["summary"]["score"], c["display_name"])):
            summary = cell["summary"]
            share = summary["shares"]
            kind = types.get(cell["model"], "–")
            rows.append([_name(cell), kind, *(fmt(100 * share[t], 1) + "%" for t in
                                               ("cw", "pc", "bc")),
                         fmt(summary["score"], decimals), str(summary["level"])])
            # the tier shares and the score: means over the examples; the level follows
            # from the score by cut-offs: the whole cell, with its n
            sources.append([[], [], *(_mean_link(cell, t) for t in ("cw", "pc", "bc")),
                            _mean_link(cell, "points"),
                            link(cell, n=summary["n"])])
            records.append({"task": task, "mode": mode, "model": cell["model"], "type": kind,
                            "n": summary["n"], "cw": share["cw"], "pc": share["pc"],
                            "bc": share["bc"], "score": summary["score"],
                            "level": summary["level"], "macro_score": summary["macro_score"]})
        blocks.append(Block(title, rows, sources))
    return Table(spec["title"], columns, blocks, _notes(spec, cells, tasks), records)


def _aspect_order(tasks: dict[str, Record], task: str, spec: Record) -> list[tuple[str, str]]:
    """(key, abbreviation) of the task's aspects, in Table 1's order or the spec's ``order``."""
    aspects = registry(tasks[task]["data"])
    keys = list(spec.get("order") or aspects)
    return [(k, aspects[k].abbr) for k in keys if k in aspects]


def aspects_table(spec: Record, cells: list[Record], tasks: dict[str, Record]) -> Table:
    """Per-aspect scores (0-10) per model; flat column labels (aspect abbreviations)."""
    decimals = read_own(Aspects, spec, "table").decimals
    first = (spec.get("tasks") or [spec["task"]])[0]
    order = _aspect_order(tasks, first, spec)
    columns = ["Model", *(abbr for _, abbr in order), "Macro"]
    blocks, records = [], []
    for task, mode, title, shown in _blocks(spec, cells, tasks):
        rows, sources = [], []
        for cell in sorted(shown, key=lambda c: c["display_name"]):
            per = cell["summary"]["aspects"]
            values = [per[k]["score"] if k in per else None for k, _ in order]
            rows.append([_name(cell), *(fmt(v, decimals) if v is not None else "–"
                                        for v in values),
                         fmt(cell["summary"]["macro_score"], decimals)])
            sources.append([[], *(_mean_link(cell, "points", k, per[k]["n"]) if k in per
                                  else [] for k, _ in order),
                            _mean_link(cell, "points", by="aspect")])
            records.extend({"task": task, "mode": mode, "model": cell["model"], "aspect": k,
                            "n": per[k]["n"] if k in per else 0, "score": v}
                           for (k, _), v in zip(order, values, strict=True))
        blocks.append(Block(title, rows, sources))
    return Table(spec["title"], columns, blocks, _notes(spec, cells, tasks), records)


def tiers_table(spec: Record, cells: list[Record], tasks: dict[str, Record]) -> Table:
    """Each metric's CW/PC/BC shares (%) per model, grouped under the metric."""
    labels = {"bleu_1": "BLEU-1", "rouge_1": "ROUGE-1", "cosine": "Cosine"}
    columns = ["Model", *(t.upper() for _ in labels for t in ("cw", "pc", "bc"))]
    groups = [("", 1), *((label, 3) for label in labels.values())]
    blocks, records = [], []
    for task, mode, title, shown in _blocks(spec, cells, tasks):
        rows, sources = [], []
        for cell in sorted(shown, key=lambda c: c["display_name"]):
            by_metric = cell["summary"]["shares_by_metric"]
            rows.append([_name(cell), *(fmt(100 * by_metric[m][t], 1) + "%" for m in labels
                                        for t in ("cw", "pc", "bc"))])
            sources.append([[], *(_mean_link(cell, f"{m}.{t}") for m in labels
                                  for t in ("cw", "pc", "bc"))])
            records.extend({"task": task, "mode": mode, "model": cell["model"], "metric": m,
                            **by_metric[m]} for m in labels)
        blocks.append(Block(title, rows, sources))
    return Table(spec["title"], columns, blocks, _notes(spec, cells, tasks), records,
                 groups=groups)


def _pairs(spec: Record) -> list[tuple[str, str]]:
    pairs = spec.get("pairs") or []
    if not pairs:
        raise ValueError(f"table {spec['title']!r} needs `pairs`: [{{medical, backbone}}, ...]")
    return [(p["medical"], p["backbone"]) for p in pairs]


def _values(cell: Record | None, aspect: str, metric: str) -> list[float] | None:
    if cell is None or cell.get("rows") is None:
        return None
    return [float(r["similarity"][metric]) for r in cell["rows"] if r["aspect"] == aspect]


def _test_sources(by_model: dict[str, Record], pair: tuple[str, str], aspect: str, abbr: str,
                  metric: str, result: TTest, p: float | None) -> list[Record]:
    """The examples a t is computed over: each model's of the aspect, with the mean of their
    similarity; the first says what the value is (the explorer cannot recompute a t)."""
    shown = [f"{v:.4g}" if v is not None else "n/a"
             for v in (result.t, result.df, p, result.mean_a, result.mean_b)]
    words = (f"Welch's t-test (two-sided) of the per-disease {METRIC_NAMES[metric]} in aspect "
             f"{abbr}: {_name(by_model[pair[0]])} (n = {result.n_a}, mean {shown[3]}) minus "
             f"{_name(by_model[pair[1]])} (n = {result.n_b}, mean {shown[4]}): "
             f"t = {shown[0]}, df = {shown[1]}, p = {shown[2]}")
    found = [entry for m, n in zip(pair, (result.n_a, result.n_b), strict=True)
             for entry in _mean_link(by_model[m], metric, aspect, n)]
    if found:
        found[0] = {**found[0], "statistic": words}
    return found


def table5(spec: Record, cells: list[Record], tasks: dict[str, Record]) -> Table:
    """Welch's t of medical vs backbone per aspect on per-disease similarities."""
    layout = read_own(Table5, spec, "table")
    metric, correction, alpha = layout.metric, layout.correction, layout.alpha
    pairs = _pairs(spec)
    names = {c["model"]: _name(c) for c in cells}
    columns = ["Aspect", *(f"{names.get(m, m)} vs {names.get(b, b)}" for m, b in pairs)]
    blocks, records = [], []
    without_rows = sorted({c["display_name"] for c in cells if c.get("rows") is None})
    for task, mode, title, shown in _blocks(spec, cells, tasks):
        by_model = {c["model"]: c for c in shown}
        tests = []
        for key, abbr in _aspect_order(tasks, task, spec):
            for medical, backbone in pairs:
                a = _values(by_model.get(medical), key, metric)
                b = _values(by_model.get(backbone), key, metric)
                result = welch(a, b) if a is not None and b is not None else None
                tests.append((key, abbr, medical, backbone, result))
        adjusted = adjust([t[4].p if t[4] else None for t in tests], correction)
        grid: dict[str, list[str]] = {}
        origin: dict[str, list[list[str]]] = {}
        for (key, abbr, medical, backbone, result), p in zip(tests, adjusted, strict=True):
            origin.setdefault(abbr, []).append(
                _test_sources(by_model, (medical, backbone), key, abbr, metric, result, p)
                if result is not None else [])
            if result is None:
                text = "–"
            elif result.t is None:
                text = "n/a"
            else:
                text = fmt(result.t, 2) + ("*" if p is not None and p < alpha else "")
            grid.setdefault(abbr, []).append(text)
            records.append({"task": task, "mode": mode, "metric": metric, "aspect": key,
                            "medical": medical, "backbone": backbone,
                            **(result.as_dict() if result else dict.fromkeys(_TEST_FIELDS)),
                            "p_adjusted": p,
                            "correction": correction})
        blocks.append(Block(title, [[abbr, *values] for abbr, values in grid.items()],
                            [[[], *origin[abbr]] for abbr in grid]))
    notes = [f"Welch's t-test (two-sided) of per-disease {METRIC_NAMES[metric]} per aspect, "
             f"medical model minus backbone; * p < {alpha:g}"
             + ("" if correction == "none" else f" after {correction} correction per block")
             + "; n/a: undefined (no variance or too few diseases); –: a model did not run."]
    if without_rows:
        notes.append("No per-example rows reached this table for: " + ", ".join(without_rows)
                     + " (the table spec needs `rows: true`).")
    return Table(spec["title"], columns, blocks, notes + _notes(spec, cells, tasks), records)


LAYOUTS = {"meddisk_table4": table4, "meddisk_table5": table5, "meddisk_aspects": aspects_table,
           "meddisk_tiers": tiers_table}


def build_table(spec: Record, cells: list[Record], tasks: dict[str, Record]) -> Table:
    layout = spec.get("layout")
    if layout not in LAYOUTS:
        raise ValueError(f"MedDisK table layout {layout!r}; known: {', '.join(LAYOUTS)}")
    return LAYOUTS[layout](spec, cells, tasks)
