"""The requests step: render a cell's examples and fit each into the model's context.

A request longer than ``max_model_len - max_tokens`` is cut by the task's truncation policy
(``tasks.<task>.truncation``; default: shorten the longest input field from its end). Only the
benchmark's input fields (the note, the documents) are ever cut, never instructions or
exemplars; the request records what was cut in ``truncation``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from clineval.benchmarks import get_benchmark
from clineval.benchmarks.base import Benchmark
from clineval.config import slices
from clineval.inference.context import TruncationPolicy, fit_to_context
from clineval.io import Record, read_identity, read_jsonl, write_jsonl
from clineval.progress import progress
from clineval.provenance.hashing import sha256_obj
from clineval.provenance.record import FileHashes, make_record, write_record

log = logging.getLogger("clineval")


def fit_requests(
    bench: Benchmark,
    ident: Record,
    examples: list[Record],
    exemplars: list[Record],
    count_tokens: Callable[..., int],
) -> list[Record]:
    """The cell's requests, each within the model's context (truncated where needed)."""
    task, mode, templates = ident["task"], ident["mode"], ident["templates"]
    kind = ident.get("prompt_kind", "chat")
    records = bench.build_requests(task, mode, templates, examples, exemplars, kind)
    limits = ident["model_limits"]
    max_model_len, max_tokens = int(limits["max_model_len"]), int(limits["max_tokens"])
    policy = TruncationPolicy.from_config(task.get("truncation"))
    by_id = {e["id"]: e for e in examples}
    fitted = []
    for record in records:
        count = partial(count_tokens, completion=bool(record.get("completion")))
        if count(record["messages"]) <= max_model_len - max_tokens:
            fitted.append(record)
            continue
        example = by_id[record["id"]]
        rendered: dict[int, Record] = {}  # the search renders many candidates; keep each

        def render(fields: dict[str, str], example: Record = example, rendered: dict = rendered):
            shortened = bench.with_fields(example, fields)
            candidate = bench.build_requests(task, mode, templates, [shortened], exemplars,
                                             kind)[0]
            rendered[id(candidate["messages"])] = candidate
            return candidate["messages"]

        messages, cut = fit_to_context(record["id"], bench.input_fields(example), render,
                                       count, max_model_len, max_tokens, policy)
        chosen = rendered[id(messages)]
        fitted.append({**chosen, "truncation": cut.as_dict() if cut else None})
    return fitted


@dataclass(frozen=True)
class RequestsJob:
    """One cell's files in a requests job."""

    identity: Path
    examples: Path
    exemplars: Path
    out: Path
    record: Path


def requests(jobs: list[RequestsJob], model_dir: Path | None = None) -> None:
    """Render every example of each cell as chat messages that fit the model's context.

    One process renders all of a model's cells of a benchmark: the tokenizer loads once.
    """
    hashes = FileHashes()
    counters: dict[str, Callable[..., int]] = {}
    for job in progress(jobs, "requests", unit="cells"):
        sha, ident = read_identity(job.identity)
        bench = get_benchmark(ident["benchmark"])
        exs, exms = read_jsonl(job.examples, ("id",)), read_jsonl(job.exemplars, ("id",))
        exs = slices.take(exs, ident)
        if ident.get("model_limits") is None:  # baselines read no prompt
            records = bench.build_requests(ident["task"], ident["mode"], ident["templates"],
                                           exs, exms, ident.get("prompt_kind", "chat"))
        else:
            from clineval.inference.factory import make_token_counter

            limits = ident["model_limits"]["model"]
            key = sha256_obj(limits)
            if key not in counters:
                counters[key] = make_token_counter(limits, model_dir)
            records = fit_requests(bench, ident, exs, exms, counters[key])
        write_jsonl(job.out, records)
        cut = sum(r.get("truncation") is not None for r in records)
        inputs = {"examples": job.examples, "exemplars": job.exemplars}
        if model_dir is not None and (model_dir / "config.json").is_file():
            inputs["model_config"] = model_dir / "config.json"
        record = make_record(
            "requests", ident["cell"], sha, inputs, {"requests": job.out}, ident["credentialed"],
            hashes=hashes,
            template_sha=sha256_obj(ident["templates"]),
            data_identity=ident["data"],
            exemplar_ids=sorted({i for r in records for i in r.get("exemplar_ids") or ()}),
            counts={"requests": len(records), "truncated": cut},
        )
        write_record(job.record, record)
        log.info("%s: %d requests, %d truncated to fit the context",
                 ident["cell"], len(records), cut)


def requests_job(job: Mapping[str, Any]) -> None:
    """:func:`requests` from a job's manifest (``clineval step requests``)."""
    requests([RequestsJob(**cell) for cell in job["cells"]], job["model_dir"])
