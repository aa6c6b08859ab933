"""Every benchmark's ``headline_replicates`` (all resamples at once, from per-row sums) equals
``headline(summarize_rows)`` recomputed on each resample's rows, value for value, on varied
rows: parts missing from resamples, undefined metrics, dropped admissions, both MedEval
``unqualified`` and BLEU settings. The demo's cells are checked in
tests/workflow/demo/test_workflow_e2e.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

from clineval.benchmarks import get_benchmark
from clineval.benchmarks.base import replicates_by_rows
from clineval.benchmarks.base.headline import find
from clineval.metrics.bootstrap import (
    BootstrapSettings,
    exact_sums,
    resample_counts,
    resamples,
)

RNG = np.random.default_rng(11)
WORDS = ["the", "lungs", "are", "clear", "no", "acute", "process", "mild", "cardiomegaly",
         "effusion", "stable", "left", "right"]


def _text(size: int) -> str:
    return " ".join(RNG.choice(WORDS, size=size))


def _same(benchmark: str, task: dict, rows: list[dict], samples: int = 150) -> None:
    bench = get_benchmark(benchmark)
    drawn = resamples(len(rows), BootstrapSettings(samples=samples, seed=2))
    expected = replicates_by_rows(bench, task, rows, drawn)
    got = bench.headline_replicates(task, rows, drawn)
    assert got.keys() == expected.keys()
    for name, values in expected.items():
        assert got[name] == values, name  # exact: no tolerance
    # every headline number and every accuracy a paired test reads is a declared metric
    assert [n for n in got if find(bench.metrics, n) is None] == []
    declared = [find(bench.metrics, n) for n in bench.outcomes(task, rows)]
    assert all(m is not None and m.outcome for m in declared)


def test_counts_and_exact_sums():
    drawn = np.array([[0, 0, 2], [1, 2, 2]])
    assert resample_counts(drawn, 4).tolist() == [[2, 0, 1, 0], [0, 1, 2, 0]]
    values = [0.1, 0.2, 0.3]
    assert exact_sums(values, drawn) == [math.fsum([0.1, 0.1, 0.3]), math.fsum([0.2, 0.3, 0.3])]
    assert exact_sums(values, drawn, np.array([True, False, True])) == [
        math.fsum([0.1, 0.1, 0.3]), math.fsum([0.3, 0.3])]


def test_medcalc():
    rows = [{"id": f"r{i}", "category": "lab", **{s: {"correct": bool(RNG.random() < 0.4),
                                                      "status": "ok"}
                                                  for s in ("official", "robust")}}
            for i in range(23)]
    _same("medcalc", {"scoring": {"extractions": ["official", "robust"]}}, rows)


def test_meddisk_with_aspects_missing_from_resamples():
    aspects = ["symptom"] * 12 + ["drug"] * 6 + ["rare"]
    rows = [{"id": f"r{i}", "aspect": a, "status": "ok", "lang": "en",
             "tier": {m: int(RNG.integers(0, 3)) for m in ("bleu_1", "rouge_1", "cosine")}}
            for i, a in enumerate(aspects)]
    _same("meddisk", {"scoring": {}}, rows)


@pytest.mark.parametrize("empty_rows", [0, 3])
def test_clibench_with_dropped_admissions(empty_rows):
    rows = []
    for i in range(14):
        counts = [[int(t), int(t + p), int(t + g)] for t, p, g in RNG.integers(0, 4, (5, 3))]
        rows.append({"id": f"a{i}", "counts": None if i < empty_rows else counts})
    rows.append({"id": "zero", "counts": [[0, 0, 2]] * 5})
    _same("clibench", {"data": {"task": "diagnoses"}}, rows)


def test_clue_means_and_an_undefined_metric():
    summary = [{"id": f"s{i}", "dataset": "problem_summary", "status": "ok",
                "metrics": {"rouge_l": float(RNG.random() * 100), "rouge_1": 100 / 3,
                            "rouge_2": float(RNG.random()), "bertscore_f1": 0.1 * i,
                            "umls_f1": None if i == 4 else float(RNG.random())}}
               for i in range(9)]
    _same("clue", {}, summary)
    nli = [{"id": f"n{i}", "dataset": "mednli", "status": "ok",
            "metrics": {"accuracy": 100.0 * (i % 3 == 0)}} for i in range(11)]
    _same("clue", {}, nli)
    _same("clue", {}, summary + nli)  # rows of two datasets: each has its own parts


def _medeval_row(i: int, kind: str) -> dict:
    domain = ["chest", "foot", "ankle", "knee"][i % 4]
    row = {"id": f"m{i}", "task": kind, "domain": domain,
           "group": "chest" if domain == "chest" else "miscellaneous", "split": "test",
           "draw": 0, "evaluated": i % 7 != 6}
    if kind == "abnormality":
        prediction = [None, "abnormal", "normal"][int(RNG.integers(0, 3))]
        reference = ["abnormal", "normal"][int(RNG.integers(0, 2))]
        row |= {"prediction": prediction, "qualified": prediction is not None,
                "reference": reference, "correct": prediction == reference}
    elif kind == "codes":
        codes = {"chest": ["A", "B"], "foot": ["C"], "ankle": ["D", "E", "F"],
                 "knee": ["G"]}[domain]
        reference = {c: str(RNG.integers(0, 2)) for c in codes}
        prediction = {c: str(RNG.integers(0, 2)) for c in codes[: 1 + i % len(codes)]}
        row |= {"prediction": prediction, "qualified": i % 5 != 0, "reference": reference,
                "conflicts": [], "exact_match": prediction == reference}
    else:
        row |= {"prediction": _text(1 + i % 6), "reference": _text(3 + i % 4)}
        if kind == "summarization":
            row["rouge"] = {k: float(RNG.random() * 100) for k in ("rouge_1", "rouge_2",
                                                                  "rouge_l")}
        else:
            labels = {k: bool(RNG.integers(0, 2)) for k in ("ambiguous", "abnormal")}
            row |= {"original": _text(5), "labels": labels,
                    "judged": {k: {"original": bool(RNG.integers(0, 2)),
                                   "rewrite": bool(RNG.integers(0, 2))} for k in labels}}
    return row


@pytest.mark.parametrize("kind", ["abnormality", "codes", "summarization", "rewriting"])
@pytest.mark.parametrize("scoring", [{}, {"unqualified": "exclude"},
                                     {"bleu": {"level": "sentence", "lowercase": True}}])
def test_medeval_every_task_kind(kind, scoring):
    rows = [_medeval_row(i, kind) for i in range(15)]
    _same("medeval", {"scoring": scoring}, rows)


def test_medeval_rewriting_judged_by_a_model_that_answers_off_format():
    rows = [_medeval_row(i, "rewriting") for i in range(15)]
    for i, row in enumerate(rows):
        row["judge_kind"] = "model"
        if i % 3 == 0:  # off format: no verdict
            row["judged"]["abnormal"]["rewrite"] = None
    _same("medeval", {"scoring": {}}, rows)
    drawn = resamples(len(rows), BootstrapSettings(samples=5))
    found = get_benchmark("medeval").headline_replicates({"scoring": {}}, rows, drawn)
    assert any(key.endswith("judge_qr_ab_rewrite") for key in found)


def test_medeval_code_rows_of_one_domain_must_share_their_codes():
    rows = [_medeval_row(i, "codes") for i in range(8)]
    rows[4]["reference"] = {"Z": "1"}
    drawn = resamples(len(rows), BootstrapSettings(samples=5))
    with pytest.raises(ValueError, match=r"code rows \['m4'\]"):
        get_benchmark("medeval").headline_replicates({"scoring": {}}, rows, drawn)
