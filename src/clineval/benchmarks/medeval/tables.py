"""MedEval's tables (the paper's Tables 2-7) from scored cells.

Layouts (``layout`` of a table spec):

- ``medeval_table2``: sentence NLU accuracy per domain group (``groups``), abnormality and
  ambiguity; ``qualified_rate: true`` adds App. D's qualified rate, ``f1: true`` the F1.
- ``medeval_table3``: rewriting per domain group: ΔAcc_am, ΔAcc_ab, BLEU-4.
- ``medeval_table4``: code prediction per domain (``domains``): average per-code accuracy, EMR
  (``qualified_rate: true`` adds the qualified rate).
- ``medeval_table5``: summarization per domain group: ROUGE-1/2/L, their Sum, BLEU-4.
- ``medeval_table6``: per model group (``model_groups``: label -> models; null: each model), the
  mean accuracy over the group's cells of every mode shown, per task and domain group.
- ``medeval_table7``: per model family (``families``: label -> models; null: each model) and
  mode, the mean NLU accuracy and NLG BLEU-4 (``aggregate``), with family and mode averages.

Two header rows: the domain group, domain or task over its metrics ("Chest" over "Abnormality
Acc", ...); ``–`` marks a value not run, ``n/a`` one that could not be computed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from clineval.benchmarks.base.settings import read_own
from clineval.benchmarks.medeval import aggregate
from clineval.benchmarks.medeval.formats import CHEST, MISC
from clineval.benchmarks.medeval.settings import Table2, Table4
from clineval.errors import ConfigError
from clineval.io import Record
from clineval.tables.format import SMOKE_MARK, fmt, smoke_note
from clineval.tables.render import Block, Table, link

GROUP_LABEL = {CHEST: "Chest", MISC: "Misc."}
MODE_TITLES = {
    "zero_shot": "Zero-shot",
    "one_shot": "Few-shot (as many exemplars as classes: 2 for NLU, 3 for NLG tasks)",
}
NOT_RUN = "–"


@dataclass(frozen=True)
class Column:
    group: str
    header: str
    kind: str
    level: str
    part: str
    metric: str
    decimals: int


def _label(part: str) -> str:
    return GROUP_LABEL.get(part, part.capitalize())


def columns(spec: Record) -> list[Column]:
    layout = spec["layout"]
    groups = list(spec.get("groups") or (CHEST, MISC))
    if layout == "medeval_table2":
        cols = []
        for group in groups:
            for kind in ("abnormality", "ambiguity"):
                head, top = kind.capitalize(), _label(group)
                cols.append(Column(top, f"{head} Acc", kind, "groups", group, "accuracy", 4))
                if spec.get("f1"):
                    cols.append(Column(top, f"{head} F1", kind, "groups", group, "f1", 4))
                if read_own(Table2, spec, "table").qualified_rate:
                    cols.append(Column(top, f"{head} QR", kind, "groups", group,
                                       "qualified_rate", 4))
        return cols
    if layout == "medeval_table3":
        return [Column(_label(g), h, "rewriting", "groups", g, m, d) for g in groups
                for h, m, d in (("ΔAcc_am", "dacc_am", 4), ("ΔAcc_ab", "dacc_ab", 4),
                                ("BLEU-4", "bleu4", 2))]
    if layout == "medeval_table4":
        cols = []
        for domain in spec.get("domains") or (CHEST, "foot", "ankle"):
            top = _label(domain)
            cols += [Column(top, "avg Accuracy", "codes", "domains", domain, "avg_accuracy", 4),
                     Column(top, "avg EMR", "codes", "domains", domain, "emr", 4)]
            if read_own(Table4, spec, "table").qualified_rate:
                cols.append(Column(top, "QR", "codes", "domains", domain, "qualified_rate", 4))
        return cols
    if layout == "medeval_table5":
        return [Column(_label(g), h, "summarization", "groups", g, m, 2)
                for g in list(spec.get("groups") or (MISC,))
                for h, m in (("ROUGE-1", "rouge_1"), ("ROUGE-2", "rouge_2"),
                             ("ROUGE-L", "rouge_l"), ("Sum", "rouge_sum"), ("BLEU-4", "bleu4"))]
    if layout == "medeval_table6":
        return [Column(kind.capitalize(), _label(g), kind, "groups", g, "accuracy", 4)
                for kind in ("abnormality", "ambiguity") for g in groups]
    raise ConfigError(f"unknown MedEval table layout {layout!r}")


def group_parts(spec: Record) -> list[tuple[str, str, str]]:
    """(task kind, domain group, the setting naming it) of every group a table shows."""
    if spec["layout"] == "medeval_table7":
        groups = list(spec.get("groups") or (CHEST, MISC))
        return [(k, g, "groups") for k in ("abnormality", "ambiguity", "rewriting")
                for g in groups] + [("summarization", g, "summarization_groups")
                                    for g in spec.get("summarization_groups") or (MISC,)]
    return sorted({(c.kind, c.part, "groups") for c in columns(spec) if c.level == "groups"})


def empty_groups(name: str, spec: Record, tasks: dict[str, Record]) -> list[str]:
    """A warning per group a table shows that its task's settings say can hold no example (an
    all-chest source under a Misc. column shows only "–")."""
    from clineval.benchmarks.medeval.sources import possible_groups, task_kind

    if not str(spec.get("layout", "")).startswith("medeval_"):
        return []
    kinds: dict[str, list[str]] = {}
    for task_name, task in tasks.items():
        kinds.setdefault(task_kind(task), []).append(task_name)
    warnings = []
    for kind, group, setting in group_parts(spec):
        for task_name in kinds.get(kind, []):
            known = possible_groups(tasks[task_name]["data"], kind)
            if known is not None and group not in known[0]:
                holds = ", ".join(sorted(known[0]))
                warnings.append(
                    f"table {name}: group {group!r} of tables.{name}.{setting} has no data in "
                    f"task {task_name} ({known[1]}): its columns will show "
                    f"only {NOT_RUN}; set tables.{name}.{setting}=[{holds}]")
    return warnings


def _by_model_mode(cells: list[Record]) -> dict[tuple[str, str], dict[str, Record]]:
    """(model, mode) -> task kind -> the cell summary."""
    found: dict[tuple[str, str], dict[str, Record]] = {}
    for cell in cells:
        kind = cell["summary"]["task"]
        slot = found.setdefault((cell["model"], cell["mode"]), {})
        if kind in slot:
            raise ValueError(f"{cell['model']} / {cell['mode']}: two cells of MedEval {kind}")
        slot[kind] = cell["summary"]
    return found


def _paths(cells: list[Record]) -> dict[tuple[str, str], dict[str, Record]]:
    """(model, mode) -> task kind -> the cell, whose part a value's source names."""
    found: dict[tuple[str, str], dict[str, Record]] = {}
    for cell in cells:
        found.setdefault((cell["model"], cell["mode"]), {})[cell["summary"]["task"]] = cell
    return found


