"""Harness overhead: clineval's generation job against the bare backend on the same prompts.

Both sides run the MedCalc-Bench demo requests (zero-shot and one-shot, every calculator) through
the same model: *bare* calls ``TransformersBackend.generate`` batch by batch and nothing else;
*harness* runs :func:`clineval.workflow.steps.generation.generate_cells` (cache, artifacts,
metadata) over the same cells with a fresh cache. Rounds alternate the two sides, so drift in
machine load hits both. Reported: completion tokens per second of each, the ratio harness /
bare, and the engine loads of the harness run (one per job, whatever the number of cells).

    python bench/generation_throughput.py                       # tiny random model on CPU
    python bench/generation_throughput.py --device cuda --rounds 5 --out bench.json
    python bench/generation_throughput.py --model smollm2_135m --limit 16 --batch-sizes 1,8,16
    python bench/generation_throughput.py --model smollm2_135m --limit 16 --rounds 0 \
        --vllm-python "$(scripts/vllm_cpu_env.sh | tail -1)"

``--model`` takes a preset of conf/model/ (a GGUF build is prepared through the model cache);
``--batch-sizes`` also times the bare backend alone at each batch size (tokens per second).
``--vllm-python`` (the interpreter of an environment with vLLM, e.g. vllm-cpu's) also runs the
same requests through ``VllmBackend`` there and through ``TransformersBackend`` here, one engine
each, in float32: load seconds and generation tokens per second apart, and how many outputs of
the two agree.
Both sides batch alike: every request of the round sorted by prompt tokens, longest first.

Run from the repository root with the project installed (``make demo`` sets it up).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from clineval.benchmarks.medcalc import prompts, synthetic
from clineval.benchmarks.medcalc.benchmark import BENCHMARK
from clineval.inference import gguf_model, tiny_model
from clineval.inference.transformers_backend import TransformersBackend
from clineval.io import write_json, write_jsonl
from clineval.provenance.hashing import sha256_obj
from clineval.workflow.steps.generation import CellJob, generate_cells

ROOT = Path(__file__).resolve().parents[1]


def _config(name: str) -> dict[str, Any]:
    return yaml.safe_load((ROOT / "conf" / name).read_text(encoding="utf-8"))


def _requests(work: Path, per_calculator: int) -> dict[str, list[dict[str, Any]]]:
    """The demo's requests for each mode (the prompts the workflow would send)."""
    task = _config("task/medcalc.yaml")
    templates = _config(task["templates"])
    csv_path = work / "test_data.csv"
    synthetic.write_csv(synthetic.generate_rows(None, per_calculator, 0), csv_path)
    examples, exemplars = BENCHMARK.derive(task, {"csv": csv_path})
    return {
        mode: prompts.build_requests(task, _config(f"mode/{mode}.yaml"), templates, examples,
                                     exemplars)
        for mode in ("zero_shot", "one_shot")
    }


def _bare(model_dir: Path, model: dict[str, Any], cells: dict[str, list],
          batch_size: int | None = None) -> tuple[float, int]:
    """Load the backend and generate every request, in the harness's order and batches."""
    start = time.perf_counter()
    backend = TransformersBackend(model_dir, model["sampling"], model["engine"])
    size = batch_size or int(model["engine"]["batch_size"])
    requests = sorted((r for rs in cells.values() for r in rs),
                      key=lambda r: -backend.prompt_length(r))
    tokens = 0
    for first in range(0, len(requests), size):
        tokens += sum(g.completion_tokens or 0
                      for g in backend.generate(requests[first : first + size]))
    return time.perf_counter() - start, tokens


