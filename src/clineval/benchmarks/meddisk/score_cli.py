"""``clineval score meddisk``: score responses produced anywhere against a knowledge base.

Predictions: JSONL rows ``{"disease", "aspect", "output"}`` and optionally ``"lang"`` (zh/en) and
``"finish_reason"`` (``length``: the output stopped at max_tokens);
``disease`` is a KB id (or the disease's name in the task's language). Rows on a
demonstration disease (``role: demo``) are skipped and counted, as the workflow never
evaluates them. The language is the file's: its rows' ``lang`` where they give it (all alike),
else the script of its outputs (:func:`file_language`). Without ``--task`` the task is
``meddisk_<language>``; a ``--task`` of another language is refused, so that answers are never
scored against references in another language. Settings (aspects, scoring) come from the task
config and Hydra overrides (composed on the ``meddisk_demo`` grid unless one names a grid, so
``tasks.meddisk_en.scoring.…`` overrides work). Printed: one row per prediction and the
summary; ``--json``: one object with every row's similarities and tiers per metric, the
shares, the score, the level and the per-aspect scores.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from clineval.benchmarks.base.external import add_conf_argument, find_conf, task_settings
from clineval.benchmarks.meddisk import scoring
from clineval.benchmarks.meddisk.aspects import registry, selected
from clineval.benchmarks.meddisk.derive import example, examples_of
from clineval.benchmarks.meddisk.kb import load_kb
from clineval.errors import ConfigError, DataError
from clineval.io import Record, read_jsonl
from clineval.metrics.overlap import has_cjk

LANGUAGES = ("zh", "en")
_LATIN = re.compile("[A-Za-z]")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = "Score MedDisK responses against a knowledge base (KB JSONL)."
    parser.add_argument("--kb", type=Path, required=True, help="the knowledge base (JSONL)")
    parser.add_argument("--predictions", type=Path, required=True,
                        help='JSONL rows {"disease", "aspect", "output"}')
    parser.add_argument("--task", default=None,
                        help="task config for the settings (default: meddisk_<the file's "
                             "language>); one of another language is refused")
    add_conf_argument(parser)
    parser.add_argument("overrides", nargs="*", help="Hydra overrides of the task's settings")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")


def file_language(rows: list[Record], path: Path) -> str | None:
    """The language of a predictions file: the rows' ``lang`` where any gives one (each row
    that does must give the same), else by the outputs' script: ``zh`` when more outputs hold
    a CJK character than hold Latin letters without one, ``en`` when fewer; None on a tie
    (e.g. only numbers)."""
    declared: str | None = None
    for line, row in enumerate(rows, 1):
        lang = row.get("lang")
        if lang is None:
            continue
        if lang not in LANGUAGES:
            raise DataError(path, line, "lang", f"{lang!r}; known: {', '.join(LANGUAGES)}")
        if declared is not None and lang != declared:
            raise DataError(path, line, "lang", f"{lang!r}, after {declared!r} on an earlier row")
        declared = lang
    if declared is not None:
        return declared
    outputs = [row["output"] for row in rows if isinstance(row["output"], str)]
    chinese = sum(has_cjk(text) for text in outputs)
    latin = sum(not has_cjk(text) and bool(_LATIN.search(text)) for text in outputs)
    return "zh" if chinese > latin else "en" if latin > chinese else None


def resolved_task(task: str | None, rows: list[Record], predictions: Path, conf: Path,
                  overrides: list[str]) -> tuple[str, Record]:
    """(task name, settings): ``--task`` if given and of the file's language, else
    ``meddisk_<the file's language>``; a language mismatch or an unknown language is refused."""
    lang = file_language(rows, predictions)
    if task is None:
        if lang is None:
            raise DataError(predictions, None, "lang",
                            "cannot tell the language of the outputs: give each row a \"lang\" "
                            "(zh/en) or pass --task")
        task = f"meddisk_{lang}"
    settings = task_settings(conf, task, "meddisk", overrides)
    task_lang = settings["data"]["lang"]
    if lang is not None and lang != task_lang:
        how = "its rows' lang" if any(r.get("lang") for r in rows) else "the script of its outputs"
        raise ConfigError(
            f"{predictions} is in {lang!r} (by {how}) but task {task!r} scores against "
            f"{task_lang!r} references; pass --task meddisk_{lang}, or give each row "
            f"\"lang\": \"{task_lang}\" if the outputs really answer the {task_lang} questions")
    return task, settings


