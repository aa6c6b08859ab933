"""Build a model's backend and its token counter from the model's (validated) config."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from clineval.inference.base import Backend
from clineval.inference.tokens import ApproxTokenCounter, ChatTokenCounter

Answer = Callable[[dict[str, Any]], str]


def make_backend(
    model: Mapping[str, Any],
    model_dir: Path | None,
    *,
    baseline_answer: Answer | None = None,
    examples: Mapping[str, dict[str, Any]] | None = None,
) -> Backend:
    """The backend ``model["backend"]`` names. Engines load here (vLLM, transformers).

    ``model_dir``: local weights (transformers, vllm). ``baseline_answer`` and ``examples``
    (by id): the benchmark's answer function for a baseline, which this package cannot know.
    """
    backend = model["backend"]
    if backend == "baseline":
        from clineval.inference.baseline import BaselineBackend

        if baseline_answer is None or examples is None:
            raise ValueError(f"baseline {model.get('baseline')!r} needs its answer and examples")
        return BaselineBackend(model["baseline"], baseline_answer, dict(examples))
    if backend == "openai":
        from clineval.inference.openai_backend import OpenAIBackend

        return OpenAIBackend(model["api"], model.get("client") or {}, model["sampling"])
    if model_dir is None:
        raise ValueError(f"a {backend} model ({model.get('id')}) needs a local model directory")
    if backend == "transformers":
        from clineval.inference.transformers_backend import TransformersBackend

        return TransformersBackend(model_dir, model["sampling"], model.get("engine") or {})
    if backend == "vllm":
        from clineval.inference.vllm_backend import VllmBackend

        return VllmBackend(
            model_dir,
            model["sampling"],
            model.get("engine") or {},
            max_model_len=int(model["context"]["max_model_len"]),
        )
    raise ValueError(f"backend {backend!r} is not available")


def make_token_counter(
    model: Mapping[str, Any], model_dir: Path | None
) -> Callable[..., int]:
    """Exact counts from the local tokenizer + chat template; an estimate for API models."""
    if model["backend"] == "openai":
        context = model.get("context") or {}
        return ApproxTokenCounter(chars_per_token=float(context.get("chars_per_token", 3.0)))
    if model_dir is None:
        raise ValueError(f"a {model['backend']} model ({model.get('id')}) has no tokenizer")
    template = (model.get("engine") or {}).get("chat_template")
    return ChatTokenCounter(
        model_dir, Path(template).read_text(encoding="utf-8") if template else None
    )
