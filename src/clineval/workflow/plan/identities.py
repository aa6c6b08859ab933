"""The identity of each artifact of a plan.

Each identity file holds everything that can change one artifact (settings, upstream hashes)
and is named by the hash of that content (``<key>-<sha16>.json``), so it is written once and
never rewritten. Rules take it as an input: a changed identity is a new input file, and
Snakemake re-runs exactly the artifacts whose identity changed. Going back to earlier settings
points at the earlier file again, so trying an override in a dry run (``-n``) never makes
finished artifacts look stale. Steps read their settings from the identity file.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

from clineval.benchmarks import get_benchmark, title
from clineval.config import budget, slices
from clineval.config.locate import config_file
from clineval.config.prompt_kind import prompt_kind
from clineval.config.schema.grid import Eee
from clineval.config.schema.tasks import RESTRICTED
from clineval.config.validate import table_tasks, validate_model
from clineval.config.yaml_files import read_yaml
from clineval.errors import ConfigError
from clineval.export import eee, eee_schema
from clineval.inference import gguf_model
from clineval.inference.recorded_backend import file_of, pin_of
from clineval.inference.registry import backend_of
from clineval.metrics import copying
from clineval.metrics.bootstrap import BootstrapSettings
from clineval.provenance.filehash import FileHashCache
from clineval.provenance.hashing import sha256_obj
from clineval.provenance.location import portable
from clineval.report.explorer_step import EXAMPLES_VERSION
from clineval.tables import statistics
from clineval.workflow.plan import code_changes
from clineval.workflow.plan.access import allowed
from clineval.workflow.plan.layout import Cell, Plan, file_hash_memo

log = logging.getLogger("clineval")
DISPLAY_KEYS = ("display_name", "size", "smoke", "resources")
#: Task keys that do not change requests: scoring settings, and the cluster resources of the
#: task's scoring jobs (``resources``), which change no file at all.
NOT_IN_REQUESTS = ("scoring", "resources")
MODEL_BUILDER_VERSION = "1"
#: Table spec keys that only the reports show: part of the report's identity, not the table's.
REPORT_ONLY = ("caption",)
#: Version of the figure drawing code (clineval.figures): bump when it draws differently.
FIGURES_VERSION = "1"
#: Bump when src/clineval/report/page.py lays the page out anew: the report is rendered again.
REPORT_PAGE_VERSION = "5"  # 5: links to levels, aspects and statistics


def _request_settings(task: dict[str, Any]) -> dict[str, Any]:
    """The task's settings in its requests identity: all but :data:`NOT_IN_REQUESTS`, with
    ``access`` as whether its official files may be shared: ``public``, else ``credentialed``
    (the two values it had before the other tiers). The tier changes no request: declaring one
    (MedDisK's ``unreleased``, a user's ``private``) moves no artifact."""
    kept = {k: v for k, v in task.items() if k not in NOT_IN_REQUESTS}
    if kept.get("access") in RESTRICTED:
        kept["access"] = "credentialed"
    return kept


def _strip(model: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in model.items() if k not in DISPLAY_KEYS}


def _model_limits(
    model: dict[str, Any], chat_template_sha: str | None, build_sha: str | None
) -> dict[str, Any] | None:
    """What fitting a request into the model's context depends on (None: no context, baselines):
    the context, the cell's budget (``model``'s ``sampling.max_tokens``, set per cell) and the
    tokenizer (build or chat template): another tokenizer may cut elsewhere.
    """
    context = model.get("context")
    if not context:
        return None
    return {
        "max_model_len": context["max_model_len"],
        "max_tokens": model["sampling"]["max_tokens"],
        "model": {
            "id": model["id"],
            "revision": model.get("revision"),
            "backend": model["backend"],
            "context": context,
            "engine": {"chat_template": (model.get("engine") or {}).get("chat_template")},
        },
        "chat_template_sha": chat_template_sha,
        "model_build": build_sha,
    }


def _with_sha(content: dict[str, Any]) -> dict[str, Any]:
    return {"sha": sha256_obj(content), "identity": content}


def _load_templates(conf_dir: Path, task_name: str, task: dict[str, Any]) -> dict[str, Any] | None:
    """The task's prompt wording: ``templates`` itself (a mapping) or the file it names under
    ``conf/`` (else under the ``conf`` its benchmark's package carries)."""
    rel = task.get("templates")
    if rel is None or isinstance(rel, dict):
        return rel
    if not isinstance(rel, str):
        raise ConfigError(f"tasks.{task_name}.templates={rel!r}: expected the wording (a "
                          "mapping) or a file under conf/ (a path)")
    path = config_file(conf_dir, rel, task["benchmark"])
    if not path.is_file():
        raise ConfigError(f"tasks.{task_name}.templates: {path} does not exist")
    return read_yaml(path)


#: Files of a local model folder whose bytes decide its output (weights, config, tokenizer).
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".gguf", ".json", ".model", ".txt", ".jinja")


