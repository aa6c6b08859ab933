"""The plan: a validated grid expanded into cells, with an identity file per artifact.

Each identity file holds everything that can change one artifact (settings, upstream hashes)
and is named by the hash of that content (``<key>-<sha16>.json``), so it is written once and
never rewritten. Rules take it as an input: a changed identity is a new input file, and
Snakemake re-runs exactly the artifacts whose identity changed. Going back to earlier settings
points at the earlier file again, so trying an override in a dry run (``-n``) never makes
finished artifacts look stale. Steps read their settings from the identity file.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from importlib.metadata import version
from pathlib import Path
from typing import Any, TypeVar

import yaml

from clineval.benchmarks import get_benchmark
from clineval.benchmarks.base import DerivedInput, derived_scoring_inputs
from clineval.config import slices
from clineval.config.compose import ConfigError, compose_config, parse_overrides
from clineval.config.presets import scoring_judges
from clineval.config.prompt_kind import prompt_kind
from clineval.config.roots import grid_roots
from clineval.config.validate import table_tasks, validate, validate_model
from clineval.inference import gguf_model
from clineval.io import write_text
from clineval.provenance.filehash import FileHashCache
from clineval.provenance.hashing import canonical_json, sha256_obj
from clineval.provenance.location import portable
from clineval.provenance.record import prov_path
from clineval.tables import statistics
from clineval.tables.leaderboard import LAYOUT as LEADERBOARD

log = logging.getLogger("clineval")
T = TypeVar("T")
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
REPORT_PAGE_VERSION = "2"


@dataclass(frozen=True, order=True)
class Cell:
    """One (model, task, mode) of the grid."""

    model: str
    task: str
    mode: str

    @property
    def path(self) -> str:
        return f"{self.model}/{self.task}/{self.mode}"


@dataclass
class Plan:
    """The expanded grid plus the identities of every artifact it will produce."""

    conf_dir: Path
    results: Path
    data_root: Path
    cfg: dict[str, Any]
    cells: list[Cell]
    tables: dict[str, list[Cell]]
    identities: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Tasks left out because an official source file is missing: task -> the message.
    skipped: dict[str, str] = field(default_factory=dict)
    #: sha256 of sources and scoring inputs, reused while size and mtime are unchanged.
    file_hashes: FileHashCache | None = None
    #: Figures to draw: figure -> the tables it reads (all of them built by this plan).
    figures: dict[str, list[str]] = field(default_factory=dict)
    #: Paths made before, by what made them: the workflow asks for each many times per start.
    _paths: dict[tuple[Any, ...], Any] = field(default_factory=dict, init=False, repr=False,
                                               compare=False)

    # -- paths -------------------------------------------------------------------------------
    def _memo(self, key: tuple[Any, ...], make: Callable[[], T]) -> T:
        """The path made for ``key`` before, else ``make()`` (kept)."""
        if key not in self._paths:
            self._paths[key] = make()
        return self._paths[key]

    def identity_file(self, *parts: str) -> Path:
        """The content-addressed identity file of the artifact with logical key ``parts``."""
        key = "/".join(parts)
        sha = self.identities[key]["sha"]
        return self._memo(("identity", key, sha),
                          lambda: self.results / "identity" / f"{key}-{sha[:16]}.json")

    def artifact(self, kind: str, cell: Cell, suffix: str = ".jsonl") -> Path:
        key = ("artifact", kind, cell.model, cell.task, cell.mode, suffix)
        return self._memo(key, lambda: self.results / kind / f"{cell.path}{suffix}")

    def sources(self, task: str) -> dict[str, Path]:
        spec = self.cfg["tasks"][task]
        return get_benchmark(spec["benchmark"]).source_files(spec, self.data_root, task)

    def derived(self, task: str) -> dict[str, Path]:
        return dict(self._memo(("derived", task), lambda: {
            name: self.data_root / "derived" / task / f"{name}.jsonl"
            for name in ("examples", "exemplars")}))

    def model_dir(self, model: str) -> Path | None:
        spec = self.cfg["models"][model]
        if spec.get("path"):
            return Path(spec["path"])
        if spec.get("build"):
            return self.results / "models" / model
        return None

    def model_config(self, model: str) -> Path | None:
        """``config.json`` of a model with ``build`` settings: the generation job's input."""
        model_dir = self.model_dir(model)
        built = self.cfg["models"][model].get("build") and model_dir is not None
        return model_dir / "config.json" if built else None

    def tokenizer_config(self, model: str) -> Path | None:
        """``config.json`` of a built model whose tokenizer fits requests to its context: the
        requests job's input."""
        spec = self.cfg["models"][model]
        return self.model_config(model) if spec.get("context") and not spec.get("path") else None

    def cells_of(self, model: str) -> list[Cell]:
        """The model's cells, in plan order: what one generation job serves."""
        return list(self._cells_by_model.get(model, ()))

    @cached_property
    def _cells_by_model(self) -> dict[str, list[Cell]]:
        by_model: dict[str, list[Cell]] = {}
        for cell in self.cells:
            by_model.setdefault(cell.model, []).append(cell)
        return by_model

    def benchmark(self, task: str) -> str:
        return str(self.cfg["tasks"][task]["benchmark"])

    @cached_property
    def benchmarks(self) -> list[str]:
        """The benchmarks of the grid's cells, sorted."""
        return sorted({self.benchmark(c.task) for c in self.cells})

    @cached_property
    def _cells_by_group(self) -> dict[tuple[str, str], list[Cell]]:
        groups: dict[tuple[str, str], list[Cell]] = {}
        for cell in self.cells:
            groups.setdefault((cell.model, self.benchmark(cell.task)), []).append(cell)
        return groups

    def groups(self) -> list[tuple[str, str]]:
        """The (model, benchmark) pairs of the grid: one requests and one scoring job each."""
        return sorted(self._cells_by_group)

    def cells_of_group(self, model: str, benchmark: str) -> list[Cell]:
        """The cells one requests or scoring job serves, in plan order."""
        return list(self._cells_by_group.get((model, benchmark), ()))

    def benchmark_cells(self, benchmark: str) -> list[tuple[str, str]]:
        """The (task, mode) pairs of the benchmark: every model that runs it runs all of them
        (grid.select filters models, tasks and modes independently), so one rule per benchmark
        with a ``{model}`` wildcard names every job's files."""
        pairs: list[tuple[str, str]] = []
        for cell in self.cells:
            if self.benchmark(cell.task) == benchmark and (cell.task, cell.mode) not in pairs:
                pairs.append((cell.task, cell.mode))
        return pairs

    def benchmark_tasks(self, benchmark: str) -> list[str]:
        return sorted({task for task, _ in self.benchmark_cells(benchmark)})

    def scoring_inputs(self, task: str) -> dict[str, Path]:
        """Files the task's scoring reads beyond examples and generations (by role): those the
        benchmark names, and those the workflow derives from them (:meth:`derived_inputs`)."""
        return {**self.named_scoring_inputs(task), **self.derived_inputs(task)}

    def named_scoring_inputs(self, task: str) -> dict[str, Path]:
        """The files the benchmark's ``scoring_inputs`` names (ontologies, encoders, ...)."""
        spec = self.cfg["tasks"][task]
        return self._memo(("named inputs", task), lambda: get_benchmark(
            spec["benchmark"]).scoring_inputs(spec, task, self.data_root))

    def derived_inputs(self, task: str) -> dict[str, Path]:
        """Scoring inputs the workflow builds from the named ones before scoring (CliBench's
        title embeddings), role -> path in the task's derived folder."""
        return self._memo(("derived inputs", task), lambda: {
            role: self.data_root / "derived" / task / derived.name
            for role, derived in self.derived_input_specs(task).items()})

    def derived_input_specs(self, task: str) -> dict[str, DerivedInput]:
        """What the benchmark declares of each file derived from the task's scoring inputs."""
        spec = self.cfg["tasks"][task]
        return self._memo(("derived specs", task), lambda: derived_scoring_inputs(
            get_benchmark(spec["benchmark"]), spec))

    def judges(self, task: str) -> dict[str, dict[str, Any]]:
        """The models the task's scoring runs (judges, named by preset), by name."""
        return scoring_judges(self.cfg["tasks"][task].get("scoring"))

    def judge_dir(self, name: str, spec: dict[str, Any]) -> Path:
        """A judge's weights: its ``path``, else the folder the workflow builds it into."""
        return Path(spec["path"]) if spec.get("path") else self.results / "models" / name

    def judge_files(self, task: str) -> list[Path]:
        """``config.json`` of each judge the workflow builds: inputs of the scoring job."""
        return [self.judge_dir(name, spec) / "config.json"
                for name, spec in sorted(self.judges(task).items()) if not spec.get("path")]

    def shards(self, model: str) -> int:
        """Data-parallel generation jobs for the model (``resources.shards``, default 1)."""
        return int((self.cfg["models"][model].get("resources") or {}).get("shards", 1))

    def table_outputs(self, table: str) -> list[Path]:
        """The table's files (and its statistics) beside its headline numbers."""
        return [self.results / "tables" / f"{table}.{ext}"
                for ext in ("csv", "md", "tex", "stats.json", "stats.md")]

    def figure_outputs(self, figure: str) -> list[Path]:
        """The figure's PNG and SVG."""
        return [self.results / "figures" / f"{figure}.{ext}" for ext in ("png", "svg")]

    def figure_inputs(self, figure: str) -> list[Path]:
        """The table files a figure reads: each table's CSV and statistics."""
        return [self.results / "tables" / f"{table}.{ext}"
                for table in self.figures[figure] for ext in ("csv", "stats.json")]

    def metrics_file(self, table: str) -> Path:
        """The table's headline numbers per cell, for ``dvc metrics``."""
        return self.results / "tables" / f"{table}.metrics.json"

    def table_section(self, table: str) -> str:
        """The report section of a table: its benchmark, or ``leaderboard``."""
        spec = self.cfg["tables"][table]
        if spec["layout"] == LEADERBOARD:
            return LEADERBOARD
        return self.benchmark(table_tasks(spec)[0])

    def report_tables(self) -> list[str]:
        """The plan's tables in report order: the leaderboard first, then by benchmark."""
        return sorted(self.tables, key=lambda t: (self.table_section(t) != LEADERBOARD,
                                                  self.table_section(t), t))

    def figure_section(self, figure: str) -> str:
        """The report section of a figure: that of the first table it draws from."""
        return self.table_section(self.figures[figure][0])

    def report_sources(self) -> tuple[dict[str, Path], dict[str, Path]]:
        """What the HTML report reads, by name: each table's Markdown and each figure's PNG."""
        return ({name: self.table_outputs(name)[1] for name in self.tables},
                {name: self.figure_outputs(name)[0] for name in self.figures})

    def report_file(self) -> Path:
        """The self-contained HTML report of the grid's tables and figures."""
        return self.results / "report" / "index.html"

    def record_file(self, kind: str, key: str) -> Path:
        """The provenance record of an artifact (``kind``: data, model, requests, generation,
        scores, table, figure, report; ``key``: a task, model, cell path, table or figure name;
        the report's is ignored)."""
        return self._memo(("record", kind, key), lambda: self._record_file(kind, key))

    def _record_file(self, kind: str, key: str) -> Path:
        match kind:
            case "data":
                return self.data_root / "derived" / key / "provenance.json"
            case "scoring_input":
                task, _, role = key.partition("/")
                return prov_path(self.derived_inputs(task)[role])
            case "model":
                return self.results / "models" / key / "provenance.json"
            case "requests" | "scores":
                return prov_path(self.results / kind / f"{key}.jsonl")
            case "generation":
                return self.results / "generations" / f"{key}.meta.json"
            case "table":
                return prov_path(self.results / "tables" / f"{key}.csv")
            case "report":
                return self.results / "report" / "provenance.json"
            case "figure":
                return prov_path(self.results / "figures" / f"{key}.png")
        raise ValueError(f"no provenance record for kind {kind!r}")

    def credentialed(self, task: str) -> bool:
        """Artifacts of the task derive from credentialed data (not the synthetic demo)."""
        spec = self.cfg["tasks"][task]
        return spec.get("access") == "credentialed" and spec["data"].get("source") != "demo"

    # -- identities ----------------------------------------------------------------------------
    def write_identities(self) -> int:
        """Write the identity files that do not exist yet; return how many were written.

        A file is named by the hash of its content, so one that exists needs no reading.
        """
        written = 0
        for key, ident in self.identities.items():
            path = self.identity_file(key)
            if not path.exists():
                write_text(path, canonical_json(ident) + "\n")
                written += 1
        return written