#: Runs with ``--vllm-python``: VllmBackend over the requests (argv: model dir, requests, out).
VLLM_SCRIPT = r'''
import json
import sys
import time
from pathlib import Path

from clineval.inference.vllm_backend import VllmBackend


def main():
    model_dir, requests_path, out = sys.argv[1:4]
    settings = json.loads(sys.argv[4])
    requests = [json.loads(line) for line in Path(requests_path).read_text().splitlines()]
    start = time.perf_counter()
    backend = VllmBackend(Path(model_dir), settings["sampling"], settings["engine"],
                          settings["max_model_len"])
    loaded = time.perf_counter()
    generations = backend.generate(requests)
    done = time.perf_counter()
    Path(out).write_text(json.dumps({
        "version": backend.installed_version, "distribution": backend.distribution,
        "load_s": loaded - start, "generate_s": done - loaded,
        "outputs": [g.output for g in generations],
        "tokens": sum(g.completion_tokens or 0 for g in generations),
    }))


if __name__ == "__main__":  # vLLM spawns its engine core
    main()
'''
#: vLLM on CPU as the real-engine test runs it (tests/platform/test_backend_vllm_real.py)
VLLM_CPU_ENGINE = {"dtype": "float32", "gpu_memory_utilization": 0.25, "enforce_eager": True}


def _engines(work: Path, vllm_python: Path, model_dir: Path, model: dict[str, Any],
             cells: dict[str, list], max_model_len: int) -> dict[str, Any]:
    """The same requests through vLLM (in ``vllm_python``'s environment) and transformers:
    load time, generation tokens/s and agreement of the greedy outputs."""
    requests = [r for rs in cells.values() for r in rs]
    write_jsonl(work / "engines.requests.jsonl", requests)
    (work / "vllm_run.py").write_text(VLLM_SCRIPT, encoding="utf-8")
    settings = {"sampling": model["sampling"], "engine": VLLM_CPU_ENGINE,
                "max_model_len": max_model_len}
    subprocess.run([str(vllm_python), str(work / "vllm_run.py"), str(model_dir),
                    str(work / "engines.requests.jsonl"), str(work / "vllm.json"),
                    json.dumps(settings)], check=True)
    vllm = json.loads((work / "vllm.json").read_text(encoding="utf-8"))
    start = time.perf_counter()
    backend = TransformersBackend(model_dir, model["sampling"], {**model["engine"],
                                                                  "dtype": "float32"})
    loaded = time.perf_counter()
    size = int(model["engine"]["batch_size"])
    order = sorted(range(len(requests)), key=lambda i: -backend.prompt_length(requests[i]))
    outputs: dict[int, Any] = {}
    for first in range(0, len(order), size):
        batch = order[first : first + size]
        outputs |= dict(zip(batch, backend.generate([requests[i] for i in batch]), strict=True))
    done = time.perf_counter()
    tokens = sum(g.completion_tokens or 0 for g in outputs.values())
    agree = sum(outputs[i].output == text for i, text in enumerate(vllm["outputs"]))
    return {
        "requests": len(requests),
        "vllm": {"distribution": vllm["distribution"], "version": vllm["version"],
                 "engine": VLLM_CPU_ENGINE, "load_s": round(vllm["load_s"], 1),
                 "generate_tokens_per_s": round(vllm["tokens"] / vllm["generate_s"], 1)},
        "transformers": {"batch_size": size, "load_s": round(loaded - start, 1),
                         "generate_tokens_per_s": round(tokens / (done - loaded), 1)},
        "outputs_equal": f"{agree}/{len(requests)}",
    }


