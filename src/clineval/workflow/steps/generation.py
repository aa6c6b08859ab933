"""Generation jobs: all of one model's cells (or one data-parallel shard of them) per job.

The model's engine loads at most once per job, and only when some request is not cached; each
cell still gets its own artifact. Finished requests go to an append-only cache keyed by the
cell's generation identity and the request hash, so a killed job resumes where it stopped and
a changed model or sampling setting never meets an old answer.

With ``shards`` > 1 a model's requests are split by position (request ``i`` of a cell goes to
shard ``i % shards``); every shard job writes partial artifacts and :func:`merge_shards` joins
them back, in request order, into the per-cell artifacts.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clineval.benchmarks import get_benchmark
from clineval.inference.base import Backend, Generation
from clineval.inference.registry import backend_of
from clineval.io import DataError, read_identity, read_json, read_jsonl, write_json, write_jsonl
from clineval.progress import progress_bar
from clineval.provenance.hashing import sha256_obj
from clineval.provenance.manifest import environment
from clineval.provenance.record import data_access, make_record, prov_path, read_record

log = logging.getLogger("clineval")


@dataclass(frozen=True)
class CellJob:
    """One cell's files in a generation job (``examples`` only for baselines)."""

    identity: Path
    requests: Path
    out: Path
    meta: Path
    cache: Path
    examples: Path | None = None


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count`` (0-based); ``Shard(0, 1)`` is the whole cell."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"K/N"`` (1-based K, as written in rule names) -> ``Shard(K - 1, N)``."""
        try:
            k, n = (int(part) for part in text.split("/"))
        except ValueError as err:
            raise ValueError(f"shard must look like K/N, got {text!r}") from err
        if not 1 <= k <= n:
            raise ValueError(f"shard {text!r}: K must be between 1 and N")
        return cls(k - 1, n)

    def take(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return requests[self.index :: self.count]


class RequestCache:
    """Append-only store of finished generations keyed by the full request identity.

    Reads every ``<cell>*.jsonl`` beside ``path`` (other shards' caches included) and appends
    to ``path`` only, so concurrent shard jobs never write to the same file.
    """

    def __init__(self, path: Path, generation_sha: str, per_example: bool = False):
        self.path = path
        self.generation_sha = generation_sha
        #: a baseline (from the example's gold labels) or recorded outputs (by example id)
        #: answer the example, not the prompt: two examples with the same prompt must not
        #: share an answer
        self.per_example = per_example
        self.done: dict[str, dict[str, Any]] = {}
        stem = path.name.split(".")[0]
        for found in sorted(path.parent.glob(f"{stem}*.jsonl")) if path.parent.is_dir() else ():
            for line in found.read_text(encoding="utf-8").splitlines():
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut short by a killed job
                self.done[record["key"]] = record["generation"]

    def key(self, request: dict[str, Any]) -> str:
        parts = {"generation": self.generation_sha, "request": request["request_sha"]}
        if self.per_example:
            parts["example"] = request["id"]
        return sha256_obj(parts)

    def add(self, request: dict[str, Any], generation: Generation) -> None:
        entry = {"key": self.key(request), "generation": generation.as_dict()}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry, sort_keys=True, ensure_ascii=False) + "\n")
        self.done[entry["key"]] = entry["generation"]


def _backend(ident: dict[str, Any], examples: Path | None, model_dir: Path | None) -> Backend:
    """The cell's backend; a baseline answers from the benchmark and the task's examples."""
    from clineval.inference.factory import make_backend

    model = ident["model"]
    if not backend_of(model).baseline:
        return make_backend(model, model_dir)
    if examples is None:
        raise ValueError(f"{ident['cell']}: a baseline needs the task's examples")
    records = read_jsonl(examples)
    bench = get_benchmark(ident["benchmark"])
    settings = {"scoring": {"baselines": ident["baseline_settings"]}}
    answer = bench.baseline(model["baseline"], settings, records)
    return make_backend(
        model, None, baseline_answer=answer, examples={e["id"]: e for e in records}
    )