def _weights(name: str, model: dict[str, Any], hashes: FileHashCache) -> dict[str, str] | None:
    """sha256 of each file of a local model folder (``path``, of a backend with
    ``local_weights``), by relative path; None for other models. A folder that is not there
    yet (a cluster path, say) hashes to ``{}``."""
    if not model.get("path") or not backend_of(model).local_weights:
        return None
    root = Path(model["path"]).expanduser()
    if not root.is_dir():
        log.warning("models.%s.path %s is not a folder here: its weights are not hashed into "
                    "the identity", name, root)
        return {}
    return {str(p.relative_to(root)): hashes.sha256(p, f"models.{name} weights")
            for p in sorted(root.rglob("*"))
            if p.is_file() and p.suffix in WEIGHT_SUFFIXES and ".cache" not in p.parts}


def _per_task(spec: Mapping[str, Any]) -> bool:
    """A recorded model's ``recorded.path`` (or ``sha256``) is a mapping by task."""
    return isinstance(spec.get("path"), Mapping) or isinstance(spec.get("sha256"), Mapping)


def _recorded(name: str, model: dict[str, Any], task: str,
              hashes: FileHashCache) -> dict[str, str] | None:
    """A recorded model's file for ``task`` (``recorded.path``, or its entry for the task): its
    name and sha256, which a pin (``recorded.sha256``) must match; None for other models."""
    if not backend_of(model).recorded:
        return None
    spec = model["recorded"]
    where = f"models.{name}.recorded"
    path = Path(str(file_of(spec, task))).expanduser()
    digest = hashes.sha256(path, f"{where}.path" + (f".{task}" if _per_task(spec) else ""))
    pin = pin_of(spec, task)
    if pin and pin != digest:
        raise ConfigError(f"{where}.sha256: {path} has sha256 {digest}, but the config pins "
                          f"{pin} (the file changed)")
    return {"file": path.name, "sha256": digest}


def _task_model(model: dict[str, Any], task: str) -> dict[str, Any]:
    """The model as a cell of ``task`` sees it: a recorded model's file (and pin) per task
    narrowed to the task's, so that another task's file changes none of its identities."""
    spec = model.get("recorded")
    if not backend_of(model).recorded or not _per_task(spec):
        return model
    return {**model, "recorded": {**spec, "path": file_of(spec, task),
                                  "sha256": pin_of(spec, task)}}


def _shown_recorded(recorded: Mapping[tuple[str, str], dict[str, str] | None], model: str,
                    tasks: Sequence[str]) -> dict[str, Any]:
    """A table's or figure's entry for a recorded model, over the tasks it shows: ``recorded``,
    its file (``{file, sha256}``), or a list of them where the tasks read several; nothing for
    other models."""
    shown: list[dict[str, str]] = []
    for task in tasks:
        entry = recorded.get((model, task))
        if entry and entry not in shown:
            shown.append(entry)
    if not shown:
        return {}
    return {"recorded": shown[0] if len(shown) == 1 else shown}


def _chat_template_sha(model_dir: Path | None) -> str | None:
    """Hash of a local model's chat template files, when they exist at plan time."""
    if model_dir is None:
        return None
    found = [
        p
        for p in (model_dir / "tokenizer_config.json", model_dir / "chat_template.jinja")
        if p.is_file()
    ]
    return sha256_obj([p.read_text(encoding="utf-8") for p in found]) if found else None


