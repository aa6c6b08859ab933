"""CLUE Table 3: per-dataset metrics and level scores, one row per model, one block per mode.

A model's row gathers the dataset summaries of all its cells in the block's mode (a cell may hold
one dataset or several). ``–``: not evaluated; ``n/a``: a metric that could not be computed.
"""

from __future__ import annotations

from typing import Any

from clineval.benchmarks.base.settings import read_own
from clineval.benchmarks.clue.aggregate import LEVELS, PARTS, check_policy, scores
from clineval.benchmarks.clue.settings import Table3
from clineval.tables.format import SMOKE_MARK, fmt, smoke_note
from clineval.tables.render import Block, Table, link

_SUMMARY = (("rouge_l", "R-L"), ("rouge_1", "R-1"), ("rouge_2", "R-2"), ("bertscore_f1", "BERT F1"))
_WITH_UMLS = (*_SUMMARY, ("umls_f1", "UMLS F1"))
#: Table 3's columns per level: (dataset or level, metric or None for a level score, header).
COLUMNS: dict[str, tuple[tuple[str, str | None, str], ...]] = {
    "level1": (
        ("level1", None, "Level 1 Score"),
        ("mednli", "accuracy", "MedNLI Acc"),
        *(("problem_summary", key, f"Prob. Sum. {label}") for key, label in _WITH_UMLS),
        *(("meqsum", key, f"MeQSum {label}") for key, label in _SUMMARY),
    ),
    "level2": (
        ("level2", None, "Level 2 Score"),
        *((f"longhealth_task{i}", "accuracy", f"LongHealth Task {i}") for i in (1, 2, 3)),
        *(("medisumqa", key, f"MeDiSumQA {label}") for key, label in _WITH_UMLS),
        ("medisumcode", "em_f1", "MeDiSumCode EM F1"),
        ("medisumcode", "ap_f1", "MeDiSumCode AP F1"),
        ("medisumcode", "valid_codes", "MeDiSumCode Valid Code"),
    ),
}
MODE_TITLES = {
    "zero_shot": "Zero-shot",
    "cot": "Zero-shot chain of thought",
    "one_shot": "Few-shot, the paper's setting (3 exemplars at level 1, 1 at level 2, none for "
    "LongHealth)",
}
PAPER_BERTSCORE = "emilyalsentzer/Bio_ClinicalBERT with a rescaling baseline tuned on MIMIC-IV"


def _in_level(dataset: str, level: str) -> bool:
    """Whether a dataset's score counts in a level's (LongHealth's tasks in its part)."""
    return dataset in {p for group in LEVELS[level] for p in PARTS.get(group, (group,))}


