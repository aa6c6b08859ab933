"""MedEval's non-model baselines: each maps an example to an output text.

- ``oracle``: the gold answer in the answer format (label word, code vector, expert rewrite or
  impression): accuracy 1, EMR 1, BLEU 100 (an upper bound and a check of the scorer).
- ``lower_bound``: the majority class of the example's domain in the train split for the NLU
  tasks (per code for code prediction), and the input itself as the rewrite or summary for the
  NLG tasks (the classic lower bound: ΔAcc 0 for rewriting).
"""

from __future__ import annotations

from collections.abc import Callable

from clineval.benchmarks.medeval.codes import render_codes
from clineval.benchmarks.medeval.prompts import answer_text
from clineval.io import Record

BASELINES = ("oracle", "lower_bound")


def lower_bound(example: Record) -> str:
    kind = example["task"]
    if kind == "rewriting":
        return example["fields"]["sentence"]
    if kind == "summarization":
        return example["fields"]["report"]
    majority = example["meta"].get("train_majority")
    if majority is None:
        raise ValueError(f"example {example['id']!r}: the train split of domain "
                         f"{example['domain']!r} has no labelled example for a majority class")
    return render_codes(majority) if isinstance(majority, dict) else str(majority)


def get(name: str) -> Callable[[Record], str]:
    if name == "oracle":
        return answer_text
    if name == "lower_bound":
        return lower_bound
    raise KeyError(f"unknown MedEval baseline {name!r}; known: {', '.join(BASELINES)}")