def _slice(cfg: dict[str, Any], cell: Cell) -> dict[str, Any]:
    """The slice keys of a cell on a slice of its task (grid.slices; ``{"slice": n}`` for a
    limit alone), else nothing: the other cells keep their identities."""
    return slices.identity(cfg, cell.model, cell.task)


def _sliced_model(cfg: dict[str, Any], model: str, tasks: Sequence[str]) -> dict[str, Any]:
    """``{"sliced": True}`` for a model that runs a slice of any of a table's tasks."""
    return {"sliced": True} if any(slices.is_sliced(cfg, model, t) for t in tasks) else {}

def _named_input_hashes(plan: Plan, task: str, hashes: FileHashCache) -> dict[str, Any]:
    """Path and sha256 of each file the benchmark names for the task's scoring. A demo source
    of the task (a synthetic ontology, say) does not exist before the workflow writes it: its
    content follows from the data identity, which the scoring identity holds through the
    generation's, so its hash is None here and the score record holds the hash it read."""
    made = set(plan.sources(task).values()) if plan.cfg["tasks"][task]["data"].get(
        "source") == "demo" else set()
    return {
        role: {"path": portable(path),
               "sha256": None if path in made else hashes.sha256(path, f"tasks.{task} scoring "
                                                                        f"{role}")}
        for role, path in sorted(plan.named_scoring_inputs(task).items())
    }


def _derived_input_identities(plan: Plan, task: str, named: dict[str, Any],
                              data_sha: str) -> dict[str, Any]:
    """The identity of each file derived from the task's named scoring inputs (``named``, their
    hashes), set in the plan, and the task's scoring-input entries: the named ones, and each
    derived one with no hash yet (its record keeps the hash read) but its own identity. A
    derived file depends on the benchmark's settings for it and its scoring version, the named
    inputs and, for a demo task whose inputs the workflow writes, the data identity."""
    spec = plan.cfg["tasks"][task]
    entries = dict(named)
    specs = plan.derived_input_specs(task)
    for role, path in sorted(plan.derived_inputs(task).items()):
        ident = _with_sha(code_changes.joined({
            "kind": "scoring_input",
            "task": task,
            "role": role,
            "credentialed": plan.credentialed(task),
            "benchmark": spec["benchmark"],
            "scoring_version": get_benchmark(spec["benchmark"]).scoring_version,
            "settings": specs[role].settings,
            "inputs": named,
            **({"demo_data": data_sha} if spec["data"].get("source") == "demo" else {}),
        }, plan.cfg))
        plan.identities[f"inputs/{task}/{role}"] = ident
        entries[role] = {"path": portable(path), "sha256": None, "identity": ident["sha"]}
    return entries


def _build_identity(model: str, build: dict[str, Any], hashes: FileHashCache) -> dict[str, Any]:
    """A built model's identity: its settings and, for a GGUF, the file's sha256 and the
    versions of the converting libraries (another weights file re-runs only its cells)."""
    content: dict[str, Any] = {"kind": "model", "model": model, "build": build,
                               "builder_version": MODEL_BUILDER_VERSION}
    if gguf_model.is_gguf(build):
        try:
            path = gguf_model.locate(build)
        except gguf_model.GgufError as err:
            raise ConfigError(f"models.{model}.build: {err}") from err
        digest = hashes.sha256(path, f"models.{model} GGUF")
        if build.get("sha256") and build["sha256"] != digest:
            raise ConfigError(f"models.{model}.build.sha256: {path} has sha256 {digest}, but "
                              f"the config pins {build['sha256']} (another version of the "
                              "file is installed)")
        content["gguf"] = {"file": path.name, "sha256": digest}
        content["converters"] = gguf_model.converter_versions()
    return _with_sha(content)