class _Engine:
    """The job's model engine, loaded on first use (never when everything is cached)."""

    def __init__(self, model_dir: Path | None):
        self.model_dir = model_dir
        self.backend: Backend | None = None
        self.loads = 0
        self.recorded: dict[str, Backend] = {}  # recorded outputs, by task

    def get(self, ident: dict[str, Any], job: CellJob) -> Backend:
        if backend_of(ident["model"]).baseline:
            return _backend(ident, job.examples, None)  # per task; nothing heavy to load
        if backend_of(ident["model"]).recorded:  # a file (or a file's rows) per task
            from clineval.inference.factory import make_backend

            _, task, _ = ident["cell"].split("/")
            if task not in self.recorded:
                self.recorded[task] = make_backend(ident["model"], None, task=task)
                self.loads += 1
            return self.recorded[task]
        if self.backend is None:
            self.backend = _backend(ident, None, self.model_dir)
            self.loads += 1
        return self.backend


def _cell_record(
    sha: str, ident: dict[str, Any], job: CellJob, model_dir: Path | None, run: dict[str, Any],
    env: dict[str, Any],
) -> dict[str, Any]:
    """The cell's provenance: inputs and output by hash, resolved settings, run facts."""
    inputs = {"requests": job.requests}
    if job.examples is not None:
        inputs["examples"] = job.examples
    if model_dir is not None and (model_dir / "config.json").is_file():
        inputs["model_config"] = model_dir / "config.json"
    if backend_of(ident["model"]).recorded:  # the file of outputs read, by its hash
        inputs["recorded"] = Path(ident["model"]["recorded"]["path"]).expanduser()
    upstream_path = prov_path(job.requests)
    upstream = read_record(upstream_path) if upstream_path.is_file() else {}
    model = ident["model"]
    return make_record(
        "generation", ident["cell"], sha, inputs, {"generations": job.out},
        ident["credentialed"],
        config={"generation": ident, "requests_identity": ident["requests"],
                "data_identity": upstream.get("data_identity")},
        model={k: model.get(k) for k in ("id", "revision", "backend", "path")},
        sampling=model.get("sampling"),
        template_sha=upstream.get("template_sha"),
        data={role: upstream["inputs"][role] for role in ("examples", "exemplars")
              if role in upstream.get("inputs", {})},
        exemplar_ids=upstream.get("exemplar_ids"),
        **run,
        environment=env,
        **data_access(ident),
    )


def _backend_reported(remote: bool, records: list[dict[str, Any]]) -> dict[str, Any]:
    """What the backend found out about the server, over the cell's records (cached included).

    ``ignored_settings``: per setting, the number of requests whose response showed the server
    did not apply it (``{}``: none found). Written for a remote model (``openai``, whose server
    may ignore what it is sent) and wherever a record names one; other backends' records keep
    their exact content.
    """
    counts: dict[str, int] = {}
    for record in records:
        for name in record.get("ignored_settings") or ():
            counts[name] = counts.get(name, 0) + 1
    if not remote and not counts:
        return {}
    return {"ignored_settings": dict(sorted(counts.items()))}


@dataclass
class _Cell:
    """A cell of the job, read and waiting for its requests that are not cached."""

    job: CellJob
    sha: str
    ident: dict[str, Any]
    requests: list[dict[str, Any]]
    cache: RequestCache
    todo: list[dict[str, Any]]
    seconds: float = 0.0
    loads: int = 0
    settings: dict[str, Any] = field(default_factory=dict)


def _read_cells(jobs: Sequence[CellJob], shard: Shard) -> list[_Cell]:
    cells, models = [], set()
    for job in jobs:
        sha, ident = read_identity(job.identity)
        models.add(ident["model_name"])
        if len(models) > 1:
            raise ValueError(f"one generation job serves one model, got {sorted(models)}")
        reqs = shard.take(read_jsonl(job.requests, ("id", "messages", "request_sha")))
        cache = RequestCache(job.cache, sha, per_example=backend_of(ident["model"]).per_example)
        todo = [r for r in reqs if cache.key(r) not in cache.done]
        cells.append(_Cell(job, sha, ident, reqs, cache, todo))
    return cells


def _length(backend: Backend, request: dict[str, Any]) -> int:
    """The prompt's length in the backend's tokens where it can count them (a character
    count does not compare across languages: a Chinese character is about one token)."""
    count = getattr(backend, "prompt_length", None)
    return count(request) if count else sum(len(m["content"]) for m in request["messages"])


