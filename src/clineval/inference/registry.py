"""Model backends, looked up by the name a model config gives in ``backend``.

A backend is a module ``<name>_backend`` of this package that declares ``BACKEND``, a
:class:`BackendSpec`: the config sections it owns, its capabilities (what the config checks,
the prompt kind, the identities and the cluster jobs read of it) and how it is loaded. The
registry finds the modules by their file names, so a new backend is its module and its model
configs in ``conf/model/`` (docs/backends.md, Adding a backend). A backend module imports its
engine (torch, vLLM, ...) only when it is loaded, so that planning never does.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from clineval.errors import a_or_an
from clineval.inference.base import Backend

Answer = Callable[[dict[str, Any]], str]
#: The file name that makes a module of this package a backend.
SUFFIX = "_backend"


@dataclass(frozen=True)
class Inputs:
    """What a backend is built from: its model's validated config, the local model folder (a
    ``local_weights`` backend's, never None there), a baseline's answer function (the
    benchmark's) with the examples it answers, by id (a ``baseline`` backend's, never None), and
    the task whose cells it answers (a ``recorded`` backend's: that task's file and rows)."""

    model: Mapping[str, Any]
    model_dir: Path | None = None
    answer: Answer | None = None
    examples: Mapping[str, dict[str, Any]] | None = None
    task: str | None = None

    def folder(self) -> Path:
        """The local model folder (ValueError without one)."""
        if self.model_dir is None:
            raise ValueError(f"{a_or_an(self.model['backend'])} model ({self.model.get('id')}) "
                             "needs a local model directory")
        return self.model_dir


def engine_batch_size(model: Mapping[str, Any], todo: int) -> int:
    """Requests per ``generate`` call: ``engine.batch_size``, else 8."""
    return int((model.get("engine") or {}).get("batch_size", 8))


@dataclass(frozen=True)
class BackendSpec:
    """A backend's declaration (its module's ``BACKEND``); every rule about a backend reads it."""

    name: str  # the model config's ``backend``
    load: Callable[[Inputs], Backend]  # builds the backend (imports its engine)
    #: the model config's sections it owns -> their schema (``{"engine": VllmEngine}``)
    sections: Mapping[str, type] = field(default_factory=dict)
    #: keys a section of its model configs must set (``{"context": ("max_model_len",)}``)
    required: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: generates from a local model folder (``path`` or ``build``): its files are hashed into
    #: the generation identity, and its tokenizer counts prompt tokens exactly
    local_weights: bool = False
    #: sends prompts to a server: its configs must say whether credentialed data may go there
    #: (``access.allow_credentialed_data``), the plan checks each cell's data against its
    #: ``access`` (:mod:`clineval.workflow.plan.access`), and prompt lengths are estimated
    remote: bool = False
    chat_only: bool = False  # takes chat requests only (``prompt_kind: completion`` refused)
    #: answers with a benchmark's baseline function (the config's ``baseline``) from the task's
    #: examples: reads no prompt, samples nothing
    baseline: bool = False
    #: answers from a file of outputs keyed by example id (the config's ``recorded`` section):
    #: generates and samples nothing, needs no GPU; the file's sha256 is part of the
    #: generation identity and the tables mark the model
    recorded: bool = False
    unsupported_sampling: frozenset[str] = frozenset()  # ``sampling`` keys it cannot apply
    conda_env: str = "cpu.yaml"  # the env file (in envs/) of its generation jobs
    #: the ``engine`` key whose value (1 when unset) is the number of GPUs a job must hold, and
    #: why (``("tensor_parallel_size", "one GPU per tensor-parallel shard")``); an engine whose
    #: ``device`` is ``cpu`` holds none
    gpus_per_job: tuple[str, str] | None = None
    #: requests per ``generate`` call, from the model config and the number of requests to do
    batch_size: Callable[[Mapping[str, Any], int], int] = engine_batch_size

    @property
    def per_example(self) -> bool:
        """Answers each example by its id, not from its prompt (a baseline, recorded outputs):
        two examples with the same prompt must not share an answer."""
        return self.baseline or self.recorded


@cache
def backends() -> dict[str, BackendSpec]:
    """Every backend by name, sorted: the ``BACKEND`` of each ``*_backend`` module here."""
    package = importlib.import_module(__package__)
    found = {}
    for module in pkgutil.iter_modules(package.__path__):
        if module.name.endswith(SUFFIX):
            spec = importlib.import_module(f"{__package__}.{module.name}").BACKEND
            found[spec.name] = spec
    return dict(sorted(found.items()))


def get_backend(name: str) -> BackendSpec:
    """The backend a model config names (KeyError listing the known ones)."""
    known = backends()
    if name not in known:
        raise KeyError(f"unknown backend {name!r}; known: {', '.join(known)}")
    return known[name]


def backend_of(model: Mapping[str, Any]) -> BackendSpec:
    """The backend of a (validated) model config."""
    return get_backend(model["backend"])