#: The score rows' field that holds a part of each level.
_LEVEL_FIELD = {"groups": "group", "domains": "domain"}


def _part_link(cell: Record | None, kind: str, level: str, part: str, metric: str,
               decimals: int, label: str | None = None) -> list[Record]:
    """The source of one part's value (its examples: the rows of that domain or group), with
    its n, its right ones where the value is their share, and (``label``: one of several
    values) the value itself."""
    if cell is None:
        return []
    found = (cell["summary"].get(level) or {}).get(part) or {}
    n, value = found.get("n"), found.get(metric)
    right = None
    if metric == "accuracy" and n and value is not None and abs(
            round(value * n) / n - value) < 1e-9:
        right = round(value * n)
    return link(cell, None, {_LEVEL_FIELD[level]: part}, n, right,
                fmt(value, decimals) if label is not None and value is not None else None,
                label)


def _value(summaries: dict[str, Record], col: Column) -> tuple[float | None, int | None, bool]:
    """(value, n, present): present is False when the task or the part was not run."""
    summary = summaries.get(col.kind)
    part = None if summary is None else (summary.get(col.level) or {}).get(col.part)
    if part is None:
        return None, None, False
    return part.get(col.metric), part.get("n"), True


def _names(cells: list[Record]) -> dict[str, tuple[str, bool]]:
    return {c["model"]: (c["display_name"], bool(c["smoke"])) for c in cells}