def batches(lengths: Sequence[int], size: int, max_padding: float | None) -> list[range]:
    """Consecutive batches of at most ``size`` over prompts sorted longest first; with
    ``max_padding``, a prompt shorter than ``1 - max_padding`` of its batch's first (longest)
    one starts the next batch, so no prompt is padded by more than that share."""
    found: list[range] = []
    start = 0
    for index, length in enumerate(lengths):
        full = index - start == size
        padded = max_padding is not None and length < (1 - max_padding) * lengths[start]
        if index > start and (full or padded):
            found.append(range(start, index))
            start = index
    return [*found, range(start, len(lengths))] if lengths else []


def budget_of(cell: _Cell) -> int | None:
    """The cell's ``max_tokens`` (its identity's model sampling; None where nothing is sampled:
    a baseline, recorded outputs)."""
    return (cell.ident["model"].get("sampling") or {}).get("max_tokens")


def with_budget(backend: Backend, budget: int | None) -> Backend:
    """``backend`` with the cell's budget; itself for a cell without one (nothing sampled)."""
    return backend if budget is None else backend.with_max_tokens(budget)


def _generate_pooled(cells: list[_Cell], backend: Backend, label: str) -> None:
    """Every cell's uncached requests in batches across cells of the same budget
    (``max_tokens``), longest first (so each batch pads to a similar length, and a small cell
    does not run a nearly empty batch; a backend that pads says how much it may:
    ``max_padding``); each answer goes to its cell's cache at once, and each batch's time to
    its cells by share."""
    model = cells[0].ident["model"]
    budgets = sorted({budget_of(c) for c in cells}, key=lambda b: -1 if b is None else b)
    with progress_bar(sum(len(c.todo) for c in cells), label, unit="requests") as bar:
        for budget in budgets:
            group = [c for c in cells if budget_of(c) == budget]
            engine = with_budget(backend, budget)
            measured = sorted(((_length(engine, r), c, r) for c in group for r in c.todo),
                              key=lambda lcr: -lcr[0])
            pooled = [(c, r) for _, c, r in measured]
            size = backend_of(model).batch_size(model, len(pooled))
            spans = batches([n for n, _, _ in measured], size,
                            getattr(engine, "max_padding", None))
            for span in spans:
                batch = pooled[span.start : span.stop]
                started = time.perf_counter()
                answers = engine.generate([request for _, request in batch])
                share = (time.perf_counter() - started) / len(batch)
                for (cell, request), generation in zip(batch, answers, strict=True):
                    cell.cache.add(request, generation)
                    cell.seconds += share
                bar.update(len(batch))


def generate_cells(
    jobs: Sequence[CellJob], model_dir: Path | None, shard: Shard = Shard(0, 1)
) -> dict[str, Any]:
    """Generate every cell of ``jobs`` (one model) with one engine; returns the run summary.

    A model's requests are batched across its cells of the same budget (``max_tokens``: the
    only sampling setting that differs between its cells, config/budget.py); a baseline runs
    and recorded outputs run cell by cell (their answers come from each task's examples, or
    each task's file)."""
    engine = _Engine(model_dir)
    started = time.perf_counter()
    summary: dict[str, Any] = {"shard": f"{shard.index + 1}/{shard.count}", "cells": []}
    cells = _read_cells(jobs, shard)
    pending = [c for c in cells if c.todo]
    if pending and not backend_of(pending[0].ident["model"]).per_example:
        backend = engine.get(pending[0].ident, pending[0].job)
        pending[0].loads = engine.loads
        for cell in pending:
            cell.settings = with_budget(backend, budget_of(cell)).effective_settings()
        _generate_pooled(pending, backend, f"{pending[0].ident['model_name']} "
                                           f"({len(pending)} cells)")
    else:
        for cell in pending:
            before, loads = time.perf_counter(), engine.loads
            backend = engine.get(cell.ident, cell.job)
            cell.loads = engine.loads - loads
            cell.settings = backend.effective_settings()
            cell.seconds = time.perf_counter() - before  # its batches add their own time
            _generate_pooled([cell], backend, cell.ident["cell"])
    # collected once per job (git and nvidia-smi are subprocesses), after the engine loads,
    # when torch's CUDA version is known
    env = environment()
    for cell in cells:
        ident, reqs, cache = cell.ident, cell.requests, cell.cache
        records = [
            {"id": r["id"], "request_sha": r["request_sha"], **cache.done[cache.key(r)]}
            for r in reqs
        ]
        write_jsonl(cell.job.out, records)
        reported = _backend_reported(backend_of(ident["model"]).remote, records)
        meta = _cell_record(cell.sha, ident, cell.job, model_dir, {
            "shard": summary["shard"],
            "requests": len(reqs),
            "from_cache": len(reqs) - len(cell.todo),
            "generated": len(cell.todo),
            "engine_loads": cell.loads,
            "effective_settings": cell.settings,
            "wall_seconds": round(cell.seconds, 3),
            "prompt_tokens": sum(r.get("prompt_tokens") or 0 for r in records),
            "completion_tokens": sum(r.get("completion_tokens") or 0 for r in records),
            **reported,
        }, env)
        write_json(cell.job.meta, meta)
        summary["cells"].append({"cell": meta["key"], "generated": len(cell.todo),
                                 "from_cache": len(reqs) - len(cell.todo)})
        log.info("%s: %d generated, %d from cache", ident["cell"], len(cell.todo),
                 len(reqs) - len(cell.todo))
    summary["engine_loads"] = engine.loads
    summary["wall_seconds"] = round(time.perf_counter() - started, 3)
    log.info("run summary: %s", json.dumps(summary, sort_keys=True))
    return summary