def _strip(model: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in model.items() if k not in DISPLAY_KEYS}


def _model_limits(
    model: dict[str, Any], chat_template_sha: str | None, build_sha: str | None
) -> dict[str, Any] | None:
    """What fitting a request into the model's context depends on (None: no context, baselines).

    The tokenizer (build or chat template) is part of it: another tokenizer may cut elsewhere.
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
    rel = task.get("templates")
    if rel is None:
        return None
    path = conf_dir / rel
    if not path.is_file():
        raise ConfigError(f"tasks.{task_name}.templates: {path} does not exist")
    return yaml.safe_load(path.read_text(encoding="utf-8"))


#: Files of a local model folder whose bytes decide its output (weights, config, tokenizer).
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".gguf", ".json", ".model", ".txt", ".jinja")


def _weights(name: str, model: dict[str, Any], hashes: FileHashCache) -> dict[str, str] | None:
    """sha256 of each file of a local model folder (``path``), by relative path; None for
    other models. A folder that is not there yet (a cluster path, say) hashes to ``{}``."""
    if not model.get("path") or model["backend"] not in ("transformers", "vllm"):
        return None
    root = Path(model["path"]).expanduser()
    if not root.is_dir():
        log.warning("models.%s.path %s is not a folder here: its weights are not hashed into "
                    "the identity", name, root)
        return {}
    return {str(p.relative_to(root)): hashes.sha256(p, f"models.{name} weights")
            for p in sorted(root.rglob("*"))
            if p.is_file() and p.suffix in WEIGHT_SUFFIXES and ".cache" not in p.parts}


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
    """``{"slice": n}`` for a cell on a slice of its task (grid.slices), else nothing: the
    other cells keep their identities."""
    limit = slices.limit_of(cfg, cell.model, cell.task)
    return {} if limit is None else {"slice": limit}


def _sliced_model(cfg: dict[str, Any], model: str, tasks: Sequence[str]) -> dict[str, Any]:
    """``{"sliced": True}`` for a model that runs a slice of any of a table's tasks."""
    return {"sliced": True} if any(slices.limit_of(cfg, model, t) for t in tasks) else {}