def examples_for(task: Record, kb: Path, predictions: Path, rows: list[Record] | None = None
                 ) -> tuple[list[Record], list[Record], dict[str, int], list[Record]]:
    """(examples, generations, skipped counts) for the predicted pairs, and every test
    disease's examples (what the gazetteer extractor knows, as in the workflow). Skipped:
    ``not_annotated`` pairs and pairs on ``demonstration`` diseases (never evaluated)."""
    data = task["data"]
    lang = data["lang"]
    aspects = selected(data, lang)
    diseases = load_kb(kb, registry(data))
    by_key = {d.id: d for d in diseases}
    by_key.update({d.names[lang]: d for d in diseases if lang in d.names})
    examples, generations, seen = [], [], set()
    skipped = {"not_annotated": 0, "demonstration": 0}
    if rows is None:
        rows = read_jsonl(predictions, ("disease", "aspect", "output"))
    for line, row in enumerate(rows, 1):
        disease, aspect = by_key.get(row["disease"]), aspects.get(row["aspect"])
        if disease is None:
            raise DataError(predictions, line, "disease", f"{row['disease']!r} is not in {kb}")
        if aspect is None:
            raise DataError(predictions, line, "aspect",
                            f"{row['aspect']!r}; aspects: {', '.join(aspects)}")
        if not isinstance(row["output"], str):
            raise DataError(predictions, line, "output", "expected a string")
        key = f"{disease.id}/{aspect.key}"
        if key in seen:
            raise DataError(predictions, line, "disease", f"a second output for {key}")
        seen.add(key)
        if disease.role == "demo":
            skipped["demonstration"] += 1
            continue
        if lang not in disease.names:
            raise DataError(kb, f"disease {disease.id!r}", "name", f"no {lang} name")
        value = disease.value(aspect.key, lang)
        if value is None:
            skipped["not_annotated"] += 1
            continue
        examples.append(example(disease, aspect, lang, value))
        generations.append({"id": key, "output": row["output"],
                            **({"finish_reason": row["finish_reason"]}
                               if row.get("finish_reason") else {})})
    tests = [d for d in diseases if d.role == "test" and lang in d.names]
    return examples, generations, skipped, examples_of(tests, aspects, lang, kb)[0]


def with_prompts(task: Record, conf: Path, examples: list[Record],
                 generations: list[Record]) -> list[Record]:
    """Each generation with the ``messages`` of its question as the task's templates word it
    (no demonstrations: the question and instruction the careful reading's copy rule needs;
    docs/meddisk.md, "Copied text and readings"); unchanged when the task names none."""
    import yaml

    from clineval.benchmarks.meddisk import prompts

    wording = task.get("templates")
    if isinstance(wording, str):
        path = find_conf(conf) / wording
        if not path.is_file():
            return generations
        wording = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(wording, dict):
        return generations
    kind = prompts.prompt_of(task, "chat")
    by_id = {e["id"]: e for e in examples}
    out = []
    for generation in generations:
        example = by_id[generation["id"]]
        if generation.get("messages") or example["lang"] not in wording:
            out.append(generation)
            continue
        text, _ = prompts.render(example, [], wording[example["lang"]], kind)
        out.append({**generation, "messages": [{"role": "user", "content": text}]})
    return out


def score(args: argparse.Namespace) -> int:
    overrides = list(args.overrides)
    if not any(o.startswith("grid=") for o in overrides):
        overrides.insert(0, "grid=meddisk_demo")  # a grid holding both tasks, for overrides
    lines = read_jsonl(args.predictions, ("disease", "aspect", "output"))
    name, task = resolved_task(args.task, lines, args.predictions, args.conf, overrides)
    examples, generations, skipped, known = examples_for(task, args.kb, args.predictions, lines)
    generations = with_prompts(task, args.conf, examples, generations)
    rows, summary = scoring.score(task, examples, generations, known)
    summary["not_annotated"] = skipped["not_annotated"]
    summary["demonstration_skipped"] = skipped["demonstration"]
    if args.json:
        print(json.dumps({"task": name, "rows": rows, "summary": summary},
                         ensure_ascii=False, sort_keys=True))
        return 0
    for row in rows:
        print(json.dumps(row, ensure_ascii=False, sort_keys=True))
    shares = summary["shares"]
    print(f"{name}: n={summary['n']} (skipped: {skipped['not_annotated']} not annotated, "
          f"{skipped['demonstration']} on demonstration diseases)  "
          f"CW {100 * shares['cw']:.1f}%  PC {100 * shares['pc']:.1f}%  "
          f"BC {100 * shares['bc']:.1f}%  score {summary['score']:.2f}  level {summary['level']}")
    for key, part in summary["aspects"].items():
        print(f"  {key}: {part['score']:.2f} (n={part['n']})")
    return 0