def _judge_identities(plan: Plan, task: str) -> dict[str, Any]:
    """What the task's judge models add to its scoring identity beyond their config (which is in
    the task's scoring settings): where they load from, their build and chat template. A judge
    the workflow builds gets a build identity (shared with a grid model of the same name, which
    must then have the same build settings)."""
    found = {}
    for name, spec in sorted(plan.judges(task).items()):
        validate_model(f"{name} (a judge of tasks.{task}.scoring)", spec)
        build_sha = None
        if spec.get("build") and not spec.get("path"):
            ident = _build_identity(name, spec["build"], plan.file_hashes)
            known = plan.identities.get(f"models/{name}")
            if known is not None and known["sha"] != ident["sha"]:
                raise ConfigError(f"tasks.{task}.scoring: the judge {name!r} has other build "
                                  f"settings than the grid's model {name!r}; both would be built "
                                  f"into {plan.judge_dir(name, spec)}")
            plan.identities[f"models/{name}"] = ident
            build_sha = ident["sha"]
        path = Path(spec["path"]) if spec.get("path") else None
        found[name] = {"dir": portable(plan.judge_dir(name, spec)), "model_build": build_sha,
                       "chat_template_sha": _chat_template_sha(path)}
    return found


def compute_identities(plan: Plan) -> None:
    """Set the identity of every artifact of the plan in ``plan.identities`` (not yet
    written: :meth:`Plan.write_identities`)."""
    cfg = plan.cfg
    if plan.file_hashes is None:
        plan.file_hashes = file_hash_memo(plan.results)
    hashes = plan.file_hashes
    ids = plan.identities
    data_sha: dict[str, str] = {}
    templates: dict[str, Any] = {}
    for task in sorted({c.task for c in plan.cells}):
        spec = cfg["tasks"][task]
        sources = plan.sources(task)
        demo = spec["data"].get("source") == "demo"
        content = {
            "kind": "data",
            "task": task,
            "credentialed": plan.credentialed(task),
            "benchmark": spec["benchmark"],
            "version": spec["version"],
            "data_version": get_benchmark(spec["benchmark"]).data_version,
            "data": spec["data"],
            "exemplars": spec.get("exemplars"),
            "sources": {
                name: {"path": str(path), "sha256": None if demo else hashes.sha256(path, name)}
                for name, path in sorted(sources.items())
            },
        }
        ident = _with_sha(content)
        ids[f"data/{task}"] = ident
        data_sha[task] = ident["sha"]
        templates[task] = _load_templates(plan.conf_dir, task, spec)
    scoring_inputs = {task: _derived_input_identities(plan, task,
                                                      _named_input_hashes(plan, task, hashes),
                                                      data_sha[task])
                      for task in sorted({c.task for c in plan.cells})}
    for model in sorted({c.model for c in plan.cells}):
        build = cfg["models"][model].get("build")
        if build and not cfg["models"][model].get("path"):
            ids[f"models/{model}"] = _build_identity(model, build, hashes)
    judges = {task: _judge_identities(plan, task) for task in sorted({c.task for c in plan.cells})}
    chat_templates = {
        name: _chat_template_sha(
            Path(cfg["models"][name]["path"]) if cfg["models"][name].get("path") else None
        )
        for name in {c.model for c in plan.cells}
    }
    weights = {name: _weights(name, cfg["models"][name], hashes)
               for name in {c.model for c in plan.cells}}
    recorded = {(c.model, c.task): _recorded(c.model, cfg["models"][c.model], c.task, hashes)
                for c in plan.cells}
    prompt_kinds = {name: prompt_kind(name, cfg["models"][name])
                    for name in {c.model for c in plan.cells}}
    hashes.save()
    for cell in plan.cells:
        task, mode = cfg["tasks"][cell.task], cfg["modes"][cell.mode]
        model = budget.with_max_tokens(_task_model(cfg["models"][cell.model], cell.task),
                                       budget.max_tokens(cell.model, cfg["models"][cell.model],
                                                         cell.task, task, mode))
        bench = get_benchmark(task["benchmark"])
        requests = _with_sha(
            {
                "kind": "requests",
                "cell": cell.path,
                "credentialed": plan.credentialed(cell.task),
                "data": data_sha[cell.task],
                "benchmark": task["benchmark"],
                "task": _request_settings(task),
                "mode_name": cell.mode,
                "mode": mode,
                "templates": templates[cell.task],
                "model_limits": _model_limits(model, chat_templates[cell.model],
                                              ids.get(f"models/{cell.model}", {}).get("sha")),
                # only when not chat, so that chat models keep their earlier identities
                **({"prompt_kind": prompt_kinds[cell.model]}
                   if prompt_kinds[cell.model] != "chat" else {}),
                **_slice(cfg, cell),
            }
        )
        # only where a remote model or judge receives restricted data as its config allows
        # (workflow.access), so that every other cell keeps its identities
        sent = allowed(plan, cell)
        by_model = sent and [s for s in sent["allowed_by"] if s.startswith("models.")]
        generation = _with_sha(
            {
                "kind": "generation",
                "cell": cell.path,
                "credentialed": plan.credentialed(cell.task),
                "requests": requests["sha"],
                "benchmark": task["benchmark"],
                "model_name": cell.model,
                "model": _strip(model),
                "model_build": ids.get(f"models/{cell.model}", {}).get("sha"),
                "chat_template_sha": chat_templates[cell.model],
                # only for a local folder (`path`), so that other models keep their identities
                **({"weights": weights[cell.model]} if weights[cell.model] is not None else {}),
                # only for recorded outputs, likewise
                **({"recorded": recorded[cell.model, cell.task]}
                   if recorded[cell.model, cell.task] else {}),
                "baseline_settings": (task.get("scoring") or {}).get("baselines")
                if backend_of(model).baseline
                else None,
                **({"data_access": {**sent, "allowed_by": by_model}} if by_model else {}),
            }
        )
        scoring = _with_sha(code_changes.joined(
            {
                "kind": "scoring",
                "cell": cell.path,
                "credentialed": plan.credentialed(cell.task),
                "generation": generation["sha"],
                "benchmark": task["benchmark"],
                "scoring_version": bench.scoring_version,
                # every row's ``copied`` (workflow.steps.mark_copies)
                "copying_version": copying.VERSION,
                "task": {k: task.get(k) for k in ("version", "scoring")},
                "inputs": scoring_inputs[cell.task],
                # only with judges, so that other tasks keep their earlier identities
                **({"judges": judges[cell.task]} if judges[cell.task] else {}),
                # only where the benchmark's scoring reads the mode (e.g. which answer format
                # its prompt asked for), so that other benchmarks keep their identities
                **({"mode": mode} if bench.scoring_reads_mode else {}),
                **_slice(cfg, cell),
                **({"data_access": sent} if sent else {}),
            }, cfg
        ))
        for kind, ident in (
            ("requests", requests),
            ("generation", generation),
            ("scoring", scoring),
        ):
            ids[f"{cell.path}/{kind}"] = ident
    for name, table_cells in plan.tables.items():
        used = {c.model for c in table_cells}
        content = {
            "kind": "table",
            "table": name,
            "credentialed": any(plan.credentialed(c.task) for c in table_cells),
            "spec": {k: v for k, v in cfg["tables"][name].items() if k not in REPORT_ONLY},
            "statistics": statistics.settings(cfg["tables"][name], sorted(used),
                                              sorted(cfg["models"])),
            "cells": [c.path for c in table_cells],
            "models": {
                m: {
                    k: cfg["models"][m].get(k)
                    for k in ("id", "display_name", "size", "smoke", "backend")
                } | _sliced_model(cfg, m, table_tasks(cfg["tables"][name]))
                | _shown_recorded(recorded, m, [c.task for c in table_cells if c.model == m])
                for m in sorted(used)
            },
            "modes": {m: cfg["modes"][m] for m in cfg["tables"][name]["modes"]},
            "tasks": {
                task: {
                    k: cfg["tasks"][task].get(k)
                    for k in ("benchmark", "display_name", "version", "data", "scoring")
                }
                | ({"skipped": plan.skipped[task]} if task in plan.skipped else {})
                for task in table_tasks(cfg["tables"][name])
            },
        }
        ids[f"tables/{name}"] = _with_sha(code_changes.joined(content, cfg))
    for name, shown in plan.figures.items():
        used = sorted({c.model for t in shown for c in plan.tables[t]})
        tasks = sorted({c.task for t in shown for c in plan.tables[t]})
        modes = sorted({c.mode for t in shown for c in plan.tables[t]})
        content = {
            "kind": "figure",
            "figure": name,
            "credentialed": any(ids[f"tables/{t}"]["identity"]["credentialed"] for t in shown),
            "spec": cfg["figures"][name],
            "tables": {t: ids[f"tables/{t}"]["sha"] for t in shown},
            "models": {m: {k: cfg["models"][m].get(k) for k in ("display_name", "smoke")}
                       | _sliced_model(cfg, m, tasks)
                       | _shown_recorded(recorded, m, [c.task for t in shown
                                                       for c in plan.tables[t] if c.model == m])
                       for m in used},
            "tasks": {t: cfg["tasks"][t].get("display_name") for t in tasks},
            "modes": {m: cfg["modes"][m]["description"] for m in modes},
            "drawing": {"version": FIGURES_VERSION, "matplotlib": version("matplotlib")},
        }
        ids[f"figures/{name}"] = _with_sha(code_changes.joined(content, cfg))
    if plan.tables:
        ids["report/examples"] = _with_sha(_examples_identity(plan))
        ids["report/index"] = _with_sha(_report_identity(plan))
    settings = export_settings(cfg)
    for model, task in plan.export_groups():
        ids[f"export-eee/{model}/{task}"] = _with_sha(_export_identity(plan, model, task,
                                                                        settings))