def _runs(cfg: dict[str, Any], model: str, task: str) -> bool:
    """A baseline model runs only the tasks of benchmarks that offer its baseline."""
    spec = cfg["models"][model]
    offered = get_benchmark(cfg["tasks"][task]["benchmark"]).baselines
    return spec["backend"] != "baseline" or spec["baseline"] in offered


def _check_baselines(cfg: dict[str, Any]) -> None:
    """Every baseline model names a baseline that a benchmark of the grid offers."""
    benchmarks = sorted({t["benchmark"] for t in cfg["tasks"].values()})
    known = sorted({b for bench in benchmarks for b in get_benchmark(bench).baselines})
    for name, model in cfg["models"].items():
        if model["backend"] == "baseline" and model["baseline"] not in known:
            raise ConfigError(
                f"models.{name}.baseline={model['baseline']!r} is offered by no benchmark of this "
                f"grid ({', '.join(benchmarks)}); baselines: {', '.join(known)}"
            )


def expand_cells(cfg: dict[str, Any], skipped: Sequence[str] = ()) -> list[Cell]:
    """Models x tasks x modes after ``grid.select``, without the ``skipped`` tasks."""
    select = cfg["grid"].get("select") or {}

    def chosen(group: str) -> list[str]:
        names = list(cfg[group])
        keep = select.get(group)
        return names if keep is None else [n for n in names if n in keep]

    _check_baselines(cfg)
    models, modes = chosen("models"), chosen("modes")
    return [
        Cell(model, task, mode)
        for task in chosen("tasks")
        if task not in skipped
        for mode in cfg["tasks"][task]["modes"]
        if mode in modes
        for model in models
        if _runs(cfg, model, task)
    ]


