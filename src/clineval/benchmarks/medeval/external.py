"""``clineval score medeval --task T --data FILE --predictions PRED.jsonl [--json]``.

``FILE`` is a sentences CSV (sentence tasks) or a reports CSV (report tasks) in MedEval's
format; the task's settings come from conf/ (code lists, extraction, metrics). The scored rows
are the file's test split when it gives splits, else every row (``--split`` overrides).
Predictions are JSONL rows ``{"id", "output"}`` with the file's ids. Prints each row's
extraction and the task's metrics (``--json``: one JSON object).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from clineval.benchmarks.base import external
from clineval.benchmarks.medeval import examples as task_examples
from clineval.benchmarks.medeval import scoring, sources
from clineval.benchmarks.medeval.examples import SENTENCE_TASKS
from clineval.io import Record


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Score MedEval outputs produced anywhere against a sentences or "
                          "reports CSV in MedEval's format (docs/medeval.md).")
    parser.add_argument("--task", required=True, help="task name, as in conf/task/")
    parser.add_argument("--data", type=Path, required=True,
                        help="the sentences CSV (sentence tasks) or reports CSV (report tasks)")
    parser.add_argument("--predictions", type=Path, required=True,
                        help='JSONL rows {"id", "output"}')
    parser.add_argument("--split", choices=("auto", "test", "all"), default="auto",
                        help="rows scored: auto = test when the file gives splits, else all")
    external.add_conf_argument(parser)
    parser.add_argument("overrides", nargs="*", help="Hydra overrides of the task's settings")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")


def _examples(data: Record, kind: str, path: Path, split: str) -> list[Record]:
    files = {"sentences" if kind in SENTENCE_TASKS else "reports": path}
    records = sources.load_records(kind, data, files)
    given = all(r["split_source"] == "file" for r in records)
    chest = tuple(data.get("chest_domains") or ("chest",))
    make = (task_examples.sentence_example if kind in SENTENCE_TASKS
            else task_examples.report_example)
    built = [e for e in (make(kind, r, chest) for r in records) if e is not None]
    everything = split == "all" or (split == "auto" and not given)
    return [{**e, "split": "test", "draw": 0} if everything else {**e, "draw": 0}
            for e in built if everything or e["split"] == "test"]


def score(args: argparse.Namespace) -> int:
    task = external.task_settings(args.conf, args.task, "medeval", list(args.overrides))
    kind = sources.task_kind(task)
    data = {**task["data"], "source": "official"}
    data["sentences" if kind in SENTENCE_TASKS else "reports"] = str(args.data)
    examples = _examples(data, kind, args.data, args.split)
    predictions = external.read_predictions(args.predictions, examples)
    task_scoring = dict(task.get("scoring") or {})
    if kind == "rewriting":
        task_scoring["classifiers"] = {**(task_scoring.get("classifiers") or {}), "data": data}
    rows, summary = scoring.score({**task, "scoring": task_scoring}, examples, predictions)
    if args.json:
        print(json.dumps({"task": args.task, "rows": rows, "summary": summary},
                         ensure_ascii=False, sort_keys=True))
    else:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False, sort_keys=True))
        print(json.dumps(summary, indent=2, sort_keys=True, ensure_ascii=False))
    return 0
