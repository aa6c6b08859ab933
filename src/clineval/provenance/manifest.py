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


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def git_state() -> dict[str, Any]:
    """Commit and dirty flag of the checkout clineval runs from (None outside a checkout)."""
    source = Path(__file__).resolve().parents[3]

    def run(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", "-C", str(source), *args], capture_output=True,
                                  text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    commit = run("rev-parse", "HEAD")
    status = run("status", "--porcelain", "--untracked-files=no") if commit else None
    return {"commit": commit, "dirty": None if status is None else bool(status)}


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _gpu_driver() -> str | None:
    try:
        done = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = done.stdout.strip().splitlines()
    return lines[0].strip() if done.returncode == 0 and lines else None


def hardware() -> dict[str, Any]:
    """CPU model and cores; GPU models, CUDA and driver versions when torch sees a GPU."""
    info: dict[str, Any] = {
        "machine": platform.machine(),
        "cpu": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "gpus": [],
    }
    try:
        import torch

        if torch.cuda.is_available():
            info["gpus"] = [
                torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())
            ]
            info["cuda"] = torch.version.cuda
            info["driver"] = _gpu_driver()
    except ImportError:
        pass
    return info


def environment() -> dict[str, Any]:
    return {
        "python": sys.version.split()[0],
        "packages": {name: _version(name) for name in PACKAGES},
        "git": git_state(),
        "hardware": hardware(),
    }
