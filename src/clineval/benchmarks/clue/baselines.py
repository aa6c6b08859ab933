"""CLUE's baselines as non-model "models": each maps an example to an output text.

As the paper's Section 4.3: a random choice for MedNLI and LongHealth (the paper reports its
expected value; this draws one choice per example), the unchanged input as the summary (MeQSum,
MeDiSumQA; for Problem Summary the paper used the input's UMLS entities, this uses the input
text), and random ICD-10 codes drawn from all codes of the dataset for MeDiSumCode. Every draw is
seeded by ``seed`` and the example id, so it does not depend on example order.

Settings (``scoring.baselines``): ``seed`` (0); ``random_codes.count``: codes per example (null:
as many as the example's reference has).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from clineval.benchmarks.base.settings import read
from clineval.benchmarks.clue.prompts import reference_text
from clineval.io import Record

BASELINES = ("paper", "random_choice", "input", "random_codes")
_INPUT_FIELDS = {
    "meqsum": ("question",),
    "problem_summary": ("subjective", "assessment"),
    "medisumqa": ("discharge_summary",),
}


def _rng(seed: int, example: Record) -> random.Random:
    return random.Random(f"{seed}:{example['id']}")


def random_choice(seed: int) -> Callable[[Record], str]:
    """A uniformly drawn label (MedNLI) or option, written in the paper's answer format."""

    def answer(example: Record) -> str:
        choices = example.get("choices")
        if not choices:
            raise ValueError(f"example {example['id']!r} has no choices for random_choice")
        choice = _rng(seed, example).choice(list(choices))
        if example["dataset"].startswith("longhealth_"):
            option = reference_text({**example, "reference": choice})["reference_option"]
            return f"The correct answer is {option}"
        return choice

    return answer


def input_text(example: Record) -> str:
    """The example's input, unchanged, as its summary or answer."""
    fields = _INPUT_FIELDS.get(example["dataset"])
    if fields is None:
        raise ValueError(f"example {example['id']!r}: the input baseline is for summaries only")
    return "\n\n".join(example["fields"][f] for f in fields)


def random_codes(seed: int, examples: list[Record], count: int | None) -> Callable[[Record], str]:
    """Codes drawn without replacement from every code that occurs in ``examples``."""
    pool = sorted({c for e in examples if e["dataset"] == "medisumcode" for c in e["reference"]})
    if not pool:
        raise ValueError("random_codes needs MeDiSumCode examples with reference codes")

    def answer(example: Record) -> str:
        k = len(example["reference"]) if count is None else int(count)
        return "ICD-10 codes: " + ", ".join(_rng(seed, example).sample(pool, min(k, len(pool))))

    return answer


def paper(seed: int, examples: list[Record] | None, count: int | None) -> Callable[[Record], str]:
    """The paper's "baseline" row: each dataset's baseline, chosen by the example's dataset."""
    choose = random_choice(seed)
    codes = random_codes(seed, examples, count) if examples else None

    def answer(example: Record) -> str:
        dataset = example["dataset"]
        if dataset in _INPUT_FIELDS:
            return input_text(example)
        if dataset == "medisumcode":
            if codes is None:
                raise ValueError("the paper baseline needs the task's examples for MeDiSumCode")
            return codes(example)
        return choose(example)

    return answer


def get(
    name: str, settings: dict[str, Any] | None, examples: list[Record] | None = None
) -> Callable[[Record], str]:
    """The baseline ``name`` under the task's ``scoring.baselines`` ``settings``; the code pool
    of ``random_codes`` (and of ``paper`` on MeDiSumCode) comes from ``examples``, the task's
    examples."""
    from clineval.benchmarks.clue.settings import Baselines

    typed = read(Baselines, settings, "scoring.baselines")
    seed, count = typed.seed, typed.random_codes.count
    if name == "paper":
        has_codes = examples and any(e["dataset"] == "medisumcode" for e in examples)
        return paper(seed, examples if has_codes else None, count)
    if name == "random_choice":
        return random_choice(seed)
    if name == "input":
        return input_text
    if name == "random_codes":
        if examples is None:
            raise ValueError("the random_codes baseline needs the task's examples")
        return random_codes(seed, examples, count)
    raise KeyError(f"unknown CLUE baseline {name!r}; known: {', '.join(BASELINES)}")
