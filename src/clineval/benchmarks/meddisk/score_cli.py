"""``clineval score meddisk``: score responses produced anywhere against a knowledge base.

Predictions: JSONL rows ``{"disease", "aspect", "output"}``; ``disease`` is a KB id (or the
disease's name in the task's language). Settings (aspects, language, scoring) come from a task
config (``--task``, default ``meddisk_zh``) and Hydra overrides (composed on the
``meddisk_demo`` grid unless one names a grid, so ``tasks.meddisk_en.scoring.…`` overrides
work). Printed: one row per prediction and the summary; ``--json``: one object with every
row's similarities and tiers per metric, the shares, the score, the level and the per-aspect
scores.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from clineval.benchmarks.base.external import task_settings
from clineval.benchmarks.meddisk import scoring
from clineval.benchmarks.meddisk.aspects import registry, selected
from clineval.benchmarks.meddisk.derive import example, examples_of
from clineval.benchmarks.meddisk.kb import load_kb
from clineval.errors import DataError
from clineval.io import read_jsonl

Record = dict[str, Any]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = "Score MedDisK responses against a knowledge base (KB JSONL)."
    parser.add_argument("--kb", type=Path, required=True, help="the knowledge base (JSONL)")
    parser.add_argument("--predictions", type=Path, required=True,
                        help='JSONL rows {"disease", "aspect", "output"}')
    parser.add_argument("--task", default="meddisk_zh", help="task config for the settings")
    parser.add_argument("--conf", type=Path, default=Path("conf"))
    parser.add_argument("overrides", nargs="*", help="Hydra overrides of the task's settings")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")


def examples_for(task: Record, kb: Path, predictions: Path
                 ) -> tuple[list[Record], list[Record], int, list[Record]]:
    """(examples, generations, predictions on not-annotated pairs) for the predicted pairs, and
    every test disease's examples (what the gazetteer extractor knows, as in the workflow)."""
    data = task["data"]
    lang = data.get("lang", "zh")
    aspects = selected(data, lang)
    diseases = load_kb(kb, registry(data))
    by_key = {d.id: d for d in diseases}
    by_key.update({d.names[lang]: d for d in diseases if lang in d.names})
    examples, generations, unannotated, seen = [], [], 0, set()
    for line, row in enumerate(read_jsonl(predictions, ("disease", "aspect", "output")), 1):
        disease, aspect = by_key.get(row["disease"]), aspects.get(row["aspect"])
        if disease is None:
            raise DataError(predictions, line, "disease", f"{row['disease']!r} is not in {kb}")
        if aspect is None:
            raise DataError(predictions, line, "aspect",
                            f"{row['aspect']!r}; aspects: {', '.join(aspects)}")
        if not isinstance(row["output"], str):
            raise DataError(predictions, line, "output", "expected a string")
        if lang not in disease.names:
            raise DataError(kb, f"disease {disease.id!r}", "name", f"no {lang} name")
        key = f"{disease.id}/{aspect.key}"
        if key in seen:
            raise DataError(predictions, line, "disease", f"a second output for {key}")
        seen.add(key)
        value = disease.value(aspect.key, lang)
        if value is None:
            unannotated += 1
            continue
        examples.append(example(disease, aspect, lang, value))
        generations.append({"id": key, "output": row["output"]})
    tests = [d for d in diseases if d.role == "test" and lang in d.names]
    return examples, generations, unannotated, examples_of(tests, aspects, lang, kb)[0]


def score(args: argparse.Namespace) -> int:
    overrides = list(args.overrides)
    if not any(o.startswith("grid=") for o in overrides):
        overrides.insert(0, "grid=meddisk_demo")  # a grid holding both tasks, for overrides
    task = task_settings(args.conf, args.task, "meddisk", overrides)
    examples, generations, unannotated, known = examples_for(task, args.kb, args.predictions)
    rows, summary = scoring.score(task, examples, generations, known)
    summary["not_annotated"] = unannotated
    if args.json:
        print(json.dumps({"task": args.task, "rows": rows, "summary": summary},
                         ensure_ascii=False, sort_keys=True))
        return 0
    for row in rows:
        print(json.dumps(row, ensure_ascii=False, sort_keys=True))
    shares = summary["shares"]
    print(f"n={summary['n']} (not annotated, skipped: {unannotated})  "
          f"CW {100 * shares['cw']:.1f}%  PC {100 * shares['pc']:.1f}%  "
          f"BC {100 * shares['bc']:.1f}%  score {summary['score']:.2f}  level {summary['level']}")
    for key, part in summary["aspects"].items():
        print(f"  {key}: {part['score']:.2f} (n={part['n']})")
    return 0