def _merged_reported(metas: list[dict[str, Any]]) -> dict[str, Any]:
    """The shards' ``ignored_settings`` counts added up (absent where no shard has them)."""
    if not any("ignored_settings" in m for m in metas):
        return {}
    counts: dict[str, int] = {}
    for meta in metas:
        for name, count in (meta.get("ignored_settings") or {}).items():
            counts[name] = counts.get(name, 0) + int(count)
    return {"ignored_settings": dict(sorted(counts.items()))}


def merge_shards(
    requests: Path, shards: Sequence[tuple[Path, Path]], out: Path, meta: Path
) -> None:
    """Join shard artifacts ``(generations, meta)`` back into one cell artifact, in order."""
    reqs = read_jsonl(requests, ("id",))
    by_id: dict[str, dict[str, Any]] = {}
    metas = []
    for generations, shard_meta in shards:
        for record in read_jsonl(generations, ("id",)):
            by_id[record["id"]] = record
        metas.append(read_json(shard_meta))
    missing = [r["id"] for r in reqs if r["id"] not in by_id]
    if missing:
        raise DataError(requests, None, "id", f"no shard generated request(s) {missing[:10]}")
    write_jsonl(out, [by_id[r["id"]] for r in reqs])
    first = metas[0]
    totals = ("requests", "from_cache", "generated", "engine_loads", "prompt_tokens",
              "completion_tokens")
    inputs = {"requests": requests} | {
        f"shard_{k}": path for k, (path, _) in enumerate(shards, start=1)
    }
    merged = make_record(
        "generation", first["key"], first["identity"], inputs, {"generations": out},
        first["credentialed"],
        **{k: first[k] for k in ("config", "model", "sampling", "template_sha", "data",
                                 "exemplar_ids", "environment")},
        **data_access(first),
        shards=[m["shard"] for m in metas],
        effective_settings=next((m["effective_settings"] for m in metas
                                 if m["effective_settings"]), {}),
        **{k: sum(m[k] for m in metas) for k in totals},
        **_merged_reported(metas),
        wall_seconds=round(max(m["wall_seconds"] for m in metas), 3),
    )
    write_json(meta, merged)


def generate_job(job: Mapping[str, Any]) -> None:
    """:func:`generate_cells` from a job's manifest (``clineval step generate``); the run's
    summary is written to the job's ``summary``."""
    summary = generate_cells([CellJob(**cell) for cell in job["cells"]], job["model_dir"],
                             Shard.parse(job["shard"]))
    write_json(job["summary"], summary)


def merge_job(job: Mapping[str, Any]) -> None:
    """:func:`merge_shards` from a job's manifest (``clineval step merge-shards``)."""
    merge_shards(job["requests"], [(s["generations"], s["meta"]) for s in job["shards"]],
                 job["out"], job["meta"])