def _notes(spec: Record, cells: list[Record], tasks: dict[str, Record]) -> list[str]:
    notes = ["Accuracy, F1, qualified rate (QR), per-code accuracy, EMR and ΔAcc as fractions "
             "(0-1); ROUGE and BLEU-4 on 0-100. –: not run; n/a: could not be computed."]
    run = [t for t in tasks.values() if not t.get("skipped")]
    sources = sorted({t["data"]["source"] for t in run})
    if sources == ["demo"]:
        notes.append("Data: the project's synthetic demo files in MedEval's formats, not the "
                     "paper's data.")
    elif run:
        notes.append(f"Data sources: {', '.join(sources)} (per task: docs/medeval.md).")
    notes += [f"Not run: {t['display_name']}. {t['skipped']}" for t in tasks.values()
              if t.get("skipped")]
    judges = sorted({
        f"{group} {label} {info['sha256'][:12]} (n={info['n_train']})"
        for c in cells for group, labels in
        ((c["summary"].get("classifiers") or {}).get("groups") or {}).items()
        for label, info in labels.items()
    })
    if judges:
        notes.append("ΔAcc judges: scikit-learn TF-IDF + logistic regression classifiers trained "
                     "on the train split (sha256 prefix, train size): " + "; ".join(judges) + ".")
    models = sorted({
        f"{info['judge']['name']} ({info['judge']['id']}, revision {info['judge']['revision']}; "
        f"temperature {info['judge']['sampling']['temperature']}, "
        f"max {info['judge']['sampling']['max_tokens']} tokens)"
        for c in cells if (info := c["summary"].get("classifiers") or {}).get("kind") == "model"
    })
    if models:
        notes.append("ΔAcc judge: the model " + "; ".join(models) + " answering the zero-shot "
                     "abnormality and ambiguity prompts; an off-format answer counts as wrong "
                     "(the judge's qualified rates are in the cell summaries).")
    chosen = sorted({f"{c['model']}/{c['mode']}: draw {c['summary']['selection']['chosen']}"
                     for c in cells if c["summary"].get("selection")})
    if chosen:
        notes.append("Exemplar draw chosen on the validation split: " + "; ".join(chosen) + ".")
    smoke = [name for name, is_smoke in _names(cells).values() if is_smoke]
    if smoke:
        notes.append(smoke_note(smoke))
    return [*notes, *spec.get("context_notes", [])]


def _record(mode: str, model: str, col: Column, value: float | None, n: int | None) -> Record:
    return {"mode": mode, "model": model, "task": col.kind, "part": col.part,
            "metric": col.metric, "n": "" if n is None else n,
            "value": "" if value is None else f"{value:.4f}"}


def _per_model(spec: Record, cells: list[Record], cols: list[Column]) -> tuple[
        list[Block], list[Record]]:
    grid, paths = _by_model_mode(cells), _paths(cells)
    names = _names(cells)
    blocks, records = [], []
    for mode in spec["modes"]:
        rows, sources = [], []
        for model in dict.fromkeys(c["model"] for c in cells if c["mode"] == mode):
            name, smoke = names[model]
            row, origin = [name + (SMOKE_MARK if smoke else "")], [[]]
            for col in cols:
                value, n, present = _value(grid[(model, mode)], col)
                row.append(fmt(value, col.decimals) if present else NOT_RUN)
                origin.append(_part_link(paths[(model, mode)].get(col.kind), col.kind,
                                         col.level, col.part, col.metric, col.decimals)
                              if present else [])
                if present:
                    records.append(_record(mode, model, col, value, n))
            rows.append(row)
            sources.append(origin)
        blocks.append(Block(MODE_TITLES.get(mode, mode), rows, sources))
    return blocks, records


def _members(spec: Record, key: str, cells: list[Record]) -> dict[str, list[str]]:
    configured = spec.get(key)
    if configured:
        return {label: list(models) for label, models in configured.items()}
    return {name: [model] for model, (name, _) in _names(cells).items()}


def _table6(spec: Record, cells: list[Record], cols: list[Column]) -> tuple[
        list[Block], list[Record]]:
    grid, paths = _by_model_mode(cells), _paths(cells)
    rows, records, sources = [], [], []
    for label, models in _members(spec, "model_groups", cells).items():
        row, origin = [label], [[]]
        for col in cols:
            values = [_value(grid[(m, mode)], col)[0] for m in models for mode in spec["modes"]
                      if (m, mode) in grid]
            value = aggregate.mean(values)
            row.append(fmt(value, col.decimals) if values else NOT_RUN)
            origin.append([p for m in models for mode in spec["modes"]
                           for p in _part_link(paths.get((m, mode), {}).get(col.kind),
                                               col.kind, col.level, col.part, col.metric,
                                               col.decimals, f"{m}, {mode}")
                           if p.get("value") is not None])
            records.append(_record("+".join(spec["modes"]), label, col, value, len(values)))
        rows.append(row)
        sources.append(origin)
    return [Block("Average accuracy over the group's cells", rows, sources)], records