def _merge(cells: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Dataset summaries of one model and mode, from all its cells."""
    merged: dict[str, dict[str, Any]] = {}
    origin: dict[str, str] = {}
    for cell in cells:
        for dataset, summary in cell["summary"]["datasets"].items():
            if dataset in merged:
                raise ValueError(
                    f"{cell['model']} / {cell['mode']}: dataset {dataset!r} is scored in both "
                    f"task {origin[dataset]!r} and task {cell['task']!r}"
                )
            merged[dataset], origin[dataset] = summary, cell["task"]
    return merged


def _notes(
    merged_all: list[dict[str, dict[str, Any]]], missing_metric: str, smoke: list[str]
) -> list[str]:
    notes = [
        "Scores on a 0-100 scale. A dataset's score is the mean of its metrics, a level's score "
        "the mean of its datasets' scores (LongHealth: the mean of tasks 1-3), as in the paper.",
        "–: not evaluated; n/a: could not be computed.",
    ]
    scorers = sorted(
        {
            f"{s['bertscore']['model']}, layer {s['bertscore']['num_layers']}, "
            + ("rescaled" if s["bertscore"]["rescaled"] else "not rescaled")
            for merged in merged_all
            for s in merged.values()
            if "bertscore" in s
        }
    )
    if scorers:
        notes.append(
            f"BERT F1 scored with {'; '.join(scorers)} (the paper: {PAPER_BERTSCORE}); "
            "BERT F1 values and the scores built on them compare with the paper's only under the "
            "paper's encoder."
        )
    reasons = sorted(
        {
            s["umls"]["reason"]
            for merged in merged_all
            for s in merged.values()
            if "umls" in s and not s["umls"]["available"]
        }
    )
    if reasons:
        effect = (
            "Problem Summary and MeDiSumQA scores average their other metrics"
            if missing_metric == "drop"
            else "Problem Summary and MeDiSumQA have no score, nor have their levels"
        )
        notes.append(
            f"UMLS F1 unavailable ({'; '.join(reasons)}); with missing_metric={missing_metric} "
            f"the {effect}, so level scores are not comparable with the paper's."
        )
    if smoke:
        notes.append(smoke_note(smoke))
    return notes


def build_table(
    spec: dict[str, Any], cells: list[dict[str, Any]], missing_metric: str = "drop"
) -> Table:
    """``cells``: dicts with model, display_name, size, smoke, task, mode and the cell's summary.

    ``spec``: ``title``, ``modes`` (blocks), ``levels`` (default both), ``decimals`` (2),
    ``context_notes``.
    """
    check_policy(missing_metric)
    layout = read_own(Table3, spec, "table")
    levels = list(layout.levels or COLUMNS)
    unknown = [lv for lv in levels if lv not in COLUMNS]
    if unknown:
        raise ValueError(f"unknown CLUE table level(s) {unknown}; known: {', '.join(COLUMNS)}")
    decimals = layout.decimals
    columns = [c for level in levels for c in COLUMNS[level]]
    blocks: list[Block] = []
    records: list[dict[str, Any]] = []
    smoke: list[str] = []
    merged_all: list[dict[str, dict[str, Any]]] = []
    for mode in spec["modes"]:
        in_mode = [c for c in cells if c["mode"] == mode]
        rows, sources = [], []
        for model in dict.fromkeys(c["model"] for c in in_mode):
            mine = [c for c in in_mode if c["model"] == model]
            merged = _merge(mine)
            where = {d: link(c, n=c["summary"].get("n")) for c in mine
                     for d in c["summary"]["datasets"]}
            merged_all.append(merged)
            aggregated = scores(
                {d: s["metrics"] for d, s in merged.items()}, missing_metric=missing_metric
            )
            name = mine[0]["display_name"] + (SMOKE_MARK if mine[0]["smoke"] else "")
            if mine[0]["smoke"] and mine[0]["display_name"] not in smoke:
                smoke.append(mine[0]["display_name"])
            row, origin = [name], [[]]
            for dataset, metric, _ in columns:
                shown = ([p for d in where if _in_level(d, dataset) for p in where[d]]
                         if metric is None else where.get(dataset, []))
                origin.append([p for i, p in enumerate(shown) if p not in shown[:i]])
                if metric is None:
                    value, n = aggregated[dataset], None
                    text = fmt(value, decimals) if value is not None else "–"
                elif dataset in merged:
                    value, n = merged[dataset]["metrics"].get(metric), merged[dataset]["n"]
                    text = fmt(value, decimals)
                else:
                    value, n, text = None, None, "–"
                row.append(text)
                records.append(
                    {
                        "mode": mode,
                        "model": model,
                        "dataset": dataset,
                        "metric": metric or "score",
                        "n": "" if n is None else n,
                        "value": "" if value is None else f"{value:.4f}",
                    }
                )
            records.extend(
                {
                    "mode": mode,
                    "model": model,
                    "dataset": group,
                    "metric": "dataset_score",
                    "n": "",
                    "value": "" if value is None else f"{value:.4f}",
                }
                for group, value in aggregated.items()
                if not group.startswith("level")
            )
            rows.append(row)
            sources.append(origin)
        blocks.append(Block(MODE_TITLES.get(mode, mode), rows, sources))
    notes = [*_notes(merged_all, missing_metric, smoke), *spec.get("context_notes", [])]
    return Table(spec["title"], ["Model", *(h for _, _, h in columns)], blocks, notes, records)
