"""``clineval meddisk calibrate``: fit tier thresholds to expert tier labels (the paper's
Table 2 procedure) and report the Spearman correlation of automatic and expert tiers.

Input: JSONL, one judged response per line, ``{"type": "enumerated"|"declarative", "label":
0|1|2, "bleu_1": s, "rouge_1": s, "cosine": s}`` (similarities in 0-1, e.g. the ``similarity``
of ``clineval score meddisk --json`` rows with an expert's tier added). For each metric x type
the two thresholds are searched on a grid (``--step``, 0.05) to maximise agreement with the
labels (ties: higher Spearman, then lower thresholds). Output: the thresholds (a YAML block for
``scoring.thresholds``) and Spearman rho (with p) per metric and for the mean tier of the three
metrics, under the fitted thresholds.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from pathlib import Path

from clineval.benchmarks.meddisk.aggregate import METRICS, tier
from clineval.errors import DataError
from clineval.io import Record, read_jsonl, write_json

KINDS = ("enumerated", "declarative")


def _spearman(a: Sequence[float], b: Sequence[float]) -> tuple[float | None, float | None]:
    from scipy.stats import spearmanr

    if len(a) < 3 or len(set(a)) < 2 or len(set(b)) < 2:
        return None, None
    result = spearmanr(a, b)
    rho, p = float(result.statistic), float(result.pvalue)
    return (None, None) if math.isnan(rho) else (rho, p)


def read_labels(path: Path) -> list[Record]:
    rows = read_jsonl(path, ("type", "label", *METRICS))
    for line, row in enumerate(rows, start=1):
        if row["type"] not in KINDS:
            raise DataError(path, line, "type", f"{row['type']!r}; types: {', '.join(KINDS)}")
        if row["label"] not in (0, 1, 2):
            raise DataError(path, line, "label", f"{row['label']!r}; expected 0, 1 or 2")
        for metric in METRICS:
            value = row[metric]
            if isinstance(value, bool) or not isinstance(value, int | float) or not (
                0.0 <= value <= 1.0
            ):
                raise DataError(path, line, metric, f"{value!r}; expected a number in 0-1")
    return rows


def fit(scores: Sequence[float], labels: Sequence[int], step: float = 0.05
        ) -> tuple[tuple[float, float], float]:
    """The (low, high) thresholds that best reproduce ``labels``, and their accuracy."""
    n = round(1 / step)
    grid = [round(i * step, 10) for i in range(n + 1)]
    best: tuple[float, float, float, float] | None = None
    for i, low in enumerate(grid):
        for high in grid[i:]:
            tiers = [tier(s, (low, high)) for s in scores]
            accuracy = sum(t == y for t, y in zip(tiers, labels, strict=True)) / len(labels)
            rho = _spearman(tiers, labels)[0]
            key = (accuracy, rho if rho is not None else -2.0, -low, -high)
            if best is None or key > best:
                best = key
    assert best is not None
    return (-best[2], -best[3]), best[0]


def calibrate_rows(rows: Sequence[Record], step: float = 0.05) -> Record:
    """Fitted thresholds per metric x type, accuracy, and Spearman rho per metric and averaged."""
    if not rows:
        raise ValueError("no labelled responses")
    thresholds: dict[str, dict[str, list[float]]] = {m: {} for m in METRICS}
    accuracy: dict[str, dict[str, float]] = {m: {} for m in METRICS}
    for metric in METRICS:
        for kind in KINDS:
            part = [r for r in rows if r["type"] == kind]
            if part:
                (low, high), acc = fit([r[metric] for r in part], [r["label"] for r in part], step)
                thresholds[metric][kind], accuracy[metric][kind] = [low, high], acc
    labels = [r["label"] for r in rows]
    tiers = {m: [tier(r[m], thresholds[m][r["type"]]) for r in rows] for m in METRICS}
    spearman = {}
    for metric in METRICS:
        rho, p = _spearman(tiers[metric], labels)
        spearman[metric] = {"rho": rho, "p": p}
    average = [sum(tiers[m][i] for m in METRICS) / len(METRICS) for i in range(len(rows))]
    rho, p = _spearman(average, labels)
    spearman["average"] = {"rho": rho, "p": p}
    return {"n": len(rows), "step": step, "thresholds": thresholds, "accuracy": accuracy,
            "spearman": spearman}


def add_calibrate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = "Fit MedDisK tier thresholds to expert labels; Spearman rho."
    parser.add_argument("--labels", type=Path, required=True,
                        help='JSONL {"type", "label", "bleu_1", "rouge_1", "cosine"}')
    parser.add_argument("--step", type=float, default=0.05, help="threshold grid step (0.05)")
    parser.add_argument("--out", type=Path, help="also write the result as JSON here")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def calibrate(args: argparse.Namespace) -> int:
    result = calibrate_rows(read_labels(args.labels), args.step)
    if args.out:
        write_json(args.out, result)
    if args.json:
        print(json.dumps(result, sort_keys=True))
        return 0
    print("scoring:\n  thresholds:")
    for metric, kinds in result["thresholds"].items():
        print(f"    {metric}: {json.dumps(kinds)}")
    for name, value in result["spearman"].items():
        rho = "n/a" if value["rho"] is None else f"{value['rho']:.3f} (p={value['p']:.3g})"
        print(f"# Spearman rho, {name}: {rho}")
    return 0