def _report_identity(plan: Plan) -> dict[str, Any]:
    """What ``results/report/index.html`` shows: the grid, each table's section, title, caption
    and identity (leaderboard first), the figures' specs, the smoke models and the models of
    recorded outputs."""
    cfg, ids = plan.cfg, plan.identities
    pairs = plan.example_pairs()
    tables = [
        {"table": name, "section": plan.table_section(name),
         "title": cfg["tables"][name]["title"], "caption": cfg["tables"][name]["caption"],
         "identity": ids[f"tables/{name}"]["sha"],
         # the explorer's pages of the pairs it compares, only where it compares any
         **({"pairs": shown} if (shown := [[a.path, b.path] for a, b in pairs
                                           if a in plan.tables[name] and b in plan.tables[name]
                                           and _compared(plan, name, a, b)]) else {})}
        for name in plan.report_tables()
    ]
    models = {m for cells in plan.tables.values() for m in (c.model for c in cells)}
    recorded = sorted(m for m in models if backend_of(cfg["models"][m]).recorded)
    return {
        "kind": "report",
        "page_version": REPORT_PAGE_VERSION,
        "grid": cfg["grid"].get("name"),
        "credentialed": any(ids[f"tables/{t}"]["identity"]["credentialed"] for t in plan.tables),
        "tables": tables,
        "figures": {
            name: {"title": cfg["figures"][name]["title"],
                   "caption": cfg["figures"][name]["caption"],
                   "section": plan.figure_section(name),
                   "identity": ids[f"figures/{name}"]["sha"]}
            for name in sorted(plan.figures)
        },
        "smoke_models": sorted(m for m in models if cfg["models"][m].get("smoke")),
        "examples": {"prompts": ids["report/examples"]["identity"]["prompts"],
                     "credentialed": ids["report/examples"]["identity"]["credentialed"]},
        # only with recorded outputs, so that other reports keep their identities
        **({"recorded_models": recorded} if recorded else {}),
        # only with graders' files (report.grades), likewise
        **({"grades": grades} if (grades := _grades(plan)) else {}),
    }


