"""``clineval publish``: a finished run's generations as files of recorded outputs.

Each generated cell (model x task x mode) of the grid becomes ``<out>/<model>/<mode>/<task>.jsonl``
in the ``recorded`` backend's ``jsonl`` layout: per example its ``id``, ``output`` and what the
generating run recorded (``finish_reason``, ``prompt_tokens``, ``completion_tokens``), in the
generation artifact's order. A recorded model per (model, mode) then rescores them anywhere with
no GPU (docs/backends.md, "Recorded outputs"); the command prints that model's config, with every
file's sha256 pinned. Cells of recorded or baseline models are not generations and are skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from clineval.errors import ConfigError, DataError
from clineval.inference.recorded_backend import FINISH_REASONS
from clineval.io import read_jsonl, write_jsonl
from clineval.provenance.hashing import sha256_file
from clineval.workflow.plan.layout import Cell, Plan

#: What a published row keeps of a generation, beside its ``id`` and ``output``.
KEPT = ("finish_reason", "prompt_tokens", "completion_tokens")


@dataclass(frozen=True)
class Published:
    """One cell's file of recorded outputs."""

    cell: Cell
    path: Path
    rows: int
    sha256: str


def recorded_rows(generations: Iterable[Mapping[str, Any]], where: Path) -> list[dict[str, Any]]:
    """The generation artifact's rows in the recorded ``jsonl`` layout (DataError naming the
    artifact's line of a finish reason a recorded row cannot carry)."""
    rows = []
    for line, generation in enumerate(generations, start=1):
        finish = generation.get("finish_reason")
        if finish not in FINISH_REASONS:
            raise DataError(where, line, "finish_reason", f"{finish!r} is not a generated "
                            f"output's ({', '.join(FINISH_REASONS)}): only generations publish")
        rows.append({"id": generation["id"], "output": generation["output"],
                     **{k: generation[k] for k in KEPT if generation.get(k) is not None}})
    return rows


def publish(plan: Plan, out: Path, models: list[str] | None = None) -> list[Published]:
    """Writes every generated cell's file under ``out`` (ConfigError: no cell generated yet)."""
    done = []
    for cell in plan.cells:
        source = plan.artifact("generations", cell)
        model = plan.cfg["models"][cell.model]
        if (models and cell.model not in models) or model.get("backend") in ("recorded",
                                                                             "baseline"):
            continue
        if not source.is_file():
            continue
        path = out / cell.model / cell.mode / f"{cell.task}.jsonl"
        rows = recorded_rows(read_jsonl(source, ("id", "output")), source)
        write_jsonl(path, rows)
        done.append(Published(cell, path, len(rows), sha256_file(path)))
    if not done:
        raise ConfigError(f"no generations under {plan.results} for this grid: run snakemake "
                          "all_tables (with the same overrides) first")
    return done


def model_configs(done: list[Published], plan: Plan) -> dict[str, Any]:
    """A recorded model per (model, mode), answering each task from its own file."""
    configs: dict[str, Any] = {}
    for item in done:
        source = plan.cfg["models"][item.cell.model]
        name = f"{item.cell.model}_{item.cell.mode}_recorded"
        config = configs.setdefault(name, {
            "id": source.get("id"), "revision": source.get("revision"),
            "display_name": f"{source.get('display_name') or item.cell.model} (recorded)",
            "size": source.get("size"),
            "recorded": {"path": {}, "layout": "jsonl", "mode": item.cell.mode, "sha256": {}}})
        config["recorded"]["path"][item.cell.task] = str(item.path)
        config["recorded"]["sha256"][item.cell.task] = item.sha256
    return configs


def run(conf: Path, overrides: list[str], out: Path, models: list[str] | None,
        results: Path = Path("results"), data: Path = Path("data")) -> int:
    from clineval.workflow.plan.build import build_plan

    plan = build_plan(conf, overrides, results=results, data_root=data)
    done = publish(plan, out, models)
    for item in done:
        print(f"wrote {item.path}: {item.rows} outputs, sha256 {item.sha256}")
    print("# the recorded models that rescore them (conf/model/recorded.yaml's section):")
    print(yaml.safe_dump({"models": model_configs(done, plan)}, sort_keys=False), end="")
    return 0
