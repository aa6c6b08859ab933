"""The plan's cells and the layout of its files: where each artifact, identity file and
provenance record of a grid goes, and which cells each job serves."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from clineval.benchmarks import get_benchmark
from clineval.benchmarks.base import DerivedInput, derived_scoring_inputs, source_tiers
from clineval.config.presets import scoring_judges
from clineval.config.schema.tasks import ACCESS, RESTRICTED, SYNTHETIC
from clineval.config.validate import table_tasks
from clineval.inference.registry import BackendSpec, backend_of
from clineval.io import write_text
from clineval.provenance.filehash import FileHashCache
from clineval.provenance.hashing import canonical_json
from clineval.provenance.record import prov_path
from clineval.tables.leaderboard import LAYOUT as LEADERBOARD

T = TypeVar("T")


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

    def build_dir(self, model: str) -> Path:
        """The folder the workflow builds a model (or judge) with ``build`` settings into."""
        return self.results / "models" / model

    def backend(self, model: str) -> BackendSpec:
        """The declared backend of the model (its capabilities)."""
        return backend_of(self.cfg["models"][model])

    def model_dir(self, model: str) -> Path | None:
        spec = self.cfg["models"][model]
        if spec.get("path"):
            return Path(spec["path"])
        if spec.get("build"):
            return self.build_dir(model)
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

    def derived_input_files(self, benchmark: str) -> list[tuple[str, str, Path]]:
        """(task, role, path) of each file the benchmark derives from its scoring inputs: what
        its one ``scoring-inputs`` job builds."""
        return [(task, role, path) for task in self.benchmark_tasks(benchmark)
                for role, path in sorted(self.derived_inputs(task).items())]

    def judges(self, task: str) -> dict[str, dict[str, Any]]:
        """The models the task's scoring runs (judges, named by preset), by name."""
        return scoring_judges(self.cfg["tasks"][task].get("scoring"))

    def judge_dir(self, name: str, spec: dict[str, Any]) -> Path:
        """A judge's weights: its ``path``, else the folder the workflow builds it into."""
        return Path(spec["path"]) if spec.get("path") else self.build_dir(name)

    def judge_files(self, task: str) -> list[Path]:
        """``config.json`` of each judge the workflow builds: inputs of the scoring job."""
        return [self.judge_dir(name, spec) / "config.json"
                for name, spec in sorted(self.judges(task).items()) if not spec.get("path")]

    def shards(self, model: str) -> int:
        """Data-parallel generation jobs for the model (``resources.shards``, default 1)."""
        return int((self.cfg["models"][model].get("resources") or {}).get("shards", 1))

    def generation_outputs(self, model: str, k: int) -> tuple[list[Path], list[Path], Path]:
        """What generation job ``k`` (1-based) of the model writes: each cell's generations and
        metadata, in :meth:`cells_of` order, and the job's run summary. A model in one job
        writes its cells' own artifacts; each of ``N`` shards writes parts of them below
        ``_shards/<k>-of-<N>/``, which the cells' merge jobs join."""
        count = self.shards(model)
        cells = self.cells_of(model)
        if count == 1:
            return ([self.artifact("generations", c) for c in cells],
                    [self.artifact("generations", c, ".meta.json") for c in cells],
                    self.results / "generations" / model / "run-summary.json")
        shard = self.results / "generations" / model / "_shards" / f"{k}-of-{count}"
        return ([shard / c.task / f"{c.mode}.jsonl" for c in cells],
                [shard / c.task / f"{c.mode}.meta.json" for c in cells],
                shard / "run-summary.json")

    def table_outputs(self, table: str) -> list[Path]:
        """The table's files (its statistics and the cells behind its values too) beside its
        headline numbers."""
        return [self.results / "tables" / f"{table}.{ext}"
                for ext in ("csv", "md", "tex", "stats.json", "stats.md", "cells.json")]

    def figure_outputs(self, figure: str) -> list[Path]:
        """The figure's PNG and SVG."""
        return [self.results / "figures" / f"{figure}.{ext}" for ext in ("png", "svg")]

    def figure_inputs(self, figure: str) -> list[Path]:
        """The table files a figure reads: each table's CSV and statistics."""
        return [self.results / "tables" / f"{table}.{ext}"
                for table in self.figures[figure] for ext in ("csv", "stats.json")]

    def export_groups(self) -> list[tuple[str, str]]:
        """The (model, task) pairs of the grid, in plan order: one export each."""
        return list(dict.fromkeys((c.model, c.task) for c in self.cells))

    def export_cells(self, model: str, task: str) -> list[Cell]:
        """The model's cells of the task (one per mode), in plan order."""
        return [c for c in self.cells_of(model) if c.task == task]

    def export_outputs(self, model: str, task: str) -> list[Path]:
        """The model's Every Eval Ever export of the task: the aggregate document and the
        instance records (docs/export.md)."""
        return [self.results / "export" / "eee" / model / f"{task}.{ext}"
                for ext in ("json", "jsonl")]

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

    def report_links(self) -> dict[str, Path]:
        """What the HTML report links each table's values with: its ``cells.json``."""
        return {name: self.table_outputs(name)[5] for name in self.tables}

    def report_file(self) -> Path:
        """The self-contained HTML report of the grid's tables and figures."""
        return self.results / "report" / "index.html"

    def example_cells(self) -> list[Cell]:
        """The cells of the report's tables, in plan order: one explorer page each."""
        shown = {c for cells in self.tables.values() for c in cells}
        return [c for c in self.cells if c in shown]

    def example_page(self, cell: Cell) -> Path:
        """The explorer's page of a cell's examples (docs/report.md, Examples, one by one)."""
        return self.results / "report" / "examples" / f"{cell.path}.html"

    def example_pairs(self) -> list[tuple[Cell, Cell]]:
        """The (a, b) cells of each model pair a table compares (``comparisons``) on a task
        and mode both ran, once each: one explorer page each."""
        found: list[tuple[Cell, Cell]] = []
        for name, cells in self.tables.items():
            spec = self.identities[f"tables/{name}"]["identity"]["statistics"]["comparisons"]
            shown = set(cells)
            for a, b in (spec or {}).get("pairs", []):
                for task, mode in dict.fromkeys((c.task, c.mode) for c in cells):
                    pair = (Cell(a, task, mode), Cell(b, task, mode))
                    if pair[0] in shown and pair[1] in shown and pair not in found:
                        found.append(pair)
        return found

    def pair_page(self, a: Cell, b: Cell) -> Path:
        """The explorer's page of the examples where two models' outcomes differ."""
        return self.results / "report" / "pairs" / a.model / b.model / b.task / f"{b.mode}.html"

    def example_outputs(self) -> list[Path]:
        """Every page the explorer's job writes: each cell's, each pair's and their index."""
        return [*(self.example_page(c) for c in self.example_cells()),
                *(self.pair_page(a, b) for a, b in self.example_pairs()),
                self.results / "report" / "examples" / "index.html"]

    def record_file(self, kind: str, key: str) -> Path:
        """The provenance record of an artifact (``kind``: data, model, requests, generation,
        scores, table, figure, report, export; ``key``: a task, model, cell path, table or
        figure name, ``<model>/<task>`` of an export; the report's is ignored)."""
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
            case "examples":
                return self.results / "report" / "examples" / "provenance.json"
            case "export":
                return prov_path(self.results / "export" / "eee" / f"{key}.json")
            case "figure":
                return prov_path(self.results / "figures" / f"{key}.png")
        raise ValueError(f"no provenance record for kind {kind!r}")

    def manifest_file(self, step: str, *parts: str) -> Path:
        """The manifest of the ``step`` job named by ``parts`` (a task, a model and benchmark,
        ...): what the rule hands its step (:mod:`clineval.workflow.plan.manifests`)."""
        key = "/".join(parts)
        return self._memo(("manifest", step, key),
                          lambda: self.results / "jobs" / step / f"{key}.json")

    def source_tiers(self, task: str) -> dict[str, str]:
        """The least data-access tier of each official file the task reads, by role, as its
        benchmark declares it (:func:`clineval.benchmarks.base.source_tiers`); none for the
        demo's files."""
        spec = self.cfg["tasks"][task]
        if spec["data"].get("source") == "demo":
            return {}
        return self._memo(("source_tiers", task), lambda: source_tiers(
            get_benchmark(spec["benchmark"]), spec, self.sources(task)))

    def tiers(self, task: str) -> list[str]:
        """Every data-access tier the task's data has, least restricted first: ``synthetic``
        for the demo's files; else its files' own (:meth:`source_tiers`, ``public`` where it
        reads none restricted) and the one its ``access`` adds."""
        spec = self.cfg["tasks"][task]
        if spec["data"].get("source") == "demo":
            return [SYNTHETIC]
        found = {*self.source_tiers(task).values(), spec.get("access") or "public"}
        restricted = [t for t in ACCESS if t in found and t in RESTRICTED]
        return restricted or ["public"]

    def tier(self, task: str) -> str:
        """The data-access tier of the files the task reads: ``synthetic`` for the demo's,
        else the most restricted of :meth:`tiers` (the files' own, or the task's ``access``
        where it adds one)."""
        return self.tiers(task)[-1]

    def credentialed(self, task: str) -> bool:
        """Artifacts of the task derive from files that may not be shared: credentialed,
        unreleased or private ones, not the synthetic demo (the ``credentialed`` flag of its
        identities and records; DVC keeps them off remotes unless ``dvc.push_credentialed``)."""
        return self.tier(task) in RESTRICTED

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


def file_hash_memo(results: Path) -> FileHashCache:
    """The memo of source and scoring-input hashes of every grid, kept in the results root."""
    return FileHashCache(results / "identity" / "file-hashes.json")
