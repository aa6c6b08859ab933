"""The OpenAI-compatible backend against a local fake server: retries, timeouts, key hygiene."""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from clineval.config.compose import ConfigError
from clineval.config.plan import build_plan
from clineval.config.validate import validate_model
from clineval.inference import factory
from clineval.inference.base import Generation
from clineval.inference.openai_backend import ApiError, OpenAIBackend

KEY = "sk-test-7f3a9c1e5b2d4f6a8c0e"


class FakeServer:
    """Answers /v1/chat/completions; per prompt a script of '429', '500', 'timeout', 'echo400'."""

    def __init__(self) -> None:
        self.scripts: dict[str, list[str]] = {}
        self.seen: list[dict[str, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.delay = 0.0
        self.lock = threading.Lock()

    def handle(self, handler: BaseHTTPRequestHandler) -> None:
        body = json.loads(handler.rfile.read(int(handler.headers["Content-Length"])))
        prompt = body["messages"][-1]["content"]
        with self.lock:
            self.seen.append({"path": handler.path, "headers": dict(handler.headers), **body})
            step = (self.scripts.get(prompt) or ["ok"]).pop(0)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        left = False

        def leave() -> None:
            # before the answer is written: once the client reads it, it may send its next
            # request at once, before this thread would reach ``finally``
            nonlocal left
            if not left:
                left = True
                with self.lock:
                    self.in_flight -= 1

        try:
            time.sleep(self.delay)
            if step == "timeout":
                time.sleep(1.0)
                return
            leave()
            if step == "echo400":
                self._send(handler, 400, {"error": f"bad request from {handler.headers}"})
            elif step in ("429", "500", "503"):
                extra = {"Retry-After": "2"} if step == "429" else {}
                self._send(handler, int(step), {"error": "busy"}, extra)
            else:
                self._send(
                    handler,
                    200,
                    {
                        "choices": [
                            {
                                "message": {"role": "assistant", "content": prompt.upper()},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {"prompt_tokens": len(prompt), "completion_tokens": 1},
                    },
                )
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client timed out and went away
        finally:
            leave()

    @staticmethod
    def _send(handler, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(obj).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)


@pytest.fixture
def server() -> Iterator[tuple[FakeServer, str]]:
    fake = FakeServer()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            fake.handle(self)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield fake, f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


SAMPLING = {"temperature": 0.0, "top_p": 1.0, "max_tokens": 64, "seed": 3}


def make(url: str, sleeps: list[float], **client: Any) -> OpenAIBackend:
    return OpenAIBackend(
        {"base_url": url, "model": "gpt-test", "api_key_env": "CLINEVAL_TEST_KEY"},
        {"concurrency": 2, "max_attempts": 4, "timeout_s": 0.3, **client},
        SAMPLING,
        sleep=sleeps.append,
        rng=random.Random(0),
    )


def requests(*prompts: str) -> list[dict[str, Any]]:
    return [
        {
            "id": f"r{i}",
            "messages": [{"role": "system", "content": "S"}, {"role": "user", "content": p}],
        }
        for i, p in enumerate(prompts)
    ]


@pytest.fixture(autouse=True)
def api_key(monkeypatch) -> None:
    monkeypatch.setenv("CLINEVAL_TEST_KEY", KEY)


def test_retries_429_500_and_a_timeout_then_answers_in_order(server):
    fake, url = server
    fake.scripts = {"a": ["429", "500"], "b": ["timeout"]}
    sleeps: list[float] = []
    out = make(url, sleeps).generate(requests("a", "b", "c"))
    assert out == [
        Generation("A", "stop", prompt_tokens=1, completion_tokens=1),
        Generation("B", "stop", prompt_tokens=1, completion_tokens=1),
        Generation("C", "stop", prompt_tokens=1, completion_tokens=1),
    ]
    prompts = [s["messages"][-1]["content"] for s in fake.seen]
    assert sorted(prompts) == ["a", "a", "a", "b", "b", "c"]
    assert len(sleeps) == 3
    assert max(sleeps) >= 2.0  # the 429's Retry-After: 2
    assert all(0.5 <= s <= 2.0 for s in sleeps)  # backoff_s=1: first step in [0.5, 1]


def test_payload_and_headers(server):
    fake, url = server
    make(url, []).generate(requests("hello"))
    (seen,) = fake.seen
    assert seen["path"] == "/v1/chat/completions"
    assert seen["headers"]["Authorization"] == f"Bearer {KEY}"
    assert seen["headers"]["Content-Type"] == "application/json"
    sent = {k: v for k, v in seen.items() if k not in ("path", "headers")}
    assert sent == {
        "model": "gpt-test",
        "messages": requests("hello")[0]["messages"],
        "n": 1,
        "stream": False,
        "temperature": 0.0,
        "top_p": 1.0,
        "max_tokens": 64,
        "seed": 3,
        "presence_penalty": 0.0,
        "frequency_penalty": 0.0,
    }


def test_extensions_and_json_schema_only_when_configured(server):
    fake, url = server
    schema = {"type": "object"}
    backend = OpenAIBackend(
        {"base_url": url, "model": "m", "api_key_env": None},
        {},
        {**SAMPLING, "top_k": 0, "stop": "###", "json_schema": schema},
    )
    backend.generate(requests("x"))
    (seen,) = fake.seen
    assert "Authorization" not in seen["headers"]
    assert seen["top_k"] == 0
    assert seen["stop"] == ["###"]
    assert seen["response_format"]["json_schema"]["schema"] == schema
    assert backend.effective_settings()["top_k"] == 0


def test_exponential_backoff_until_attempts_run_out(server):
    fake, url = server
    fake.scripts = {"x": ["500"] * 10}
    sleeps: list[float] = []
    with pytest.raises(
        ApiError, match=r"request r0: no answer .* after 4 attempt\(s\); last: HTTP 500"
    ):
        make(url, sleeps, backoff_s=1.0, backoff_max_s=3.0).generate(requests("x"))
    assert len(fake.seen) == 4
    assert [0.5 <= s <= 1 for s in sleeps[:1]] == [True]
    assert 1.0 <= sleeps[1] <= 2.0
    assert 1.5 <= sleeps[2] <= 3.0  # capped at backoff_max_s


def test_bounded_concurrency(server):
    fake, url = server
    fake.delay = 0.1
    out = make(url, [], concurrency=3, timeout_s=5).generate(requests(*"abcdefghij"))
    assert [g.output for g in out] == list("ABCDEFGHIJ")
    assert 2 <= fake.max_in_flight <= 3


def test_the_key_never_leaks(server, caplog):
    fake, url = server
    fake.scripts = {"a": ["503"], "bad": ["echo400"]}
    caplog.set_level(logging.DEBUG)
    backend = make(url, [])
    texts = [repr(backend), json.dumps(backend.effective_settings())]
    texts += [json.dumps(g.as_dict()) for g in backend.generate(requests("a"))]
    with pytest.raises(ApiError) as err:
        backend.generate(requests("bad"))
    texts += [str(err.value), repr(err.value), caplog.text]
    assert KEY in fake.seen[-1]["headers"]["Authorization"]  # it was sent ...
    assert "HTTP 400" in str(err.value) and "[redacted]" in str(err.value)
    assert "retrying" in caplog.text
    for text in texts:  # ... and appears nowhere else
        assert KEY not in text


def test_missing_key_names_the_variable(monkeypatch, server):
    _, url = server
    monkeypatch.delenv("CLINEVAL_TEST_KEY")
    with pytest.raises(ApiError, match="CLINEVAL_TEST_KEY is empty or not set"):
        make(url, [])


def test_factory_builds_the_openai_backend(server):
    _, url = server
    model = {
        "backend": "openai",
        "api": {"base_url": url + "/", "model": "m", "api_key_env": "CLINEVAL_TEST_KEY"},
        "client": {"concurrency": 5},
        "sampling": SAMPLING,
        "context": {"max_model_len": 1000, "chars_per_token": 2.0},
    }
    backend = factory.make_backend(model, None)
    settings = backend.effective_settings()
    assert settings["base_url"] == url
    assert settings["client"]["concurrency"] == 5
    assert settings["client"]["max_attempts"] == 5  # default, recorded
    count = factory.make_token_counter(model, None)
    assert count([{"role": "user", "content": "x" * 10}]) == 5 + 4 + 3
    with pytest.raises(ValueError, match="unknown key"):
        factory.make_backend({**model, "client": {"retries": 3}}, None)


# -- config --------------------------------------------------------------------------------------
CONF = Path(__file__).resolve().parents[1] / "conf"


def plan(tmp_path: Path, *overrides: str):
    return build_plan(
        CONF, list(overrides), results=tmp_path / "results", data_root=tmp_path / "data"
    )


@pytest.mark.parametrize("name", ["gpt4o", "vllm_server"])
def test_example_configs_validate(tmp_path, name):
    # the demo grid's CLUE tasks include credentialed data: an API model runs MedCalc only
    p = plan(tmp_path, f"+model@models.{name}={name}", "grid.select.tasks=[medcalc]")
    model = p.cfg["models"][name]
    assert model["backend"] == "openai"
    assert isinstance(model["access"]["allow_credentialed_data"], bool)
    assert p.model_dir(name) is None


def test_openai_config_errors_are_specific():
    base = {
        "id": "x",
        "revision": "1",
        "backend": "openai",
        "display_name": "X",
        "api": {"base_url": "http://h/v1", "model": "m", "api_key_env": "K"},
        "sampling": SAMPLING,
        "access": {"allow_credentialed_data": False},
    }
    validate_model("x", base)
    cases = [
        ({"api": {"base_url": "http://h/v1"}}, r"models\.x\.api: required key 'model'"),
        ({"api": {**base["api"], "key": "sk-..."}}, r"unknown key\(s\) in models\.x\.api 'key'"),
        ({"client": {"retries": 3}}, r"models\.x\.client 'retries'.*max_attempts"),
        ({"access": {}}, r"models\.x\.access\.allow_credentialed_data must be true or false"),
        ({"path": "/models/m"}, r"models\.x: key\(s\) path do not apply to a openai model"),
    ]
    for change, message in cases:
        with pytest.raises(ConfigError, match=message):
            validate_model("x", {**base, **change})


def test_credentialed_task_stops_a_remote_model_not_allowed(tmp_path):
    with pytest.raises(ConfigError, match=r"models\.gpt4o .*credentialed data.*medcalc"):
        plan(tmp_path, "+model@models.gpt4o=gpt4o", "+tasks.medcalc.access=credentialed")
    allowed = plan(
        tmp_path, "+model@models.vllm_server=vllm_server", "+tasks.medcalc.access=credentialed"
    )
    assert "vllm_server" in allowed.cfg["models"]
    excluded = plan(
        tmp_path,
        "+model@models.gpt4o=gpt4o",
        "+tasks.medcalc.access=credentialed",
        "grid.select.models=[oracle]",
    )
    assert {c.model for c in excluded.cells} == {"oracle"}
    assert sum(c.task == "medcalc" for c in excluded.cells) == 3
