"""MedCalc-Bench cells at full scale for the explorer's tests: the project's synthetic rows in
the official format (20 per calculator, 1,047 kept, each note padded to about 2,000
characters), asked in three modes as one cell of 3,141 examples (each prompt its own text, as
if no two shared a note), answered and scored by the
real scorer, and the explorer's job over two such models (a page each, their pair page and the
index), as the workflow runs it."""

from __future__ import annotations

import json
from pathlib import Path

from clineval.benchmarks.medcalc import synthetic
from clineval.benchmarks.medcalc.loader import read_test_csv
from clineval.benchmarks.medcalc.scoring import score_row
from clineval.io import write_jsonl
from clineval.provenance.hashing import sha256_obj
from clineval.report.examples import CellFiles
from clineval.report.explorer_step import CellJob, PairJob, examples

MODES = ("zero_shot", "cot", "one_shot")
SYSTEM = ("You are a helpful assistant for calculating a score for a given patient note. "
          "Please think step-by-step to solve the question and then generate the required "
          "score. Your output should only contain a JSON dict formatted as "
          '{"step_by_step_thinking": str(...), "answer": str(...)}.')
FILLER = (" On examination she was alert and oriented; the review of systems was otherwise "
          "unremarkable and the home medications were continued unchanged.")
TASK = {"version": "1.0", "scoring": {"extractions": ["official", "robust"]}}


def _identity(path: Path, content: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"sha": sha256_obj(content), "identity": content}))
    return path


def _output(example: dict, k: int, model: str) -> tuple[str, str]:
    """A model's answer to the ``k``-th example and its finish reason: right, wrong, no
    answer, cut at max_tokens, or the instruction's format copied (model b errs elsewhere)."""
    kind = (k + (2 if model == "b" else 0)) % 5
    if kind == 4:
        return 'The answer is {"step_by_step_thinking": "The patient', "length"
    if kind == 3:
        return "I cannot compute this from the note.", "stop"
    answer = example["ground_truth"] if kind < 2 else "12"
    thinking = f"From the note: {example['note'][:400]} ... so the value follows."
    return json.dumps({"step_by_step_thinking": thinking, "answer": answer},
                      ensure_ascii=False), "stop"  # as a model writes it: "µ", not "\\u00b5"


def medcalc_cell(root: Path, model: str, examples_file: Path, n: int = 1047) -> CellJob:
    """One model's cell of ``3 n`` examples (each example in each mode) with its files below
    ``root``; ``examples_file`` is written once and shared."""
    if not examples_file.exists():
        rows = synthetic.generate_rows(None, 20, 0)
        synthetic.write_csv(rows, root / "test_data.csv")
        kept = read_test_csv(root / "test_data.csv", "1.0")[:n]
        shown = [{**e, "id": f"{mode}-{e['id']}", "note": (e["note"] + FILLER * 20)[:2000]}
                 for mode in MODES for e in kept]
        write_jsonl(examples_file, shown)
    shown = [json.loads(line) for line in examples_file.read_text().splitlines()]
    requests, generations, scores = [], [], []
    for k, example in enumerate(shown):
        messages = [{"role": "system", "content": SYSTEM},
                    {"role": "user", "content": f"Here is the patient note:\n{example['note']}\n\n"
                                                f"Here is the task ({example['id']}):\n"
                                                f"{example['question']}"}]
        output, finish = _output(example, k, model)
        requests.append({"id": example["id"], "messages": messages, "exemplar_ids": [],
                         "truncation": None, "request_sha": sha256_obj(messages)})
        generations.append({"id": example["id"], "output": output, "finish_reason": finish,
                            "completion_tokens": 48 if finish == "length" else 30,
                            "prompt_tokens": 600, "request_sha": sha256_obj(messages)})
        row = score_row(example, output, ("official", "robust"))
        row.setdefault("copied", {"kind": "instruction", "share": 0.8, "total": 0.8}
                       if finish == "length" else None)
        scores.append(row)
    cell = f"{model}/medcalc/all"
    folder = root / "cells" / model
    files = CellFiles(examples_file, folder / "requests.jsonl", folder / "generations.jsonl",
                      folder / "rows.jsonl")
    write_jsonl(files.requests, requests)
    write_jsonl(files.generations, generations)
    write_jsonl(files.rows, scores)
    identity = _identity(folder / "scoring.json", {"cell": cell, "benchmark": "medcalc",
                                                   "task": TASK})
    return CellJob(cell, identity, files, root / "report" / "examples" / f"{cell}.html")


def explorer(root: Path, n: int = 1047, prompts: bool = True) -> dict[str, Path]:
    """The explorer's job over models a and b (``3 n`` examples each) below ``root``: their
    pages, their pair page and the index, as :func:`examples` writes them."""
    shared = root / "examples.jsonl"
    cells = [medcalc_cell(root, model, shared, n) for model in ("a", "b")]
    pair = PairJob("a/medcalc/all", "b/medcalc/all",
                   root / "report" / "pairs" / "a" / "b" / "medcalc" / "all.html")
    ident = {
        "kind": "examples", "page_version": "test", "grid": "scale", "prompts": "auto",
        "credentialed": False,
        "cells": [{"cell": c.cell, "model": c.cell.split("/")[0], "task": "medcalc",
                   "mode": "all", "benchmark_title": "MedCalc-Bench",
                   "task_title": "MedCalc-Bench", "tier": "synthetic", "credentialed": False,
                   "prompts": prompts} for c in cells],
        "models": {m: {"display_name": f"Model {m.upper()}", "smoke": False, "recorded": False}
                   for m in ("a", "b")},
        "pairs": [[pair.a, pair.b]],
    }
    identity = _identity(root / "examples-identity.json", ident)
    index = root / "report" / "examples" / "index.html"
    examples(identity, cells, [pair], index, root / "report" / "examples" / "provenance.json")
    return {"a": cells[0].out, "b": cells[1].out, "pair": pair.out, "index": index}
