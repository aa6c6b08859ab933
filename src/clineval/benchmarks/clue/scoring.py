"""Score CLUE outputs: extraction and metrics per example, the paper's metrics per dataset.

All metric values are on a 0-100 scale. Task settings read (``task["scoring"]``; their defaults:
settings.py, ``Scoring``):

- ``rouge.use_stemmer``: false (as CLUE's evaluation, Hugging Face ``evaluate``'s rouge defaults)
- ``bertscore``: ``model`` (``bundled-minilm`` or a local directory), ``num_layers`` (null: the
  last layer), ``rescale_with_baseline`` (false), ``baseline_path``, ``device``
- ``umls``: ``enabled`` (true), ``spacy_model`` (``en_core_sci_sm``), ``linker_dir``, ``kb_path``
- ``codes.count_repeats``: false (true: a repeated code counts in EM precision and the valid share
  each time, as CLUE's evaluation did)

LongHealth rows are read carefully (``extract.option_answer``): a letter whose option text is
another option's or none, or that repeats the prompt's format example, earns nothing. So do
MeDiSumCode codes that repeat an exemplar's answer (``extract.code_answer``), and a summary
(MeQSum, Problem Summary, MeDiSumQA) that only replays an exemplar's answer. Such a row keeps
``literal``, its fields under the paper's reading (the letter alone, every code), and a copied
example sets the row's ``copied`` (docs/clue.md, "Copied text and readings").
"""

from __future__ import annotations

import dataclasses
from typing import Any

from clineval.benchmarks.base import literal_rows
from clineval.benchmarks.base.settings import read
from clineval.benchmarks.clue.aggregate import PAPER_METRICS, dataset_summary, summarize_rows
from clineval.benchmarks.clue.extract import (
    COPIED_EXAMPLE,
    code_answer,
    exemplar_codes,
    extract,
    format_examples,
    option_answer,
    replayed_answer,
)
from clineval.benchmarks.clue.settings import Scoring
from clineval.metrics import codes, copying
from clineval.metrics.bertscore import bertscore_f1
from clineval.metrics.rouge import rouge_f1
from clineval.metrics.umls import UmlsSettings, UmlsStatus, load, umls_f1

SUMMARY_DATASETS = ("meqsum", "problem_summary", "medisumqa")


def _settings(task: dict[str, Any]) -> Scoring:
    """The task's scoring settings, typed."""
    return read(Scoring, task.get("scoring"), "scoring")


def _umls(settings: Scoring) -> tuple[Any, UmlsStatus]:
    umls = settings.umls
    if not umls.enabled:
        return None, UmlsStatus(False, "disabled by the setting umls.enabled", umls.spacy_model)
    return load(UmlsSettings(**{f.name: getattr(umls, f.name)
                                for f in dataclasses.fields(UmlsSettings)}))


def _score_summaries(
    rows: list[dict[str, Any]],
    predictions: list[str],
    references: list[str],
    settings: Scoring,
    with_umls: bool,
) -> dict[str, Any]:
    """ROUGE, BERTScore and (Problem Summary, MeDiSumQA) UMLS F1 into ``rows``; the scorer info."""
    stem = settings.rouge.use_stemmer
    bert, info = bertscore_f1(predictions, references, settings.bertscore)
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


def _accuracy(predicted: Any, reference: Any) -> dict[str, float]:
    return {"accuracy": 100.0 * (predicted == reference)}


def _copied_example(output: str, span: str, messages: list[dict[str, str]] | None
                    ) -> dict[str, Any]:
    """The row's ``copied`` for an answer that repeats a shown answer (``span``, its text as
    the prompt shows it): the share of the output's words in that answer and, with the
    prompt, the share copied from the whole prompt (:mod:`clineval.metrics.copying`)."""
    tokens = copying.words(output)
    share = min(1.0, len(copying.words(span)) / len(tokens)) if tokens else 0.0
    total = share
    if messages is not None:
        prompt = copying.Prompt.of(messages)
        parts = [prompt.system, prompt.user, *prompt.exemplar_answers, *prompt.exemplar_inputs]
        total = max(share, copying.copied_share(output, parts))
    return {"kind": "instruction", "share": round(share, 4), "total": round(total, 4)}