def _table7(spec: Record, cells: list[Record]) -> Table:
    grid = _by_model_mode(cells)
    modes = list(spec["modes"])
    nlu_parts = {"abnormality": spec.get("groups") or (CHEST, MISC),
                 "ambiguity": spec.get("groups") or (CHEST, MISC),
                 "codes": spec.get("code_domains") or (CHEST, "foot", "ankle")}
    nlg_parts = {"rewriting": spec.get("groups") or (CHEST, MISC),
                 "summarization": spec.get("summarization_groups") or (MISC,)}
    nlu: dict[str, dict[str, float | None]] = {}
    nlg: dict[str, dict[str, float | None]] = {}
    for family, models in _members(spec, "families", cells).items():
        for mode in modes:
            here = [grid[(m, mode)] for m in models if (m, mode) in grid]
            nlu.setdefault(family, {})[mode] = aggregate.mean(
                v for s in here for v in aggregate.cell_values(s, aggregate.NLU_VALUES,
                                                               nlu_parts))
            nlg.setdefault(family, {})[mode] = aggregate.mean(
                v for s in here for v in aggregate.cell_values(s, aggregate.NLG_VALUES,
                                                               nlg_parts))
    nlu_family, nlu_mode = aggregate.family_table(nlu, modes)
    nlg_family, nlg_mode = aggregate.family_table(nlg, modes)
    paths, members = _paths(cells), _members(spec, "families", cells)

    def behind(models: list[str], shown: list[str], wanted: tuple[tuple[str, str, str], ...],
               parts: dict[str, Sequence[str]], by: str = "") -> list[Record]:
        """The values a mean of ``wanted`` (NLU or NLG) is made of, each with its part's
        examples; ``by`` ("mode" or "family"): a mean of means, each value grouped by it."""
        found = []
        for m in models:
            for mode in shown:
                cells_of = paths.get((m, mode), {})
                for kind, level, metric in wanted:
                    for part in parts.get(kind, ()):
                        for entry in _part_link(cells_of.get(kind), kind, level, part, metric,
                                                4, f"{m}, {mode}: {kind} {_label(part)}"):
                            if "value" in entry:
                                group = {"mode": mode, "family": family_of[m]}.get(by)
                                found.append({**entry, **({"group": group} if group else {})})
        return found

    family_of = {m: family for family, models in members.items() for m in models}

    rows, records, sources = [], [], []
    for family in nlu:
        for mode in modes:
            rows.append([family, MODE_TITLES.get(mode, mode).split(" (")[0],
                         fmt(nlu_family[family][mode], 2), fmt(nlu_family[family]["average"], 2),
                         fmt(nlg_family[family][mode], 2), fmt(nlg_family[family]["average"], 2)])
            sources.append([[], [], *(
                entry for wanted, parts in ((aggregate.NLU_VALUES, nlu_parts),
                                            (aggregate.NLG_VALUES, nlg_parts))
                for entry in (behind(members[family], [mode], wanted, parts),
                              behind(members[family], modes, wanted, parts, "mode")))])
            for metric, value in (("nlu_accuracy", nlu_family[family][mode]),
                                  ("nlg_bleu4", nlg_family[family][mode])):
                records.append({"mode": mode, "model": family, "task": "all", "part": "all",
                                "metric": metric, "n": "",
                                "value": "" if value is None else f"{value:.4f}"})
    average = [["Average", MODE_TITLES.get(m, m).split(" (")[0], fmt(nlu_mode[m], 2), "",
                fmt(nlg_mode[m], 2), ""] for m in modes]
    everyone = [m for models in members.values() for m in models]
    header = ["Model family", "Shots", "Individual", "Average", "Individual", "Average"]
    return Table(spec["title"], header,
                 [Block("Families", rows, sources),
                  Block("Average", average, [
                      [[], [], behind(everyone, [m], aggregate.NLU_VALUES, nlu_parts, "family"),
                       [], behind(everyone, [m], aggregate.NLG_VALUES, nlg_parts, "family"), []]
                      for m in modes])],
                 [], records, groups=[("", 2), ("NLU (Accuracy)", 2), ("NLG (BLEU-4)", 2)],
                 align="llrrrr")


def build_table(spec: Record, cells: list[Record], tasks: dict[str, Record]) -> Table:
    notes = _notes(spec, cells, tasks)
    if spec["layout"] == "medeval_table7":
        table = _table7(spec, cells)
        table.notes = ["Mean NLU accuracy (Table 2's values and Table 4's average accuracy per "
                       "domain) and mean NLG BLEU-4 (Table 3's and Table 5's), per family and "
                       "mode; Average: the mean over modes (families) or families (rows).",
                       *notes]
        return table
    cols = columns(spec)
    if spec["layout"] == "medeval_table6":
        blocks, records = _table6(spec, cells, cols)
        first = "Model group"
    else:
        blocks, records = _per_model(spec, cells, cols)
        first = "Model"
    return Table(spec["title"], [first, *(c.header for c in cols)], blocks, notes, records,
                 groups=[("", 1), *header_groups(cols)])


def header_groups(cols: list[Column]) -> list[tuple[str, int]]:
    """The second header row: each run of columns with one group label, and its span."""
    groups: list[tuple[str, int]] = []
    for col in cols:
        if groups and groups[-1][0] == col.group:
            groups[-1] = (col.group, groups[-1][1] + 1)
        else:
            groups.append((col.group, 1))
    return groups

