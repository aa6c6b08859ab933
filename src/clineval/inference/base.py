"""The backend interface: a batch of chat requests in, one generation per request out."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Generation:
    output: str
    finish_reason: str  # "stop" | "length" | "baseline"
    prompt_tokens: int | None = None
    completion_tokens: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class Backend(Protocol):
    def effective_settings(self) -> dict[str, Any]:
        """Every setting that shapes the outputs, as the engine will use it."""

    def generate(self, requests: list[dict[str, Any]]) -> list[Generation]:
        """Generate for a batch of requests (each has ``id`` and chat ``messages``), in order.

        A request with ``completion`` true is raw text to continue (``completion_text``): a
        local backend sends it without the chat template.
        """


def completion_text(request: dict[str, Any]) -> str | None:
    """The raw prompt of a completion request (its one message's text); None for chat."""
    return request["messages"][0]["content"] if request.get("completion") else None
