"""Build a model's backend and its token counter from the model's (validated) config."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from clineval.errors import a_or_an
from clineval.inference.base import Backend
from clineval.inference.registry import Answer, Inputs, backend_of
from clineval.inference.tokens import ApproxTokenCounter, ChatTokenCounter


def make_backend(
    model: Mapping[str, Any],
    model_dir: Path | None,
    *,
    baseline_answer: Answer | None = None,
    examples: Mapping[str, dict[str, Any]] | None = None,
    task: str | None = None,
) -> Backend:
    """The backend ``model["backend"]`` names (its ``BACKEND.load``). Engines load here.

    ``model_dir``: local weights (a ``local_weights`` backend). ``baseline_answer`` and
    ``examples`` (by id): the benchmark's answer function for a baseline, which this package
    cannot know. ``task``: the task whose cells the backend answers (recorded outputs: its
    file and rows).
    """
    return backend_of(model).load(Inputs(model, model_dir, baseline_answer, examples, task))


def make_token_counter(
    model: Mapping[str, Any], model_dir: Path | None
) -> Callable[..., int]:
    """Exact counts from the local tokenizer + chat template; an estimate for remote models."""
    if backend_of(model).remote:
        context = model.get("context") or {}
        return ApproxTokenCounter(chars_per_token=float(context.get("chars_per_token", 3.0)))
    if model_dir is None:
        raise ValueError(f"{a_or_an(model['backend'])} model ({model.get('id')}) has no tokenizer")
    template = (model.get("engine") or {}).get("chat_template")
    return ChatTokenCounter(
        model_dir, Path(template).read_text(encoding="utf-8") if template else None
    )
