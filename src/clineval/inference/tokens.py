"""Token counters for context limits: exact for local models, approximate for API models."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

Messages = list[dict[str, str]]


class ChatTokenCounter:
    """Exact prompt length: a local tokenizer with its chat template and generation prompt (a
    completion request: the tokenizer alone, with its special tokens).

    This is the prompt the transformers and vLLM backends build, so a request that fits by
    this count fits in the engine.
    """

    def __init__(self, model_dir: Path, chat_template: str | None = None):
        from transformers import AutoTokenizer

        self.tokenizer: Any = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
        self.chat_template = chat_template

    def __call__(self, messages: Messages, completion: bool = False) -> int:
        """``completion``: the one message's text as the backends send it, without template."""
        if completion:
            return len(self.tokenizer(messages[0]["content"])["input_ids"])
        ids = self.tokenizer.apply_chat_template(
            messages,
            chat_template=self.chat_template,
            tokenize=True,
            add_generation_prompt=True,
            return_dict=False,
        )
        return len(ids)


class ApproxTokenCounter:
    """An estimate for API models whose tokenizer is not available locally.

    ``ceil(characters / chars_per_token) + per_message * len(messages) + per_request``.
    English prose averages about 4 characters per token with current OpenAI tokenizers;
    clinical notes (numbers, abbreviations, units) tokenize denser, so the default of 3 errs
    on the side of cutting a little too much rather than sending a request the API refuses.
    The overheads cover role markers and the reply primer.
    """

    def __init__(self, chars_per_token: float = 3.0, per_message: int = 4, per_request: int = 3):
        if chars_per_token <= 0:
            raise ValueError(f"chars_per_token must be positive, got {chars_per_token}")
        self.chars_per_token = chars_per_token
        self.per_message = per_message
        self.per_request = per_request

    def __call__(self, messages: Messages, completion: bool = False) -> int:
        chars = sum(len(m["content"]) for m in messages)
        return (
            math.ceil(chars / self.chars_per_token)
            + self.per_message * len(messages)
            + self.per_request
        )

    def settings(self) -> dict[str, Any]:
        return {
            "counter": "approximate",
            "chars_per_token": self.chars_per_token,
            "per_message": self.per_message,
            "per_request": self.per_request,
        }
