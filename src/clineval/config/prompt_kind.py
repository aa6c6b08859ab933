"""A model's prompt kind: ``chat`` (requests go through its chat template) or ``completion``
(a base model without one: a prompt is raw text to continue).

``models.<name>.prompt_kind``: ``chat``, ``completion`` or ``auto`` (default): by whether the
model has a chat template, known at plan time from its config and files:

- models of a backend that takes chat requests only (``openai``: its ``BACKEND.chat_only``)
  and baselines: ``chat`` (chat endpoints; baselines read no prompt);
- ``engine.chat_template`` set: ``chat``;
- a local snapshot (``path``): ``chat`` when its ``tokenizer_config.json`` holds a
  ``chat_template`` or a ``chat_template.jinja`` is beside it, else ``completion``; a snapshot
  not readable at plan time is taken as ``chat`` with a warning (set the key to be sure);
- a model the workflow builds (``build``, the smoke model): ``chat`` (the builder writes one).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from clineval.errors import ConfigError
from clineval.inference.registry import backend_of

log = logging.getLogger("clineval")
KINDS = ("chat", "completion", "auto")


def _has_chat_template(model_dir: Path) -> bool | None:
    """Whether a local snapshot ships a chat template (None: its tokenizer files are absent)."""
    if (model_dir / "chat_template.jinja").is_file():
        return True
    config = model_dir / "tokenizer_config.json"
    if not config.is_file():
        return None
    try:
        return bool(json.loads(config.read_text(encoding="utf-8")).get("chat_template"))
    except json.JSONDecodeError as err:
        raise ConfigError(f"{config}: not JSON ({err}); cannot tell whether the model has a "
                          "chat template") from err


def prompt_kind(name: str, model: Mapping[str, Any]) -> str:
    """The resolved prompt kind (``chat`` or ``completion``) of ``models.<name>`` (validated:
    one of ``KINDS``)."""
    kind = model.get("prompt_kind") or "auto"
    if kind != "auto":
        return str(kind)
    backend = backend_of(model)
    if backend.chat_only or backend.baseline or (model.get("engine") or {}).get("chat_template"):
        return "chat"
    if model.get("path"):
        found = _has_chat_template(Path(model["path"]))
        if found is None:
            log.warning("models.%s: no tokenizer_config.json in %s at plan time; prompt_kind "
                        "auto is taken as chat (set prompt_kind to be sure)", name, model["path"])
        return "completion" if found is False else "chat"
    return "chat"
