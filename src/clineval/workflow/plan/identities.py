"""The identity of each artifact of a plan: what the steps' declarations share.

Each identity file holds everything that can change one artifact (settings, upstream hashes)
and is named by the hash of that content (``<key>-<sha16>.json``), so it is written once and
never rewritten. Rules take it as an input: a changed identity is a new input file, and
Snakemake re-runs exactly the artifacts whose identity changed. Going back to earlier settings
points at the earlier file again, so trying an override in a dry run (``-n``) never makes
finished artifacts look stale. Steps read their settings from the identity file.

Each step computes its own artifacts' identities (its declaration's ``identities``,
:mod:`clineval.workflow.plan.jobs`), in build order
(:func:`clineval.workflow.plan.build.compute_identities`), with the :class:`Facts` they share.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from clineval.config import budget, slices
from clineval.config.locate import config_file
from clineval.config.prompt_kind import prompt_kind
from clineval.config.schema.grid import Eee
from clineval.config.schema.tasks import RESTRICTED
from clineval.config.yaml_files import read_yaml
from clineval.errors import ConfigError
from clineval.inference import gguf_model
from clineval.inference.recorded_backend import file_of, pin_of
from clineval.inference.registry import backend_of
from clineval.provenance.filehash import FileHashCache
from clineval.provenance.hashing import sha256_obj
from clineval.provenance.location import portable
from clineval.workflow.plan import code_changes
from clineval.workflow.plan.access import allowed
from clineval.workflow.plan.layout import Cell, Plan

log = logging.getLogger("clineval")
T = TypeVar("T")
#: Task keys that do not change requests: scoring settings, and the cluster resources of the
#: task's scoring jobs (``resources``), which change no file at all.
NOT_IN_REQUESTS = ("scoring", "resources")
MODEL_BUILDER_VERSION = "1"


class Facts:
    """What several steps' identities read, each made once per plan: the hashes of files, a
    model's chat template, weights, recorded file and prompt kind, a task's templates and
    named scoring inputs, a cell's model (its budget set) and the data it sends."""

    def __init__(self, plan: Plan) -> None:
        assert plan.file_hashes is not None
        self.plan, self.hashes = plan, plan.file_hashes
        self._made: dict[tuple[str, ...], Any] = {}

    def _once(self, key: tuple[str, ...], make: Callable[[], T]) -> T:
        if key not in self._made:
            self._made[key] = make()
        return self._made[key]

    def add(self, key: str, content: dict[str, Any], code: bool = False) -> dict[str, Any]:
        """Set the identity ``key`` of ``content`` (``code``: with the fingerprint of its code
        under ``grid.code_changes: rerun``) in the plan; returns it."""
        if code:
            content = code_changes.joined(content, self.plan.cfg)
        self.plan.identities[key] = with_sha(content)
        return self.plan.identities[key]

    def sha(self, key: str) -> str:
        return str(self.plan.identities[key]["sha"])

    def build_sha(self, model: str) -> str | None:
        """The model's build identity, if the workflow builds it."""
        return self.plan.identities.get(f"models/{model}", {}).get("sha")

    def cell_model(self, cell: Cell) -> dict[str, Any]:
        """The cell's model as its task sees it, with the cell's ``max_tokens``."""
        cfg = self.plan.cfg
        spec = cfg["models"][cell.model]
        return budget.with_max_tokens(_task_model(spec, cell.task), budget.max_tokens(
            cell.model, spec, cell.task, cfg["tasks"][cell.task], cfg["modes"][cell.mode]))

    def request_settings(self, task: str) -> dict[str, Any]:
        return _request_settings(self.plan.cfg["tasks"][task])

    def templates(self, task: str) -> dict[str, Any] | None:
        return self._once(("templates", task), lambda: _load_templates(
            self.plan.conf_dir, task, self.plan.cfg["tasks"][task]))

    def chat_template(self, model: str, spec: Mapping[str, Any] | None = None) -> str | None:
        """The hash of a local model's chat template (a judge's: its ``spec``), if any."""
        path = (spec or self.plan.cfg["models"][model]).get("path")
        return self._once(("chat", str(path)), lambda: _chat_template_sha(
            Path(path) if path else None))

    def prompt_kind(self, model: str) -> str:
        return self._once(("kind", model), lambda: prompt_kind(model,
                                                               self.plan.cfg["models"][model]))

    def weights(self, model: str) -> dict[str, str] | None:
        return self._once(("weights", model), lambda: _weights(
            model, self.plan.cfg["models"][model], self.hashes))

    def recorded(self, model: str, task: str) -> dict[str, str] | None:
        return self._once(("recorded", model, task), lambda: _recorded(
            model, self.plan.cfg["models"][model], task, self.hashes))

    def sent(self, cell: Cell) -> dict[str, Any] | None:
        """What the cell sends to a remote model or judge as its config allows
        (:func:`clineval.workflow.plan.access.allowed`)."""
        return self._once(("sent", cell.path), lambda: allowed(self.plan, cell))

    def slice(self, cell: Cell) -> dict[str, Any]:
        """The slice keys of a cell on a slice of its task (grid.slices; ``{"slice": n}`` for a
        limit alone), else nothing: the other cells keep their identities."""
        return slices.identity(self.plan.cfg, cell.model, cell.task)

    def sliced(self, model: str, tasks: Sequence[str]) -> dict[str, Any]:
        """``{"sliced": True}`` for a model that runs a slice of any of ``tasks``."""
        return ({"sliced": True} if any(slices.is_sliced(self.plan.cfg, model, t)
                                        for t in tasks) else {})

    def shown_recorded(self, model: str, tasks: Sequence[str]) -> dict[str, Any]:
        """A table's or figure's entry for a recorded model over the ``tasks`` of its cells it
        shows (:func:`_shown_recorded`); nothing for other models."""
        return _shown_recorded([self.recorded(model, t) for t in tasks])

    def named_inputs(self, task: str) -> dict[str, Any]:
        return self._once(("named", task), lambda: _named_input_hashes(self.plan, task,
                                                                        self.hashes))

    def build(self, model: str, build: dict[str, Any]) -> dict[str, Any]:
        return _build_identity(model, build, self.hashes)


def with_sha(content: dict[str, Any]) -> dict[str, Any]:
    return {"sha": sha256_obj(content), "identity": content}


def _request_settings(task: dict[str, Any]) -> dict[str, Any]:
    """The task's settings in its requests identity: all but :data:`NOT_IN_REQUESTS`, with
    ``access`` as whether its official files may be shared: ``public``, else ``credentialed``
    (the two values it had before the other tiers). The tier changes no request: declaring one
    (MedDisK's ``unreleased``, a user's ``private``) moves no artifact."""
    kept = {k: v for k, v in task.items() if k not in NOT_IN_REQUESTS}
    if kept.get("access") in RESTRICTED:
        kept["access"] = "credentialed"
    return kept


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


def _shown_recorded(entries: Sequence[dict[str, str] | None]) -> dict[str, Any]:
    """A table's or figure's entry for a recorded model, over the tasks it shows (``entries``,
    its file of each): ``recorded``, its file (``{file, sha256}``), or a list of them where the
    tasks read several; nothing for other models."""
    shown: list[dict[str, str]] = []
    for entry in entries:
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
    return with_sha(content)


def export_settings(cfg: dict[str, Any]) -> dict[str, Any]:
    """``export.eee`` of the config, over the defaults of its schema (``Eee``)."""
    given = (cfg.get("export") or {}).get("eee") or {}
    return {f.name: given.get(f.name, f.default) for f in dataclasses.fields(Eee)}
