"""The schema of a model config (``conf/model/*.yaml``, ``models.<name>``), per backend.

The keys every model has are declared here; each backend's own sections (``engine``,
``client``, ...) are declared by the backend's module, in its ``BACKEND``
(:mod:`clineval.inference.registry`). Rules between keys (a vllm model needs
``context.max_model_len``; a remote model must say whether credentialed data may reach it) stay
in :func:`clineval.config.validate.validate_model`, read from the same declaration.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass, make_dataclass
from functools import cache
from typing import Any

from clineval.benchmarks.base.settings import MISSING, setting
from clineval.config.prompt_kind import KINDS as PROMPT_KINDS
from clineval.inference.context import TruncationPolicy
from clineval.inference.registry import backends


@dataclass
class Truncation:
    """How a request too long for the context is cut (``tasks.<task>.truncation``)."""

    field: str | None = None  # the input field to shorten; null: the longest
    cut_from: str = setting("end", choices=typing.get_args(
        typing.get_type_hints(TruncationPolicy)["cut_from"]))


@dataclass
class Context:
    max_model_len: int | None = setting(None, ge=1)
    truncation: Truncation | None = None
    chars_per_token: float | None = setting(None, gt=0)  # API models: the length estimate


@dataclass
class Sampling:
    temperature: float = setting(MISSING, ge=0)
    top_p: float | None = setting(None, gt=0, le=1)
    top_k: int | None = setting(None, ge=0)
    max_tokens: int | None = setting(None, ge=1)  # null: each task's budget (config/budget.py)
    seed: int = MISSING
    repetition_penalty: float | None = setting(None, gt=0)
    #: end an output whose last N tokens repeat with a short period (transformers: LoopStop)
    stop_loop: int | None = setting(None, ge=16)
    stop: Any = None  # a string or a list of strings
    json_schema: dict[str, Any] | None = None


@dataclass(frozen=True)
class Resources:
    """``resources:`` of a model's generation jobs or a task's scoring jobs on a cluster
    (docs/slurm.md); part of no identity."""

    gpus: int = setting(0, ge=0)
    gpu_model: str | None = None
    cpus_per_gpu: int = setting(8, ge=1)
    cpus: int = setting(2, ge=1)
    mem_mb: int = setting(8000, ge=1)
    runtime: int = setting(120, ge=1)
    partition: str | None = None
    shards: int = setting(1, ge=1)


@dataclass
class Access:
    """What a remote model may receive beyond public and synthetic data (the tiers of
    :data:`clineval.config.schema.tasks.ACCESS`; :mod:`clineval.workflow.plan.access`)."""

    #: credentialed data (MIMIC, ...): a remote model must say true or false
    allow_credentialed_data: bool | None = None
    #: unreleased and private data (a MedDisK knowledge base, the user's own files); null: false
    allow_private_data: bool | None = None


@dataclass
class Model:
    """The keys of every model config; ``engine``, ``client`` and ``api`` are the backend's
    (its ``BACKEND.sections``)."""

    id: str = MISSING
    revision: str = MISSING
    backend: str = setting(MISSING, choices=backends, noun="backends")
    display_name: str = MISSING
    size: str | None = None
    smoke: bool = False
    prompt_kind: str = setting("auto", choices=PROMPT_KINDS, noun="prompt kinds")
    path: str | None = None  # local weights
    build: dict[str, Any] | None = None  # what the workflow builds (a GGUF, a tiny model)
    context: Context | None = None
    sampling: Sampling | None = None
    engine: dict[str, Any] | None = None
    client: dict[str, Any] | None = None
    api: dict[str, Any] | None = None
    baseline: str | None = None  # a baseline model's answer (the benchmarks' baselines)
    resources: Resources | None = None
    access: Access | None = None


@cache
def model_schema(backend: str, judge: bool = False) -> type:
    """The model schema of ``backend`` (a known one, or ``""``: the common keys alone), with
    the sections it declares; a judge (a model a task's scoring runs) keeps the ``preset`` it
    was named by."""
    sections = backends()[backend].sections if backend else {}
    fields: list[Any] = [(key, section | None, None) for key, section in sections.items()]
    if judge:
        fields.append(("preset", str, MISSING))
    if not fields:
        return Model
    return make_dataclass(f"{backend.title()}Model{'Judge' if judge else ''}", fields,
                          bases=(Model,))
