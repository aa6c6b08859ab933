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
from clineval.config.validate import validate_model
from clineval.inference import factory
from clineval.inference.base import Generation
from clineval.inference.openai_backend import ApiError, OpenAIBackend, ignored_settings
from clineval.io import read_json, read_jsonl, write_json, write_jsonl
from clineval.provenance.hashing import sha256_obj
from clineval.workflow.plan.build import build_plan
from clineval.workflow.steps.generation import CellJob, generate_cells

KEY = "sk-test-7f3a9c1e5b2d4f6a8c0e"


class FakeServer:
    """Answers /v1/chat/completions; per prompt a script of '429', '500', 'timeout', 'echo400'."""

    def __init__(self) -> None:
        self.scripts: dict[str, list[str]] = {}
        self.seen: list[dict[str, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.delay = 0.0
        #: answer n choices and logprobs when asked (False: ignore them, as transformers serve)
        self.honour = False
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
                choice = {
                    "message": {"role": "assistant", "content": prompt.upper()},
                    "finish_reason": "stop",
                }
                choices = [choice]
                if self.honour:
                    if body.get("logprobs"):
                        top = [{"token": "x", "logprob": -1.0}] * body.get("top_logprobs", 0)
                        choice["logprobs"] = {"content": [
                            {"token": prompt.upper(), "logprob": -0.5, "top_logprobs": top}]}
                    choices += [{**choice, "message": {"role": "assistant",
                                                       "content": f"{prompt.upper()}{i}"}}
                                for i in range(1, body.get("n", 1))]
                self._send(
                    handler,
                    200,
                    {
                        "choices": choices,
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


# -- settings a server ignores ------------------------------------------------------------------
ASKING = {**SAMPLING, "n": 2, "logprobs": True, "top_logprobs": 2, "stop": ["###"]}


def test_ignored_settings_are_detected_recorded_and_warned_once(server, caplog):
    fake, url = server
    caplog.set_level(logging.WARNING, logger="clineval")
    backend = OpenAIBackend({"base_url": url, "model": "m", "api_key_env": None},
                            {"concurrency": 2}, ASKING)
    out = backend.generate(requests("a", "b###", "c"))
    sent = fake.seen[0]
    assert (sent["n"], sent["logprobs"], sent["top_logprobs"]) == (2, True, 2)
    assert [g.ignored_settings for g in out] == [
        ("n", "logprobs"), ("n", "logprobs", "stop"), ("n", "logprobs")]
    assert out[0].as_dict()["ignored_settings"] == ["n", "logprobs"]
    assert out[0].logprobs is None and out[0].alternatives == ()
    warnings = [r.getMessage() for r in caplog.records if "ignored" in r.getMessage()]
    assert len(warnings) == 3  # n, logprobs, stop: once each, for three requests
    assert all(url in w for w in warnings)


def test_a_server_that_applies_them_reports_nothing_and_its_answers_are_kept(server):
    fake, url = server
    fake.honour = True
    backend = OpenAIBackend({"base_url": url, "model": "m", "api_key_env": None}, {},
                            {**ASKING, "stop": None})
    (gen,) = backend.generate(requests("a"))
    assert gen.ignored_settings == ()
    assert gen.alternatives == ("A1",)
    assert gen.logprobs[0]["token"] == "A" and len(gen.logprobs[0]["top_logprobs"]) == 2
    record = gen.as_dict()
    assert "ignored_settings" not in record and record["alternatives"] == ["A1"]
    # a plain request asks for neither and can find neither ignored
    (plain,) = make(url, []).generate(requests("a"))
    assert plain.as_dict() == {"output": "A", "finish_reason": "stop", "prompt_tokens": 1,
                               "completion_tokens": 1}


def test_ignored_settings_checks_what_a_response_can_show():
    payload = {"n": 1, "max_tokens": 4, "stop": ["STOP"], "logprobs": True, "top_logprobs": 3}
    answer = {"message": {"content": "ok"}, "finish_reason": "stop",
              "logprobs": {"content": [{"token": "ok", "logprob": 0.0,
                                        "top_logprobs": [{}, {}]}]}}
    assert ignored_settings(payload, {"choices": [answer], "usage": {"completion_tokens": 9}}) \
        == ("top_logprobs", "max_tokens")
    assert ignored_settings({**payload, "top_logprobs": 2}, {"choices": [answer]}) == ()
    stopped = {**answer, "message": {"content": "ok STOP"}}
    assert ignored_settings(payload, {"choices": [stopped]}) == ("top_logprobs", "stop")


def _openai_cell(tmp_path: Path, url: str, sampling: dict[str, Any], reqs: list[dict[str, Any]],
                 cache: Path | None = None) -> CellJob:
    model = {"id": "m", "revision": "1", "backend": "openai",
             "api": {"base_url": url, "model": "m", "api_key_env": None},
             "client": {"concurrency": 2}, "sampling": sampling}
    content = {"cell": "api/medcalc/zero_shot", "benchmark": "medcalc", "model": model,
               "model_name": "api", "credentialed": False, "requests": sha256_obj(reqs)}
    write_json(tmp_path / "identity.json", {"sha": sha256_obj(content), "identity": content})
    write_jsonl(tmp_path / "requests.jsonl",
                [{**r, "request_sha": sha256_obj(r["messages"])} for r in reqs])
    return CellJob(tmp_path / "identity.json", tmp_path / "requests.jsonl",
                   tmp_path / "gen.jsonl", tmp_path / "gen.meta.json",
                   cache or tmp_path / "cache.jsonl")


def test_the_generation_record_counts_ignored_settings(server, tmp_path):
    fake, url = server
    job = _openai_cell(tmp_path, url, ASKING, requests("a", "b###", "c"))
    generate_cells([job], None)
    meta = read_json(job.meta)
    assert meta["ignored_settings"] == {"logprobs": 3, "n": 3, "stop": 1}
    assert meta["effective_settings"]["n"] == 2
    records = read_jsonl(job.out)
    assert records[1]["ignored_settings"] == ["n", "logprobs", "stop"]
    # from the cache the count is the same (the records carry it), and nothing is sent
    sent = len(fake.seen)
    generate_cells([job], None)
    assert read_json(job.meta)["ignored_settings"] == meta["ignored_settings"]
    assert len(fake.seen) == sent
    # nothing asked that the server skipped: the record says so with an empty mapping
    plain = _openai_cell(tmp_path / "plain", url, SAMPLING, requests("a"))
    generate_cells([plain], None)
    assert read_json(plain.meta)["ignored_settings"] == {}


# -- config --------------------------------------------------------------------------------------
CONF = Path(__file__).resolve().parents[2] / "conf"


def plan(tmp_path: Path, *overrides: str):
    return build_plan(
        CONF, list(overrides), results=tmp_path / "results", data_root=tmp_path / "data"
    )


@pytest.mark.parametrize("name", ["gpt4o", "vllm_server"])
def test_example_configs_validate(tmp_path, name):
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
        ({"api": {"base_url": "http://h/v1"}}, r"models\.x\.api\.model: required key is missing"),
        ({"api": {**base["api"], "key": "sk-..."}}, r"models\.x\.api\.key: unknown key"),
        ({"client": {"retries": 3}}, r"models\.x\.client\.retries: unknown key.*max_attempts"),
        ({"access": {}}, r"models\.x\.access\.allow_credentialed_data must be true or false"),
        ({"path": "/models/m"}, r"models\.x: key\(s\) path do not apply to an openai model"),
    ]
    for change, message in cases:
        with pytest.raises(ConfigError, match=message):
            validate_model("x", {**base, **change})


def test_credentialed_task_stops_a_remote_model_not_allowed(tmp_path):
    csv = tmp_path / "test_data.csv"
    csv.write_text("Row Number\n", encoding="utf-8")
    official = ("+tasks.medcalc.access=credentialed", "tasks.medcalc.data.source=official",
                f"tasks.medcalc.data.path={csv}")
    with pytest.raises(ConfigError, match=r"models\.gpt4o .*credentialed data.*medcalc"):
        plan(tmp_path, "+model@models.gpt4o=gpt4o", *official)
    allowed = plan(tmp_path, "+model@models.vllm_server=vllm_server", *official)
    assert "vllm_server" in allowed.cfg["models"]
    excluded = plan(tmp_path, "+model@models.gpt4o=gpt4o", *official,
                    "grid.select.models=[oracle]")
    assert {c.model for c in excluded.cells} == {"oracle"}
    assert sum(c.task == "medcalc" for c in excluded.cells) == 3
