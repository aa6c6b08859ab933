"""MedDisK's baselines as non-model "models": each maps an example to a response.

- ``oracle``: the KB's own value, written as the answer sentence (``<disease>的<label><verb>
  <value>。``): every metric is 1 after post-processing, so the score is exactly 10.00.
- ``constant``: "无" (zh) or "none" (en) for everything: BC exactly where the KB says none.
- ``swap``: another evaluated disease's value for the same aspect (a seeded draw,
  ``scoring.baselines.seed``): how much similarity a fluent but wrong answer gets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from clineval.benchmarks.base.exemplars import rank
from clineval.benchmarks.base.settings import read
from clineval.io import Record

BASELINES = ("oracle", "constant", "swap")
_NONE = {"zh": "无", "en": "none"}
_SEPARATOR = {"zh": "；", "en": "; "}


def answer_sentence(example: Record, value: Any) -> str:
    """The answer sentence the paper's pattern extracts from, for ``value``."""
    lang = example["lang"]
    if isinstance(value, list):
        text = _SEPARATOR[lang].join(value) or _NONE[lang]
    else:
        text = str(value) if value != "" else _NONE[lang]
    if lang == "zh":
        return f"{example['disease']}的{example['label']}{example['verb']}{text}。"
    return f"The {example['label']} of {example['disease']} {example['verb']} {text}."


def oracle(example: Record) -> str:
    return answer_sentence(example, example["reference"])


def constant(example: Record) -> str:
    return _NONE[example["lang"]]


def swap(seed: int, examples: list[Record]) -> Callable[[Record], str]:
    """Another disease's value of the same aspect, drawn by seeded rank (itself if alone)."""
    by_aspect: dict[str, list[Record]] = {}
    for example in examples:
        by_aspect.setdefault(example["aspect"], []).append(example)

    def answer(example: Record) -> str:
        others = [e for e in by_aspect.get(example["aspect"], [])
                  if e["disease_id"] != example["disease_id"]] or [example]
        chosen = min(others, key=lambda e: rank(f"{example['id']}>{e['id']}", seed))
        return answer_sentence(example, chosen["reference"])

    return answer


def get(name: str, settings: Record | None, examples: list[Record] | None
        ) -> Callable[[Record], str]:
    """The baseline ``name`` under the task's ``scoring.baselines`` ``settings`` (``swap``
    draws from ``examples``, the task's examples)."""
    from clineval.benchmarks.meddisk.settings import Baselines

    if name == "oracle":
        return oracle
    if name == "constant":
        return constant
    if name == "swap":
        if examples is None:
            raise ValueError("the swap baseline needs the task's examples")
        return swap(read(Baselines, settings, "scoring.baselines").seed, examples)
    raise KeyError(f"unknown MedDisK baseline {name!r}; known: {', '.join(BASELINES)}")
