"""A model of the grid as a scoring judge: its backend, run in the scoring process.

A task names the judge in its scoring settings as a model config (``{preset: <conf/model
file>}``, expanded by the config, config/presets.py); the workflow puts where it loads from in
the scoring identity and the task's ``judges`` (name -> ``dir``). ``Judge.ask`` sends chat
prompts through the inference backends (clineval.inference.factory) with the judge's sampling,
and returns the raw outputs; engines load once per process and judge.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clineval.errors import ConfigError, a_or_an
from clineval.inference.registry import backend_of
from clineval.io import Record
from clineval.provenance.hashing import sha256_obj
from clineval.provenance.location import located

_ENGINES: dict[str, Any] = {}


@dataclass
class Judge:
    """One judge model: its name, config (``preset`` removed) and local folder."""

    name: str
    model: Record
    model_dir: Path | None

    def _backend(self) -> Any:
        from clineval.inference.factory import make_backend

        key = sha256_obj([self.model, str(self.model_dir)])
        if key not in _ENGINES:
            if self.model_dir is not None and not (self.model_dir / "config.json").is_file():
                raise ConfigError(f"the judge {self.name!r} has no model in {self.model_dir} "
                                  "(build it first: snakemake builds it for a workflow run)")
            _ENGINES[key] = make_backend(self.model, self.model_dir)
        return _ENGINES[key]

    def ask(self, prompts: list[list[dict[str, str]]]) -> list[str]:
        """The judge's raw output for each chat prompt, in order."""
        if not prompts:
            return []
        backend = self._backend()
        batch = int((self.model.get("engine") or {}).get("batch_size", len(prompts)))
        outputs: list[str] = []
        for start in range(0, len(prompts), max(batch, 1)):
            chunk = prompts[start:start + batch]
            requests = [{"id": f"judge-{start + i}", "messages": m} for i, m in enumerate(chunk)]
            outputs += [g.output for g in backend.generate(requests)]
        return outputs

    def describe(self) -> Record:
        """What a score summary records of the judge."""
        return {"name": self.name, "id": self.model.get("id"),
                "revision": self.model.get("revision"), "backend": self.model.get("backend"),
                "sampling": self.model.get("sampling")}


def judge(task: Record, spec: Record) -> Judge:
    """The judge an expanded model config ``spec`` (with its ``preset`` name) describes; its
    folder from the task's ``judges`` (the workflow's), else its ``path``, else
    ``results/models/<name>`` (``clineval score`` run from the project root)."""
    name = spec.get("preset")
    if not isinstance(name, str) or "backend" not in spec:
        raise ConfigError("a judge model is named as a model config: {preset: <conf/model file>}"
                          f", not {spec!r}")
    model = {k: v for k, v in spec.items() if k != "preset"}
    backend = backend_of(model)
    if backend.baseline or backend.recorded:
        raise ConfigError(f"the judge {name!r} is {a_or_an(model['backend'])} model: a judge "
                          "must be a model that generates")
    given = (task.get("judges") or {}).get(name) or {}
    if not backend.local_weights:
        folder = None
    elif given.get("dir"):
        folder = located(given["dir"])
    else:
        folder = Path(model["path"]) if model.get("path") else Path("results/models") / name
    return Judge(name, model, folder)
