"""The backend interface: a batch of chat requests in, one generation per request out."""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass
from typing import Any, Protocol

#: Fields a backend fills only where it has them; left out of the record when empty, so the
#: records of backends that never set them keep their exact content.
OPTIONAL_FIELDS = ("ignored_settings", "logprobs", "alternatives", "recorded_verdict")
#: Finish reasons that say nothing of how an output ended (a file's recorded outputs; a record
#: without one): whether it was cut at ``max_tokens`` or looped is not known.
UNKNOWN_FINISH = ("recorded", None)


@dataclass(frozen=True)
class Generation:
    output: str
    finish_reason: str  # "stop" | "length" | "loop" (sampling.stop_loop) | "baseline" | "recorded"
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    #: settings the request asked for that the response shows the server did not apply
    #: (the openai backend: ``n``, ``logprobs``, ``top_logprobs``, ``max_tokens``, ``stop``)
    ignored_settings: tuple[str, ...] = ()
    #: per-token log probabilities, where they were asked for and the server returned them
    logprobs: list[dict[str, Any]] | None = None
    #: the outputs of choices 2..n, where ``n`` > 1 was asked for and the server returned them
    alternatives: tuple[str, ...] = ()
    #: the verdict a recorded file's own scorer gave the output (MedCalc-Bench's ``Result``:
    #: ``Correct`` or ``Incorrect``), kept to compare with clineval's
    recorded_verdict: str | None = None

    def as_dict(self) -> dict[str, Any]:
        record = asdict(self)
        for name in OPTIONAL_FIELDS:
            if not record[name]:
                del record[name]
            elif isinstance(record[name], tuple):
                record[name] = list(record[name])
        return record


class Backend(Protocol):
    def effective_settings(self) -> dict[str, Any]:
        """Every setting that shapes the outputs, as the engine will use it."""

    def with_max_tokens(self, max_tokens: int) -> Backend:
        """The same loaded engine with another generation budget (a cell's ``max_tokens``:
        config/budget.py); a backend without one returns itself."""

    def generate(self, requests: list[dict[str, Any]]) -> list[Generation]:
        """Generate for a batch of requests (each has ``id`` and chat ``messages``), in order.

        A request with ``completion`` true is raw text to continue (``completion_text``): a
        local backend sends it without the chat template.
        """


def completion_text(request: dict[str, Any]) -> str | None:
    """The raw prompt of a completion request (its one message's text); None for chat."""
    return request["messages"][0]["content"] if request.get("completion") else None


def with_sampling_max_tokens(backend: Any, max_tokens: int) -> Any:
    """A shallow copy of ``backend`` (the engine shared) whose ``sampling`` has ``max_tokens``;
    ``backend`` itself where it already has it."""
    if int(backend.sampling["max_tokens"]) == int(max_tokens):
        return backend
    other = copy.copy(backend)
    other.sampling = {**backend.sampling, "max_tokens": int(max_tokens)}
    return other
