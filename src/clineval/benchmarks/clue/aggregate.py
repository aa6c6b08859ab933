"""CLUE's scores: per dataset the mean of its metrics, per level the mean of its datasets.

This is the paper's SuperGLUE-style aggregation (Section 3.7), on a 0-100 scale. The metrics that
enter each dataset's mean are those of the paper's Table 1 and Table 3; LongHealth is one dataset
whose score is the mean of its three tasks' accuracies. A metric that could not be computed (UMLS
F1 without scispaCy's linker) is handled by the ``missing_metric`` setting:

- ``drop`` (default): the dataset's mean is taken over its other metrics (not comparable with the
  paper; tables say so);
- ``fail``: the dataset has no score, and neither has its level.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from statistics import fmean
from typing import Any

from clineval.metrics.aggregate import Headline, Mean, Shown, Test, combine, values

SUMMARY_METRICS = ("rouge_l", "rouge_1", "rouge_2", "bertscore_f1")
#: The metrics the paper reports, per contract dataset, in Table 3's column order.
PAPER_METRICS: dict[str, tuple[str, ...]] = {
    "mednli": ("accuracy",),
    "problem_summary": (*SUMMARY_METRICS, "umls_f1"),
    "meqsum": SUMMARY_METRICS,
    "longhealth_task1": ("accuracy",),
    "longhealth_task2": ("accuracy",),
    "longhealth_task3": ("accuracy",),
    "medisumqa": (*SUMMARY_METRICS, "umls_f1"),
    "medisumcode": ("em_f1", "ap_f1", "valid_codes"),
}
#: The datasets whose scores average into each level; LongHealth's parts are its three tasks.
LEVELS: dict[str, tuple[str, ...]] = {
    "level1": ("mednli", "problem_summary", "meqsum"),
    "level2": ("longhealth", "medisumqa", "medisumcode"),
}
PARTS: dict[str, tuple[str, ...]] = {
    "longhealth": ("longhealth_task1", "longhealth_task2", "longhealth_task3"),
}
MISSING_POLICIES = ("drop", "fail")

Metrics = Mapping[str, float | None]


def check_policy(policy: str) -> str:
    if policy not in MISSING_POLICIES:
        raise ValueError(f"missing_metric={policy!r}; use one of {', '.join(MISSING_POLICIES)}")
    return policy


def dataset_score(dataset: str, metrics: Metrics, missing_metric: str = "drop") -> float | None:
    """Mean of the paper's metrics for one contract dataset; ``None`` when it cannot be formed."""
    values = [metrics.get(name) for name in PAPER_METRICS[dataset]]
    present = [v for v in values if v is not None]
    if not present or (len(present) < len(values) and check_policy(missing_metric) == "fail"):
        return None
    return fmean(present)


def _mean(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return fmean(present) if present and len(present) == len(values) else None


def scores(
    per_dataset: Mapping[str, Metrics], missing_metric: str = "drop"
) -> dict[str, float | None]:
    """Dataset scores (LongHealth: mean of its tasks) and level scores from per-dataset metrics.

    ``per_dataset`` maps contract datasets (``mednli``, ``longhealth_task1``, ...) to metric
    dicts. A score is ``None`` when one of its parts is missing.
    """
    out: dict[str, float | None] = {}
    for group in (name for level in LEVELS.values() for name in level):
        parts = PARTS.get(group, (group,))
        values = [
            dataset_score(p, per_dataset[p], missing_metric) if p in per_dataset else None
            for p in parts
        ]
        out[group] = _mean(values)
    for level, groups in LEVELS.items():
        out[level] = _mean([out[g] for g in groups])
    return out


def _of(dataset: str) -> Test:
    return lambda row: row["dataset"] == dataset


def _means(dataset: str) -> dict[str, Mean]:
    """Each paper metric's mean over the dataset's rows (``None`` when a row lacks it)."""
    return {name: Mean(lambda row, name=name: row["metrics"][name], _of(dataset))
            for name in PAPER_METRICS[dataset]}


def headline_aggregates(rows: Sequence[Mapping[str, Any]]) -> Headline:
    """Per dataset of ``rows``: ``<dataset>.<metric>``, the means of its paper metrics, and
    ``<dataset>.score``, their mean (:func:`dataset_score`)."""
    out: dict[str, Shown] = {}
    present = {row["dataset"] for row in rows}
    for dataset in (d for d in PAPER_METRICS if d in present):
        means = _means(dataset)
        out |= {f"{dataset}.{name}": Shown(mean, _of(dataset)) for name, mean in means.items()}
        out[f"{dataset}.score"] = Shown(combine(
            lambda *found, dataset=dataset: dataset_score(
                dataset, dict(zip(PAPER_METRICS[dataset], found, strict=True))),
            *means.values()), _of(dataset))
    return out


def dataset_summary(dataset: str, rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One dataset's ``n``, paper metrics (means over its rows; ``None`` when a row lacks one)
    and extraction status counts."""
    return {
        "n": len(rows),
        "metrics": values(_means(dataset), rows),
        "status_counts": dict(sorted(Counter(r["status"] for r in rows).items())),
    }


def summarize_rows(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A cell's summary from its scored rows, grouped by each row's ``dataset``."""
    by_dataset: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        by_dataset.setdefault(row["dataset"], []).append(row)
    datasets = {d: dataset_summary(d, by_dataset[d]) for d in PAPER_METRICS if d in by_dataset}
    return {"n": len(rows), "scale": "0-100", "datasets": datasets}
