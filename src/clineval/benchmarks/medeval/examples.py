"""Records of the input formats -> the tasks' examples (test split) and exemplar pools (train).

Every example has ``id``, ``task``, ``domain``, ``group`` (chest / miscellaneous), ``split``,
``fields`` (the prompt's inputs), ``reference`` and ``meta``. Exemplars have the same shape and
come from the train split of the example's domain, ordered by a seeded hash of their ids (the
NLU tasks alternate the classes, so the first k hold every class when k >= 2); each domain keeps
``count x draws`` of them. Validation examples are kept only when ``exemplars.draws > 1`` (the
best-of-draws selection scores them); with several draws every evaluated example appears once
per draw (id ``<id>@d<k>``, ``draw`` k), and draw k's prompts show pool exemplars
``k*count .. (k+1)*count - 1`` of the example's domain.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from typing import Any

from clineval.benchmarks.base.exemplars import pick, rank
from clineval.benchmarks.medeval.formats import (
    ABNORMAL_LABELS,
    AMBIGUOUS_LABELS,
    domain_group,
)
from clineval.io import Record

log = logging.getLogger("clineval")
SENTENCE_TASKS = ("abnormality", "ambiguity", "rewriting")
REPORT_TASKS = ("codes", "summarization")
TASKS = (*SENTENCE_TASKS, *REPORT_TASKS)
#: The classes of the NLU sentence tasks (the label words a model answers with).
LABELS = {"abnormality": ABNORMAL_LABELS, "ambiguity": AMBIGUOUS_LABELS}
#: The paper's few-shot count (App. C.1): as many exemplars as classes, 2 NLU, 3 NLG.
PAPER_SHOTS = {"abnormality": 2, "ambiguity": 2, "rewriting": 3, "codes": 2, "summarization": 3}


def _majority(values: Sequence[str]) -> str | None:
    """The most frequent value (ties: alphabetical first)."""
    counts = Counter(values)
    return min(counts, key=lambda v: (-counts[v], v)) if counts else None


def sentence_example(task: str, record: Record, chest: Sequence[str]) -> Record | None:
    """The record as an example of ``task``; None when it lacks the task's labels."""
    common = {
        "id": record["id"], "task": task, "domain": record["domain"],
        "group": domain_group(record["domain"], chest), "split": record["split"],
        "meta": {"source": record["source"], "row": record["row"], "format": record["format"],
                 "modality": record["modality"], "split_source": record.get("split_source")},
    }
    if task in ("abnormality", "ambiguity"):
        label = record["abnormal" if task == "abnormality" else "ambiguous"]
        if label is None:
            return None
        return {**common, "fields": {"sentence": record["sentence"]}, "reference": label,
                "choices": list(LABELS[task])}
    if record["ambiguous"] != "ambiguous" or not record["rewrite"]:
        return None
    if record["abnormal"] is None:
        log.warning("%s row %s: an ambiguous sentence with a rewrite but no abnormal label is "
                    "left out of the rewriting task (its content distortion needs the label)",
                    record["source"], record["row"])
        return None
    return {
        **common,
        "fields": {"sentence": record["sentence"], "diagnostic": record["abnormal"].capitalize()},
        "reference": record["rewrite"],
        "labels": {"abnormal": record["abnormal"], "ambiguous": "ambiguous"},
    }


def report_example(task: str, record: Record, chest: Sequence[str]) -> Record | None:
    """The report as an example of ``task``; None when it lacks what the task needs."""
    findings, impression = record["findings"], record["impression"]
    common = {
        "id": record["id"], "task": task, "domain": record["domain"],
        "group": domain_group(record["domain"], chest), "split": record["split"],
        "meta": {"source": record["source"], "row": record["row"], "format": record["format"],
                 "modality": record["modality"], "split_source": record.get("split_source")},
    }
    if task == "codes":
        if record["codes"] is None:
            return None
        text = " ".join(p for p in (findings, impression) if p)
        return {**common, "fields": {"report": text}, "reference": record["codes"]}
    if not findings or not impression:
        return None
    return {**common, "fields": {"report": findings}, "reference": impression}


def _ordered_pool(task: str, train: list[Record], seed: int) -> list[Record]:
    """Train records by seeded rank; NLU sentence tasks alternate their classes."""
    ranked = sorted(train, key=lambda r: rank(r["id"], seed))
    if task not in LABELS:
        return ranked
    queues = {label: [r for r in ranked if r["reference"] == label] for label in LABELS[task]}
    ordered: list[Record] = []
    while any(queues.values()):
        for label in LABELS[task]:
            if queues[label]:
                ordered.append(queues[label].pop(0))
    return ordered


def _train_majority(task: str, train: list[Record]) -> Any:
    if task in LABELS:
        return _majority([r["reference"] for r in train])
    if task == "codes" and train:
        codes = list(train[0]["reference"])
        return {c: _majority([r["reference"][c] for r in train]) for c in codes}
    return None


def build(
    task: str,
    examples: list[Record],
    *,
    count: int,
    draws: int,
    seed: int,
    limit: int | None = None,
) -> tuple[list[Record], list[Record]]:
    """(evaluated examples, exemplars) of one task from examples carrying their split.

    Each evaluated example gets ``meta.train_majority`` (the majority class of its domain's train
    split; per code for code prediction), which the majority baseline answers.
    """
    by_domain: dict[str, list[Record]] = {}
    for example in examples:
        by_domain.setdefault(example["domain"], []).append(example)
    evaluated: list[Record] = []
    exemplars: list[Record] = []
    keep = ("test", "validation") if draws > 1 else ("test",)
    for domain in sorted(by_domain):
        records = by_domain[domain]
        train = [r for r in records if r["split"] == "train"]
        majority = _train_majority(task, train)
        pool = _ordered_pool(task, train, seed)[: count * draws]
        for index, record in enumerate(pool):
            exemplars.append({**record, "meta": {**record["meta"], "pool_index": index}})
        for record in records:
            if record["split"] in keep:
                evaluated.append({**record, "meta": {**record["meta"],
                                                     "train_majority": majority}})
    if limit is not None:
        test = [e for e in evaluated if e["split"] == "test"]
        kept = {e["id"] for e in pick(test, int(limit), seed)}
        evaluated = [e for e in evaluated if e["split"] != "test" or e["id"] in kept]
    if draws <= 1:
        return [{**e, "draw": 0} for e in evaluated], exemplars
    return [
        {**e, "id": f"{e['id']}@d{k}", "draw": k, "meta": {**e["meta"], "source_id": e["id"]}}
        for k in range(draws)
        for e in evaluated
    ], exemplars