def _grades(plan: Plan) -> list[dict[str, str]]:
    """Path and sha256 of each graders' file ``report.grades`` names (a missing one names the
    setting)."""
    assert plan.file_hashes is not None
    return [{"path": portable(Path(path)),
             "sha256": plan.file_hashes.sha256(Path(path), f"report.grades[{i}]")}
            for i, path in enumerate((plan.cfg.get("report") or {}).get("grades") or [])]


def _compared(plan: Plan, table: str, a: Cell, b: Cell) -> bool:
    """Whether the table's comparisons name the models of cells ``a`` and ``b`` as a pair."""
    spec = plan.identities[f"tables/{table}"]["identity"]["statistics"]["comparisons"] or {}
    return [a.model, b.model] in spec.get("pairs", [])


def example_prompts(cfg: dict[str, Any]) -> str:
    """``report.examples.prompts`` (default ``auto``)."""
    return str(((cfg.get("report") or {}).get("examples") or {}).get("prompts", "auto"))


def _examples_identity(plan: Plan) -> dict[str, Any]:
    """What the explorer's pages show (:mod:`clineval.report.explorer_step`) beyond their
    cells' files (the job's inputs): each cell of the report's tables with its data's tier and
    whether its page embeds the prompts; the models' display fields; the pairs the tables
    compare. A cell's scores changing re-runs the job by its files, not by this identity."""
    cfg = plan.cfg
    prompts = example_prompts(cfg)
    cells = plan.example_cells()
    recorded = {m for m in {c.model for c in cells} if backend_of(cfg["models"][m]).recorded}
    return {
        "kind": "examples",
        "page_version": EXAMPLES_VERSION,
        "grid": cfg["grid"].get("name"),
        "prompts": prompts,
        "credentialed": any(plan.credentialed(c.task) for c in cells),
        "cells": [{
            "cell": c.path, "model": c.model, "task": c.task, "mode": c.mode,
            "benchmark_title": title(plan.benchmark(c.task)),
            "task_title": cfg["tasks"][c.task].get("display_name") or c.task,
            "tier": plan.tier(c.task), "credentialed": plan.credentialed(c.task),
            "prompts": prompts == "always" or (prompts == "auto"
                                               and not plan.credentialed(c.task)),
        } for c in cells],
        "models": {m: {"display_name": cfg["models"][m].get("display_name") or m,
                       "smoke": bool(cfg["models"][m].get("smoke")),
                       "recorded": m in recorded}
                   for m in dict.fromkeys(c.model for c in cells)},
        "pairs": [[a.path, b.path] for a, b in plan.example_pairs()],
    }


