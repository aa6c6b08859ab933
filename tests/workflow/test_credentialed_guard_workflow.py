"""The data-access guard (clineval.workflow.plan.access): a remote model receives a cell's data only
when the files the cell reads may go to it. It judges the cells the plan builds (after
grid.select, a table selection, skipped tasks) and the tiers of the files each reads: the demo's
synthetic files go anywhere; official files have the least tier their benchmark declares
(MIMIC's credentialed, MedDisK's KB unreleased, ...), which a task's access may raise but not
lower; restricted tiers stop an API model unless its config allows that tier, and a cell let
through that way is named on stderr and recorded (data_access). No API key reaches a file the
run writes or its console (a real run of the issue's command against a local stand-in for the
API)."""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from workflow_run import grid_folder, snakemake

GPT4O = "+model@models.gpt4o=gpt4o"


@pytest.fixture
def openai_server() -> Iterator[tuple[str, list[str]]]:
    """A local stand-in for OpenAI's chat completions: its URL, and the Authorization header
    of each request it answered."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            seen.append(self.headers.get("Authorization", ""))
            body = json.dumps({"choices": [{"message": {"role": "assistant",
                                                        "content": "The answer is 0."},
                                            "finish_reason": "stop"}],
                               "usage": {"prompt_tokens": 1, "completion_tokens": 1}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", seen
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.slow
def test_no_api_key_reaches_a_file_or_the_console(tmp_path, openai_server):
    """The issue's command, run (its server a local stand-in) with a key in the environment:
    every request carries the key, and no file of the work folder (results/, data/,
    Snakemake's logs) nor the console holds it."""
    url, seen = openai_server
    key = f"sk-test-{secrets.token_hex(16)}"
    overrides = (f"{GPT4O} models.gpt4o.api.base_url={url} grid.select.models=[gpt4o] "
                 "grid.select.tables=[medcalc_table2]")
    done = snakemake(tmp_path, "all_tables", overrides=overrides, env={"OPENAI_API_KEY": key})
    console = done.stdout + done.stderr
    assert done.returncode == 0, console
    assert len(seen) == 3 * 55 and set(seen) == {f"Bearer {key}"}  # 55 rows x 3 modes
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    for folder in ("results/tables", "results/generations", "data/derived", ".snakemake/log"):
        assert any(p.is_relative_to(tmp_path / folder) for p in written), folder
    assert key not in console
    assert [p for p in written if key.encode() in p.read_bytes()] == []


@pytest.mark.slow
def test_a_run_under_the_exception_records_it(tmp_path, openai_server):
    """MedCalc-Bench's file declared credentialed (a raise) and GPT-4o allowed it: the cell's
    generation and score records say which setting let the data go."""
    from clineval.benchmarks.medcalc import synthetic

    url, _ = openai_server
    csv = tmp_path / "test_data.csv"
    synthetic.write_csv(synthetic.generate_rows([2], 3, 0), csv)
    overrides = (f"{GPT4O} models.gpt4o.api.base_url={url} grid.select.models=[gpt4o] "
                 "grid.select.tables=[medcalc_table2] grid.select.modes=[zero_shot] "
                 f"tasks.medcalc.data.source=official tasks.medcalc.data.path={csv} "
                 "+tasks.medcalc.access=credentialed "
                 "models.gpt4o.access.allow_credentialed_data=true")
    done = snakemake(tmp_path, "all_tables", overrides=overrides, env={"OPENAI_API_KEY": "sk-x"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "receives credentialed data from 1 cell: gpt4o/medcalc/zero_shot" in done.stderr
    sent = {"tier": "credentialed", "allowed_by": ["models.gpt4o.access.allow_credentialed_data"]}
    cell = "gpt4o/medcalc/zero_shot"
    results = grid_folder(tmp_path, "demo")  # official files: the grid's own folder
    generation = json.loads((results / f"generations/{cell}.meta.json").read_text())
    scores = json.loads((results / f"scores/{cell}.prov.json").read_text())
    assert generation["data_access"] == scores["data_access"] == sent