def _harness(work: Path, model_dir: Path, model: dict[str, Any], cells: dict[str, list],
             round_no: int, model_name: str) -> tuple[float, int, int]:
    jobs = []
    for mode, requests in cells.items():
        cell = f"{model_name}/medcalc/{mode}"
        content = {"cell": cell, "benchmark": "medcalc", "model": model,
                   "model_name": model_name, "credentialed": False, "requests": mode}
        ident = work / f"identity-{mode}.json"
        write_json(ident, {"sha": sha256_obj(content), "identity": content})
        write_jsonl(work / f"{mode}.requests.jsonl", requests)
        out = work / f"round{round_no}"
        jobs.append(CellJob(ident, work / f"{mode}.requests.jsonl", out / f"{mode}.jsonl",
                            out / f"{mode}.meta.json", out / "cache" / f"{mode}.jsonl"))
    start = time.perf_counter()
    summary = generate_cells(jobs, model_dir)
    elapsed = time.perf_counter() - start
    tokens = sum(json.loads(job.meta.read_text())["completion_tokens"] for job in jobs)
    return elapsed, tokens, summary["engine_loads"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--per-calculator", type=int, default=1, help="demo rows per calculator")
    parser.add_argument("--device", default="cpu", help="cpu or cuda")
    parser.add_argument("--model-dir", type=Path, help="a local model (default: the tiny one)")
    parser.add_argument("--model", default="tiny_llama", help="a preset of conf/model/")
    parser.add_argument("--limit", type=int, help="requests per mode (default: all)")
    parser.add_argument("--batch-sizes", default="",
                        help="comma-separated batch sizes to time the bare backend at")
    parser.add_argument("--vllm-python", type=Path,
                        help="python of an environment with vLLM: also compare the engines")
    parser.add_argument("--out", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args()
    model_cfg = _config(f"model/{args.model}.yaml")
    model = {
        "id": model_cfg["id"], "revision": model_cfg["revision"], "backend": "transformers",
        "sampling": model_cfg["sampling"],
        "engine": {**model_cfg["engine"], "device": args.device},
    }
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        model_dir = args.model_dir
        if model_dir is None:
            model_dir = work / "model"
            if gguf_model.is_gguf(model_cfg["build"]):
                gguf_model.prepare(model_cfg["build"], model_dir)
            else:
                tiny_model.build(model_cfg["build"], model_dir)
        cells = {mode: requests[: args.limit]
                 for mode, requests in _requests(work, args.per_calculator).items()}
        by_batch = {}
        for size in (int(b) for b in args.batch_sizes.split(",") if b):
            seconds, tokens = _bare(model_dir, model, cells, size)
            by_batch[size] = round(tokens / seconds, 1)
        engines = (_engines(work, args.vllm_python, model_dir, model, cells,
                            int((model_cfg.get("context") or {}).get("max_model_len") or 2048))
                   if args.vllm_python else None)
        bare_s = bare_t = harness_s = harness_t = 0.0
        loads, per_round = [], []
        for round_no in range(args.rounds):
            b_seconds, b_tokens = _bare(model_dir, model, cells)
            bare_s, bare_t = bare_s + b_seconds, bare_t + b_tokens
            h_seconds, h_tokens, engine_loads = _harness(work, model_dir, model, cells, round_no,
                                                        args.model)
            harness_s, harness_t = harness_s + h_seconds, harness_t + h_tokens
            loads.append(engine_loads)
            per_round.append({"bare_s": round(b_seconds, 2), "harness_s": round(h_seconds, 2)})
    figures = {
        "machine": f"{platform.machine()} {platform.processor() or platform.platform()}",
        "device": args.device,
        "rounds": args.rounds,
        "cells": len(cells),
        "requests_per_round": sum(len(r) for r in cells.values()),
        "bare_tokens_per_s": round(bare_t / bare_s, 1) if bare_s else None,
        "harness_tokens_per_s": round(harness_t / harness_s, 1) if harness_s else None,
        "ratio_harness_over_bare": (round((harness_t / harness_s) / (bare_t / bare_s), 3)
                                    if bare_s and harness_s else None),
        "harness_engine_loads_per_run": loads,
        "seconds_per_round": per_round,
        "model": args.model,
        "bare_tokens_per_s_by_batch_size": by_batch,
        "engines": engines,
    }
    print(json.dumps(figures, indent=2))
    if args.out:
        write_json(args.out, figures)


if __name__ == "__main__":
    main()