def export_settings(cfg: dict[str, Any]) -> dict[str, Any]:
    """``export.eee`` of the config, over the defaults of its schema (``Eee``)."""
    given = (cfg.get("export") or {}).get("eee") or {}
    return {f.name: given.get(f.name, f.default) for f in dataclasses.fields(Eee)}


def _interval_settings(plan: Plan, cell: Cell) -> tuple[str | None, dict[str, Any]]:
    """The first table that shows the cell and its bootstrap settings (the defaults where no
    table does): an export's intervals are that table's."""
    for name, cells in plan.tables.items():
        if cell in cells:
            return name, plan.identities[f"tables/{name}"]["identity"]["statistics"]["bootstrap"]
    return None, BootstrapSettings().as_dict()


def _export_identity(plan: Plan, model: str, task: str, settings: dict[str, Any]
                     ) -> dict[str, Any]:
    """What a model's Every Eval Ever export of a task holds (:mod:`clineval.export.eee`): the
    model, the task, the export settings and, per mode, the cell's identities, its mode and the
    bootstrap settings of its interval."""
    cfg, ids = plan.cfg, plan.identities
    spec, task_spec, backend = cfg["models"][model], cfg["tasks"][task], plan.backend(model)
    cells = []
    for cell in plan.export_cells(model, task):
        table, bootstrap = _interval_settings(plan, cell)
        cells.append({"mode": cell.mode, "cell": cell.path,
                      **{kind: ids[f"{cell.path}/{kind}"]["sha"]
                         for kind in ("requests", "generation", "scoring")},
                      "mode_settings": cfg["modes"][cell.mode], "bootstrap": bootstrap,
                      "interval_table": table, **_slice(cfg, cell)})
    data = ids[f"data/{task}"]
    return {
        "kind": "export",
        "format": "every_eval_ever",
        "schema_version": eee_schema.VERSION,
        "export_version": eee.EXPORT_VERSION,
        "grid": cfg["grid"].get("name"),
        "model_name": model,
        "task_name": task,
        "credentialed": plan.credentialed(task),
        "settings": settings,
        "model": {**{k: spec.get(k) for k in ("id", "revision", "backend", "display_name",
                                              "size", "smoke")},
                  "baseline": spec.get("baseline") if backend.baseline else None,
                  "remote": backend.remote},
        "sampling": spec.get("sampling"),
        "benchmark_title": title(task_spec["benchmark"]),
        "lower_is_better": list(get_benchmark(task_spec["benchmark"]).lower_is_better),
        "task": {k: task_spec.get(k) for k in ("benchmark", "display_name", "version", "data",
                                                "scoring", "access")},
        "data": {"identity": data["sha"],
                 "source": "demo" if task_spec["data"].get("source") == "demo" else "official",
                 "sources": {role: entry["sha256"]
                             for role, entry in sorted(data["identity"]["sources"].items())}},
        "cells": cells,
    }
