"""Backend for non-model baselines: a benchmark function maps each example to an output."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from clineval.inference.base import Generation
from clineval.inference.registry import BackendSpec, Inputs


class BaselineBackend:
    def __init__(
        self,
        name: str,
        answer: Callable[[dict[str, Any]], str],
        examples: dict[str, dict[str, Any]],
    ):
        self.name = name
        self.answer = answer
        self.examples = examples

    def effective_settings(self) -> dict[str, Any]:
        return {"backend": "baseline", "baseline": self.name}

    def with_max_tokens(self, max_tokens: int) -> BaselineBackend:
        return self

    def generate(self, requests: list[dict[str, Any]]) -> list[Generation]:
        return [Generation(self.answer(self.examples[r["id"]]), "baseline") for r in requests]


def load(inputs: Inputs) -> BaselineBackend:
    """The benchmark's answer function over the task's examples."""
    model = inputs.model
    if inputs.answer is None or inputs.examples is None:
        raise ValueError(f"baseline {model.get('baseline')!r} needs its answer and examples")
    return BaselineBackend(model["baseline"], inputs.answer, dict(inputs.examples))


BACKEND = BackendSpec("baseline", load, baseline=True)
