"""What a model's generation jobs ask the cluster for: a model config's `resources:` block as
Snakemake resources (read by the SLURM executor plugin), and the conda env of its backend (its
``BACKEND.conda_env``).

`resources:` keys (all optional; not part of any identity, so changing them re-runs nothing):

    gpus          GPUs per generation job (0: a CPU job); vLLM runs tensor parallel over them
    gpu_model     GPU type for SLURM's ``--gpus=<type>:<n>`` (null: any GPU)
    cpus_per_gpu  CPU cores per GPU (GPU jobs)
    cpus          CPU cores (jobs without GPUs)
    mem_mb        host memory of the job in MB
    runtime       wall-clock limit in minutes
    partition     SLURM partition (null: the profile's default-resources, else the cluster's)
    shards        data-parallel generation jobs for the model, each with the request above

rules/common.smk parses every model's block when the workflow is parsed (a bad block stops the
run before any job) and hands ``snakemake()`` to the model's generation rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from clineval.config.schema.models import Resources
from clineval.errors import ConfigError, a_or_an
from clineval.inference.registry import backend_of


@dataclass(frozen=True)
class ModelResources(Resources):
    """One model's request per generation job (the keys: :class:`Resources`, the config's
    schema); the defaults describe a small CPU job."""

    @classmethod
    def from_config(
        cls, model: str, block: Mapping[str, Any] | None, where: str | None = None,
        default: ModelResources | None = None,
    ) -> ModelResources:
        """Parse ``models.<model>.resources`` (or the block at ``where``); errors name the
        model and the field."""
        where = where or f"models.{model}.resources"
        base = default or cls()
        if block is None:
            return base
        if not isinstance(block, Mapping):
            raise ConfigError(f"{where} must be a mapping, got {block!r}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(block) - known)
        if unknown:
            raise ConfigError(
                f"unknown key(s) {', '.join(map(repr, unknown))} in {where}; "
                f"allowed: {', '.join(sorted(known))}"
            )
        values = {**asdict(base), **block}
        minimum = {f.name: f.metadata["ge"] for f in fields(cls) if "ge" in f.metadata}
        for key, low in minimum.items():
            value = values[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ConfigError(f"{where}.{key} must be an integer >= {low}, got {value!r}")
        for key in ("gpu_model", "partition"):
            value = values[key]
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise ConfigError(
                    f"{where}.{key} must be a non-empty string or null, got {value!r}"
                )
        if values["gpu_model"] is not None and values["gpus"] == 0:
            raise ConfigError(f"{where}.gpu_model is set but gpus is 0")
        return cls(**values)

    def threads(self) -> int:
        """Threads of a CPU generation job (its ``cpus``; Snakemake gives the job that many as
        ``OMP_NUM_THREADS``, which torch follows); a GPU job keeps Snakemake's default of 1."""
        return 1 if self.gpus > 0 else self.cpus

    def snakemake(self) -> dict[str, int | str]:
        """The resources of one generation job under the SLURM plugin's names. Unset ones are
        left out: a GPU job gets ``cpus_per_gpu`` and no ``cpus_per_task``, a CPU job the
        reverse; ``slurm_partition`` only when the model names one (else defaults apply)."""
        gpu_job = self.gpus > 0
        resources: dict[str, int | str | None] = {
            "gpu": self.gpus,
            "gpu_model": self.gpu_model,
            "cpus_per_gpu": self.cpus_per_gpu if gpu_job else None,
            "cpus_per_task": None if gpu_job else self.cpus,
            "mem_mb": self.mem_mb,
            "runtime": self.runtime,
            "slurm_partition": self.partition,
        }
        return {key: value for key, value in resources.items() if value is not None}


def conda_env(model: Mapping[str, Any]) -> str:
    """The conda env file (in envs/) of the model's generation jobs: its backend's."""
    return backend_of(model).conda_env


def _check_gpus(name: str, spec: Mapping[str, Any], res: ModelResources) -> None:
    """A backend whose engine fixes its GPU count (vLLM: one per tensor-parallel shard) needs
    a job that holds exactly that many; its engine on the CPU (``engine.device: cpu``, vLLM's
    CPU build) holds none."""
    rule = backend_of(spec).gpus_per_job
    if rule is None:
        return
    key, why = rule
    engine = spec.get("engine") or {}
    if engine.get("device") == "cpu":
        key, value, wanted, why = "device", "cpu", 0, "no GPU: it runs on the CPU"
    else:
        value = wanted = engine.get(key) or 1
    if res.gpus != wanted:
        raise ConfigError(
            f"models.{name}.resources.gpus={res.gpus} but engine.{key}={value}: "
            f"{a_or_an(spec['backend'])} model needs {why}"
        )


#: A scoring job's request unless its tasks ask for more (``tasks.<task>.resources``).
SCORING_DEFAULT = ModelResources(cpus=1, mem_mb=4000, runtime=60)


def scoring_resources(tasks: Mapping[str, Mapping[str, Any]]) -> ModelResources:
    """The request of one benchmark's scoring jobs: the largest of its ``tasks``' blocks
    (``tasks.<task>.resources``, the keys of a model's block less ``shards``); a GPU for an
    embedding or judge scorer when a task asks for one."""
    parsed = []
    for name, spec in sorted(tasks.items()):
        where = f"tasks.{name}.resources"
        res = ModelResources.from_config(name, spec.get("resources"), where, SCORING_DEFAULT)
        if res.shards != 1:
            raise ConfigError(f"{where}.shards: scoring jobs are not sharded")
        parsed.append(res)
    if not parsed:
        return SCORING_DEFAULT
    numbers = ("gpus", "cpus_per_gpu", "cpus", "mem_mb", "runtime")
    largest = {key: max(getattr(r, key) for r in parsed) for key in numbers}
    names = {key: sorted({getattr(r, key) for r in parsed} - {None})
             for key in ("gpu_model", "partition")}
    for key, found in names.items():
        if len(found) > 1:
            raise ConfigError(f"the tasks of one benchmark ask for different {key}s: {found}")
    return ModelResources(**largest, **{k: (v[0] if v else None) for k, v in names.items()})


def model_resources(models: Mapping[str, Mapping[str, Any]]) -> dict[str, ModelResources]:
    """Every model's parsed `resources:` block (raises ConfigError on the first bad one)."""
    parsed = {}
    for name, spec in models.items():
        parsed[name] = ModelResources.from_config(name, spec.get("resources"))
        _check_gpus(name, spec, parsed[name])
    return parsed
