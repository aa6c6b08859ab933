"""Score CLUE outputs: extraction and metrics per example, the paper's metrics per dataset.

All metric values are on a 0-100 scale. Task settings read (``task["scoring"]``), with defaults:

- ``rouge.use_stemmer``: false (as CLUE's evaluation, Hugging Face ``evaluate``'s rouge defaults)
- ``bertscore``: ``model`` (``bundled-minilm`` or a local directory), ``num_layers`` (null: the
  last layer), ``rescale_with_baseline`` (false), ``baseline_path``, ``device``
- ``umls``: ``enabled`` (true), ``spacy_model`` (``en_core_sci_sm``), ``linker_dir``, ``kb_path``
- ``codes.count_repeats``: false (true: a repeated code counts in EM precision and the valid share
  each time, as CLUE's evaluation did)
"""

from __future__ import annotations

from typing import Any

from clineval.benchmarks.clue.aggregate import PAPER_METRICS, dataset_summary
from clineval.benchmarks.clue.extract import extract
from clineval.metrics import codes
from clineval.metrics.bertscore import BertScoreSettings, bertscore_f1
from clineval.metrics.rouge import rouge_f1
from clineval.metrics.umls import UmlsSettings, UmlsStatus, load, umls_f1

SUMMARY_DATASETS = ("meqsum", "problem_summary", "medisumqa")


def _settings(task: dict[str, Any]) -> dict[str, Any]:
    """The task's scoring settings (the task's schema checks them)."""
    return dict(task.get("scoring") or {})


def _umls(settings: dict[str, Any]) -> tuple[Any, UmlsStatus]:
    umls = dict(settings.get("umls") or {})
    if not umls.pop("enabled", True):
        model = umls.get("spacy_model", UmlsSettings.spacy_model)
        return None, UmlsStatus(False, "disabled by the setting umls.enabled", model)
    return load(UmlsSettings.from_dict(umls))


def _score_summaries(
    rows: list[dict[str, Any]],
    predictions: list[str],
    references: list[str],
    settings: dict[str, Any],
    with_umls: bool,
) -> dict[str, Any]:
    """ROUGE, BERTScore and (Problem Summary, MeDiSumQA) UMLS F1 into ``rows``; the scorer info."""
    stem = bool((settings.get("rouge") or {}).get("use_stemmer", False))
    bert, info = bertscore_f1(
        predictions, references, BertScoreSettings.from_dict(settings.get("bertscore"))
    )
    extractor, state = _umls(settings) if with_umls else (None, None)
    for row, prediction, reference, f1 in zip(rows, predictions, references, bert, strict=True):
        row["metrics"] = {**rouge_f1(prediction, reference, use_stemmer=stem), "bertscore_f1": f1}
        if with_umls:
            row["metrics"]["umls_f1"] = (
                umls_f1(prediction, reference, extractor).f1 if extractor else None
            )
    details: dict[str, Any] = {"bertscore": info.as_dict()}
    if state is not None:
        details["umls"] = state.as_dict()
    return details


def _score_dataset(
    dataset: str,
    examples: list[dict[str, Any]],
    outputs: dict[str, str],
    settings: dict[str, Any],
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    predictions: list[Any] = []
    for example in examples:
        found = extract(example, outputs[example["id"]])
        predictions.append(found.prediction)
        row: dict[str, Any] = {"id": example["id"], "dataset": dataset, "status": found.status}
        if dataset not in SUMMARY_DATASETS:
            row["prediction"] = found.prediction
            row["reference"] = example["reference"]
        rows.append(row)
    details: dict[str, Any] = {}
    if dataset in SUMMARY_DATASETS:
        references = [e["reference"] for e in examples]
        with_umls = "umls_f1" in PAPER_METRICS[dataset]
        details = _score_summaries(rows, predictions, references, settings, with_umls)
    elif dataset == "medisumcode":
        repeats = bool((settings.get("codes") or {}).get("count_repeats", False))
        for row, predicted, example in zip(rows, predictions, examples, strict=True):
            row["metrics"] = {
                "em_f1": codes.exact_f1(predicted, example["reference"], count_repeats=repeats).f1,
                "ap_f1": codes.category_f1(predicted, example["reference"]).f1,
                "valid_codes": codes.valid_share(predicted, count_repeats=repeats),
            }
    else:
        for row, predicted, example in zip(rows, predictions, examples, strict=True):
            row["metrics"] = {"accuracy": 100.0 * (predicted == example["reference"])}
    return rows, {**dataset_summary(dataset, rows), **details}


def score(
    task: dict[str, Any], examples: list[dict[str, Any]], generations: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Per-example rows and the cell summary: ``{"n", "datasets": {dataset: {"n", "metrics",
    "status_counts", ["bertscore"], ["umls"]}}}``, grouped by each example's ``dataset``."""
    settings = _settings(task)
    outputs = {g["id"]: g["output"] for g in generations}
    missing = [e["id"] for e in examples if e["id"] not in outputs]
    if missing:
        raise ValueError(f"no generation for {len(missing)} example(s), e.g. {missing[:3]}")
    by_dataset: dict[str, list[dict[str, Any]]] = {}
    for example in examples:
        if example["dataset"] not in PAPER_METRICS:
            raise ValueError(f"example {example['id']!r}: unknown dataset {example['dataset']!r}")
        by_dataset.setdefault(example["dataset"], []).append(example)
    rows: list[dict[str, Any]] = []
    datasets: dict[str, Any] = {}
    for dataset in (d for d in PAPER_METRICS if d in by_dataset):
        dataset_rows, datasets[dataset] = _score_dataset(
            dataset, by_dataset[dataset], outputs, settings
        )
        rows.extend(dataset_rows)
    return rows, {"n": len(rows), "scale": "0-100", "datasets": datasets}
