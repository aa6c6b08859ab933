"""``clineval score <benchmark>`` for benchmarks whose examples come from the workflow's
derived files: a task's settings from ``conf/``, its ``examples.jsonl`` and the outputs.

Predictions are JSONL rows ``{"id", "output"}``, one per example id; an output for an unknown
id (or for an exemplar, which the prompts show and nothing scores), a missing output, or a
non-string output is an error naming the file, line and field.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from clineval.config.locate import add_conf_argument, find_conf
from clineval.errors import ConfigError, DataError
from clineval.io import Record, read_jsonl

#: The task's exemplars, beside its ``examples.jsonl`` (the derive step writes both).
EXEMPLARS = "exemplars.jsonl"


def add_arguments(parser: argparse.ArgumentParser, benchmark: str) -> None:
    parser.description = (
        f"Score {benchmark} outputs produced anywhere against a task's derived examples "
        "(data/derived/<task>/examples.jsonl, written by `snakemake all_data`)."
    )
    parser.add_argument("--task", required=True, help="task name, as in conf/task/")
    parser.add_argument("--examples", type=Path, required=True, help="the task's examples.jsonl")
    parser.add_argument("--predictions", type=Path, required=True,
                        help='JSONL rows {"id", "output"}')
    add_conf_argument(parser)
    parser.add_argument("overrides", nargs="*", help="Hydra overrides of the task's settings")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")


def task_settings(conf: Path | None, task: str, benchmark: str, overrides: list[str]) -> Record:
    """The composed settings of ``task`` (added to the grid when the grid lacks it), checked
    against the task's schema as the plan checks them (ConfigError: the key, its origin, what
    is valid)."""
    from omegaconf import OmegaConf

    from clineval.config.compose import compose_config
    from clineval.config.schema import check_task

    conf = find_conf(conf)  # None: the default search (any working directory)
    overrides = task_relative(conf, task, overrides)
    try:
        cfg = compose_config(conf, overrides)
        present = task in cfg.get("tasks", {})
    except ConfigError:  # e.g. an override of a task the grid lacks
        present = False
    if not present:
        overrides = [f"+task@tasks.{task}={task}", *overrides]
        cfg = compose_config(conf, overrides)
    settings: Record = OmegaConf.to_container(cfg.tasks[task], resolve=True)  # type: ignore[assignment]
    if settings.get("benchmark") != benchmark:
        raise ConfigError(f"task {task!r} belongs to benchmark {settings.get('benchmark')!r}, "
                          f"not {benchmark!r}")
    check_task(task, settings, conf, overrides)
    return settings


def _key(override: str) -> str:
    """The config path an override sets (``+``/``++``/``~`` prefix and value dropped)."""
    return override.split("=", 1)[0].lstrip("+~")


def _root_keys(conf: Path) -> set[str]:
    """The config groups and every key the root config or a grid can hold (read from their
    YAML, without composing): their top-level keys and the targets of their defaults."""
    import yaml

    roots = {p.name for p in conf.iterdir() if p.is_dir()}
    for path in [conf / "config.yaml", *sorted((conf / "grid").glob("*.yaml"))]:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8")) if path.is_file() else None
        if not isinstance(loaded, dict):
            continue
        roots.update(key for key in loaded if key != "defaults")
        for entry in loaded.get("defaults") or []:
            for name in entry if isinstance(entry, dict) else [entry]:
                if isinstance(name, str) and "@" in name:
                    roots.add(name.split("@", 1)[1].split(".")[0])
    return roots


def task_relative(conf: Path, task: str, overrides: list[str]) -> list[str]:
    """The overrides with the short form of a task's settings made full: ``scoring.x=v`` (any
    key whose first part is neither a key of the root config nor a config group) becomes
    ``tasks.<task>.scoring.x=v``, prefixes kept. Root keys win (``modes=...`` is the grid's)."""
    roots = _root_keys(conf)
    relative = []
    for override in overrides:
        key = _key(override)
        head = key.split(".")[0]
        if key and "@" not in key and "/" not in key and head not in roots:
            prefix = override[: len(override) - len(override.lstrip("+~"))]
            override = f"{prefix}tasks.{task}.{override[len(prefix):]}"
        relative.append(override)
    return relative


def exemplar_modes(conf: Path | None, task: Record) -> list[str]:
    """The task's modes whose prompts show exemplars (``exemplars`` above 0 in
    ``conf/mode/<mode>.yaml``)."""
    import yaml

    folder = find_conf(conf) / "mode"
    shown = []
    for mode in task.get("modes") or ():
        path = folder / f"{mode}.yaml"
        loaded = yaml.safe_load(path.read_text(encoding="utf-8")) if path.is_file() else None
        if isinstance(loaded, dict) and int(loaded.get("exemplars") or 0) > 0:
            shown.append(mode)
    return shown


def read_predictions(path: Path, examples: list[Record],
                     exemplars: dict[str, str] | None = None) -> list[Record]:
    """The outputs, one per example, checked against the example ids; ``exemplars``: the ids
    of the task's exemplars, each with what shows it (the message of a row for one)."""
    known = {e["id"] for e in examples}
    seen: set[str] = set()
    rows = []
    for line, record in enumerate(read_jsonl(path, ("id", "output")), start=1):
        if record["id"] not in known:
            shown = (exemplars or {}).get(record["id"])
            raise DataError(path, line, "id", f"{record['id']!r} is not an example id" + (
                f": it is the id of {shown}, which its prompts show and nothing scores; drop "
                "the row" if shown else ""))
        if record["id"] in seen:
            raise DataError(path, line, "id", f"{record['id']!r} appears twice")
        if not isinstance(record["output"], str):
            raise DataError(path, line, "output", "expected a string")
        seen.add(record["id"])
        rows.append({"id": record["id"], "output": record["output"]})
    missing = sorted(known - seen)
    if missing:
        raise DataError(path, None, "id", f"no output for example(s) {missing[:10]}")
    return rows


def score(bench: Any, args: argparse.Namespace) -> int:
    """Score the predictions with the benchmark's own scoring; print rows and summary."""
    task = task_settings(args.conf, args.task, bench.name, list(args.overrides))
    examples = read_jsonl(args.examples, ("id",))
    beside = args.examples.with_name(EXEMPLARS)
    modes = " and ".join(exemplar_modes(args.conf, task)) or "exemplar"
    exemplars = {e["id"]: f"an exemplar of task {args.task} (its {modes} mode; {beside})"
                 for e in (read_jsonl(beside, ("id",)) if beside.is_file() else [])}
    rows, summary = bench.score(task, examples,
                                read_predictions(args.predictions, examples, exemplars))
    if args.json:
        print(json.dumps({"task": args.task, "rows": rows, "summary": summary},
                         ensure_ascii=False, sort_keys=True))
    else:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False, sort_keys=True))
        print(json.dumps(bench.headline(summary), indent=2, sort_keys=True))
    return 0