def unavailable_tasks(cfg: dict[str, Any], data_root: Path) -> dict[str, str]:
    """Selected tasks whose official source files are missing -> the benchmark's message.

    Each is logged once as a warning; the plan leaves them out and keeps the rest of the grid.
    """
    keep = (cfg["grid"].get("select") or {}).get("tasks")
    missing: dict[str, str] = {}
    for name, spec in cfg["tasks"].items():
        if keep is not None and name not in keep:
            continue
        try:
            get_benchmark(spec["benchmark"]).source_files(spec, data_root, name)
        except FileNotFoundError as err:
            missing[name] = str(err)
            log.warning("%s", err)
    return missing


def build_plan(
    conf_dir: Path,
    overrides: str | Sequence[str] | None = None,
    results: Path = Path("results"),
    data_root: Path = Path("data"),
) -> Plan:
    """Compose, validate and expand the grid; compute (not yet write) all identities.

    ``results`` and ``data_root`` are the roots: the plan's own folders are the grid's below
    them (:mod:`clineval.config.roots`).
    """
    from omegaconf import OmegaConf  # with Hydra, when composing

    given = parse_overrides(overrides)
    composed = compose_config(conf_dir, given)
    cfg: dict[str, Any] = OmegaConf.to_container(composed, resolve=True)  # type: ignore[assignment]
    validate(cfg, conf_dir, given)
    hashes = file_hash_memo(results)  # shared by the grids: kept at the root
    roots = grid_roots(cfg, results, data_root, hashes)
    results, data_root = roots.results, roots.data
    skipped = unavailable_tasks(cfg, data_root)
    cells = expand_cells(cfg, skipped)
    tables: dict[str, list[Cell]] = {}
    keep_tables = (cfg["grid"].get("select") or {}).get("tables")
    for name, spec in (cfg.get("tables") or {}).items():
        if keep_tables is not None and name not in keep_tables:
            continue
        wanted = spec.get("models")
        shown = [
            c
            for c in cells
            if c.task in table_tasks(spec)
            and c.mode in spec["modes"]
            and (wanted is None or c.model in wanted)
        ]
        if shown:
            tables[name] = shown
        elif all(t in skipped for t in table_tasks(spec)):
            log.warning("table %s is not built: none of its tasks can run", name)
        else:
            log.info("table %s is not built: the grid selects none of its cells", name)
    if keep_tables is not None:  # the selected tables' cells only
        shown_cells = {c for table in tables.values() for c in table}
        cells = [c for c in cells if c in shown_cells]
    plan = Plan(conf_dir, results, data_root, cfg, cells, tables, skipped=skipped,
                file_hashes=hashes, figures=_figures(cfg, tables))
    _compute_identities(plan)
    return plan