def _longhealth_row(example: dict[str, Any], output: str,
                    messages: list[dict[str, str]] | None) -> dict[str, Any]:
    """A LongHealth row under the careful reading, with ``literal`` where the paper's differs."""
    read = option_answer(output, example, format_examples(messages))
    row: dict[str, Any] = {
        "id": example["id"], "dataset": example["dataset"], "status": read.careful.status,
        "prediction": read.careful.prediction, "reference": example["reference"],
        "metrics": _accuracy(read.careful.prediction, example["reference"]),
    }
    if read.text:
        row["option_text"] = read.text
    if read.careful != read.literal:
        row["literal"] = {"status": read.literal.status, "prediction": read.literal.prediction,
                          "metrics": _accuracy(read.literal.prediction, example["reference"])}
    if read.copied is not None:
        span = f"The correct answer is {read.copied.letter}: {read.copied.text}"
        row["copied"] = {**_copied_example(output, span, messages),
                         "kind": read.copied.kind}
    return row


def _read_replay(row: dict[str, Any], summary: str, output: str,
                 messages: list[dict[str, str]] | None) -> None:
    """A summary that only replays an exemplar's answer (another question's summary) is no
    summary: its metrics become 0, and ``literal`` keeps them as written (the paper's reading)."""
    replayed = replayed_answer(summary, messages)
    if replayed is None:
        return
    row["literal"] = {"status": row["status"], "metrics": row["metrics"]}
    row["status"] = COPIED_EXAMPLE
    row["metrics"] = {name: None if value is None else 0.0
                      for name, value in row["metrics"].items()}
    row["copied"] = {**_copied_example(output, replayed, messages), "kind": "exemplar"}


def _code_metrics(predicted: list[str], reference: list[str], repeats: bool) -> dict[str, float]:
    return {
        "em_f1": codes.exact_f1(predicted, reference, count_repeats=repeats).f1,
        "ap_f1": codes.category_f1(predicted, reference).f1,
        "valid_codes": codes.valid_share(predicted, count_repeats=repeats),
    }


def _medisumcode_row(example: dict[str, Any], output: str,
                     messages: list[dict[str, str]] | None, repeats: bool) -> dict[str, Any]:
    """A MeDiSumCode row under the careful reading, with ``literal`` where the paper's
    differs (codes that repeat an exemplar's answer)."""
    read = code_answer(output, exemplar_codes(messages))
    reference = example["reference"]
    row: dict[str, Any] = {
        "id": example["id"], "dataset": example["dataset"], "status": read.careful.status,
        "prediction": read.careful.prediction, "reference": reference,
        "metrics": _code_metrics(read.careful.prediction, reference, repeats),
    }
    if read.copied is not None:
        row["literal"] = {"status": read.literal.status, "prediction": read.literal.prediction,
                          "metrics": _code_metrics(read.literal.prediction, reference, repeats)}
        row["copied"] = {**_copied_example(output, read.copied, messages), "kind": "exemplar"}
    return row


def _score_dataset(
    dataset: str,
    examples: list[dict[str, Any]],
    outputs: dict[str, str],
    settings: Scoring,
    prompts: dict[str, list[dict[str, str]] | None],
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    predictions: list[Any] = []
    if dataset.startswith("longhealth_"):
        rows = [_longhealth_row(e, outputs[e["id"]], prompts.get(e["id"])) for e in examples]
        return rows, dataset_summary(dataset, rows)
    if dataset == "medisumcode":
        repeats = settings.codes.count_repeats
        rows = [_medisumcode_row(e, outputs[e["id"]], prompts.get(e["id"]), repeats)
                for e in examples]
        return rows, dataset_summary(dataset, rows)
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
        for row, predicted in zip(rows, predictions, strict=True):
            _read_replay(row, predicted, outputs[row["id"]], prompts.get(row["id"]))
    else:
        for row, predicted, example in zip(rows, predictions, examples, strict=True):
            row["metrics"] = _accuracy(predicted, example["reference"])
    return rows, {**dataset_summary(dataset, rows), **details}


def score(
    task: dict[str, Any], examples: list[dict[str, Any]], generations: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Per-example rows and the cell summary: ``{"n", "datasets": {dataset: {"n", "metrics",
    "status_counts", ["bertscore"], ["umls"]}}, ["literal"]}``, grouped by each example's
    ``dataset``; ``literal``: the summary under the paper's literal reading, where some row
    reads otherwise. A generation's ``messages`` (its prompt), when given, name the format
    examples a LongHealth answer may copy and the exemplar answers MeDiSumCode codes may
    repeat."""
    settings = _settings(task)
    outputs = {g["id"]: g["output"] for g in generations}
    prompts = {g["id"]: g.get("messages") for g in generations}
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
            dataset, by_dataset[dataset], outputs, settings, prompts
        )
        rows.extend(dataset_rows)
    summary: dict[str, Any] = {"n": len(rows), "scale": "0-100", "datasets": datasets}
    literal = literal_rows(rows)
    if literal is not None:
        summary["literal"] = summarize_rows(literal)
    return rows, summary
