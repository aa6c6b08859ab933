"""The plan's cells and the layout of its files: where each artifact, identity file and
provenance record of a grid goes, and which cells each job serves."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from clineval.benchmarks import get_benchmark
from clineval.benchmarks.base import derived_scoring_inputs, source_tiers
from clineval.config.presets import scoring_judges
from clineval.config.schema.tasks import ACCESS, RESTRICTED, SYNTHETIC
from clineval.inference.registry import BackendSpec, backend_of
from clineval.io import write_text
from clineval.provenance.filehash import FileHashCache
from clineval.provenance.hashing import canonical_json
from clineval.provenance.record import prov_path

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
    #: The generation cache, shared by every grid: ``cache/`` of the results root.
    cache: Path | None = None
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

    def cells_of(self, model: str) -> list[Cell]:
        """The model's cells, in plan order: what one generation job serves."""
        return self.cells_of_group(model, None)

    def benchmark(self, task: str) -> str:
        return str(self.cfg["tasks"][task]["benchmark"])

    @cached_property
    def benchmarks(self) -> list[str]:
        """The benchmarks of the grid's cells, sorted."""
        return sorted({self.benchmark(c.task) for c in self.cells})

    def groups(self) -> list[tuple[str, str]]:
        """The (model, benchmark) pairs of the grid: one requests and one scoring job each."""
        grouped = self._memo(("grouped",), lambda: _group(self))
        return sorted((m, b) for m, b in grouped if b is not None)

    def cells_of_group(self, model: str, benchmark: str | None) -> list[Cell]:
        """The cells one requests or scoring job serves (``benchmark`` None: every cell of the
        model, what its generation job serves), in plan order."""
        return list(self._memo(("grouped",), lambda: _group(self)).get((model, benchmark), ()))

    def benchmark_cells(self, benchmark: str, model: str) -> list[Cell]:
        """The benchmark's cells of ``model`` (a name, or ``{model}``): every model that runs
        the benchmark runs all of its (task, mode) pairs (grid.select filters models, tasks and
        modes independently), so one rule per benchmark with a ``{model}`` wildcard names every
        job's files, in the order of :meth:`cells_of_group`."""
        pairs = dict.fromkeys((c.task, c.mode) for c in self.cells
                              if self.benchmark(c.task) == benchmark)
        return [Cell(model, task, mode) for task, mode in pairs]

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
            for role, derived in derived_scoring_inputs(
                get_benchmark(self.cfg["tasks"][task]["benchmark"]),
                self.cfg["tasks"][task]).items()})

    def judges(self, task: str) -> dict[str, dict[str, Any]]:
        """The models the task's scoring runs (judges, named by preset), by name."""
        return scoring_judges(self.cfg["tasks"][task].get("scoring"))

    def export_groups(self) -> list[tuple[str, str]]:
        """The (model, task) pairs of the grid, in plan order: one export each."""
        return list(dict.fromkeys((c.model, c.task) for c in self.cells))

    def export_cells(self, model: str, task: str) -> list[Cell]:
        """The model's cells of the task (one per mode), in plan order."""
        return [c for c in self.cells_of(model) if c.task == task]

    def record_file(self, kind: str, key: str) -> Path:
        """The provenance record of an artifact (``kind``: data, model, requests, generation,
        scores, table, figure, report, export; ``key``: a task, model, cell path, table or
        figure name, ``<model>/<task>`` of an export; the report's is ignored)."""
        return self._memo(("record", kind, key), lambda: _record(self, kind, key))


    def manifest_file(self, step: str, *parts: str) -> Path:
        """The manifest of the ``step`` job named by ``parts`` (a task, a model and benchmark,
        ...): what the rule hands its step (:mod:`clineval.workflow.plan.manifests`)."""
        key = "/".join(parts)
        return self._memo(("manifest", step, key),
                          lambda: self.results / "jobs" / step / f"{key}.json")

    def tiers(self, task: str) -> list[str]:
        """Every data-access tier the task's data has, least restricted first: ``synthetic``
        for the demo's files; else its files' own (as its benchmark declares them:
        :func:`clineval.benchmarks.base.source_tiers`; ``public`` where it reads none
        restricted) and the one its ``access`` adds."""
        spec = self.cfg["tasks"][task]
        if spec["data"].get("source") == "demo":
            return [SYNTHETIC]
        def make() -> list[str]:
            files = source_tiers(get_benchmark(spec["benchmark"]), spec, self.sources(task))
            found = {*files.values(), spec.get("access") or "public"}
            return [t for t in ACCESS if t in found and t in RESTRICTED] or ["public"]

        return self._memo(("tiers", task), make)

    def credentialed(self, task: str) -> bool:
        """Artifacts of the task derive from files that may not be shared: credentialed,
        unreleased or private ones, not the synthetic demo (the ``credentialed`` flag of its
        identities and records; DVC keeps them off remotes unless ``dvc.push_credentialed``)."""
        return self.tiers(task)[-1] in RESTRICTED

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


def _group(plan: Plan) -> dict[tuple[str, str | None], list[Cell]]:
    """The plan's cells by (model, benchmark) and by (model, None), in plan order."""
    found: dict[tuple[str, str | None], list[Cell]] = {}
    for cell in plan.cells:
        for key in ((cell.model, plan.benchmark(cell.task)), (cell.model, None)):
            found.setdefault(key, []).append(cell)
    return found


def _record(plan: Plan, kind: str, key: str) -> Path:
    match kind:
        case "data":
            return plan.data_root / "derived" / key / "provenance.json"
        case "scoring_input":
            task, _, role = key.partition("/")
            return prov_path(plan.derived_inputs(task)[role])
        case "model":
            return plan.results / "models" / key / "provenance.json"
        case "requests" | "scores":
            return prov_path(plan.results / kind / f"{key}.jsonl")
        case "generation":
            return plan.results / "generations" / f"{key}.meta.json"
        case "table":
            return prov_path(plan.results / "tables" / f"{key}.csv")
        case "report":
            return plan.results / "report" / "provenance.json"
        case "examples":
            return plan.results / "report" / "examples" / "provenance.json"
        case "export":
            return prov_path(plan.results / "export" / "eee" / f"{key}.json")
        case "figure":
            return prov_path(plan.results / "figures" / f"{key}.png")
    raise ValueError(f"no provenance record for kind {kind!r}")