def _figures(cfg: dict[str, Any], tables: dict[str, list[Cell]]) -> dict[str, list[str]]:
    """The selected figures whose tables are all built -> those tables."""
    keep = (cfg["grid"].get("select") or {}).get("figures")
    figures = {}
    for name, spec in (cfg.get("figures") or {}).items():
        if keep is not None and name not in keep:
            continue
        missing = [t for t in spec["tables"] if t not in tables]
        if missing:
            log.info("figure %s is not drawn: table(s) %s are not built", name,
                     ", ".join(missing))
        else:
            figures[name] = list(spec["tables"])
    return figures


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
        ident = _with_sha({
            "kind": "scoring_input",
            "task": task,
            "role": role,
            "credentialed": plan.credentialed(task),
            "benchmark": spec["benchmark"],
            "scoring_version": get_benchmark(spec["benchmark"]).scoring_version,
            "settings": specs[role].settings,
            "inputs": named,
            **({"demo_data": data_sha} if spec["data"].get("source") == "demo" else {}),
        })
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


def file_hash_memo(results: Path) -> FileHashCache:
    """The memo of source and scoring-input hashes of every grid, kept in the results root."""
    return FileHashCache(results / "identity" / "file-hashes.json")


def _compute_identities(plan: Plan) -> None:
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
    prompt_kinds = {name: prompt_kind(name, cfg["models"][name])
                    for name in {c.model for c in plan.cells}}
    hashes.save()
    for cell in plan.cells:
        task, mode, model = (
            cfg["tasks"][cell.task],
            cfg["modes"][cell.mode],
            cfg["models"][cell.model],
        )
        bench = get_benchmark(task["benchmark"])
        requests = _with_sha(
            {
                "kind": "requests",
                "cell": cell.path,
                "credentialed": plan.credentialed(cell.task),
                "data": data_sha[cell.task],
                "benchmark": task["benchmark"],
                "task": {k: v for k, v in task.items() if k not in NOT_IN_REQUESTS},
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
                "baseline_settings": (task.get("scoring") or {}).get("baselines")
                if model["backend"] == "baseline"
                else None,
            }
        )
        scoring = _with_sha(
            {
                "kind": "scoring",
                "cell": cell.path,
                "credentialed": plan.credentialed(cell.task),
                "generation": generation["sha"],
                "benchmark": task["benchmark"],
                "scoring_version": bench.scoring_version,
                "task": {k: task.get(k) for k in ("version", "scoring")},
                "inputs": scoring_inputs[cell.task],
                # only with judges, so that other tasks keep their earlier identities
                **({"judges": judges[cell.task]} if judges[cell.task] else {}),
                # only where the benchmark's scoring reads the mode (e.g. which answer format
                # its prompt asked for), so that other benchmarks keep their identities
                **({"mode": mode} if getattr(bench, "scoring_reads_mode", False) else {}),
                **_slice(cfg, cell),
            }
        )
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
        ids[f"tables/{name}"] = _with_sha(content)
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
                       for m in used},
            "tasks": {t: cfg["tasks"][t].get("display_name") for t in tasks},
            "modes": {m: cfg["modes"][m]["description"] for m in modes},
            "drawing": {"version": FIGURES_VERSION, "matplotlib": version("matplotlib")},
        }
        ids[f"figures/{name}"] = _with_sha(content)
    if plan.tables:
        ids["report/index"] = _with_sha(_report_identity(plan))


def _report_identity(plan: Plan) -> dict[str, Any]:
    """What ``results/report/index.html`` shows: the grid, each table's section, title, caption
    and identity (leaderboard first), the figures' specs and the smoke models."""
    cfg, ids = plan.cfg, plan.identities
    tables = [
        {"table": name, "section": plan.table_section(name),
         "title": cfg["tables"][name]["title"], "caption": cfg["tables"][name]["caption"],
         "identity": ids[f"tables/{name}"]["sha"]}
        for name in plan.report_tables()
    ]
    models = {m for cells in plan.tables.values() for m in (c.model for c in cells)}
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
    }
