"""UMLS-entity F1 through scispaCy's UMLS linker, or an explicit "unavailable" with its reason.

CLUE links the entities of prediction and reference with ``en_core_sci_sm`` plus scispaCy's UMLS
linker, keeps each entity's best concept (its canonical name) and scores the two sets with F1.
Nothing is downloaded here: the spaCy model must be installed, and the linker's files must lie in
``linker_dir`` (nmslib_index.bin, tfidf_vectorizer.joblib, tfidf_vectors_sparse.npz,
concept_aliases.json, umls_semantic_type_tree.tsv, plus the knowledge base JSONL named by
``kb_path``) or in scispaCy's download
cache (``$SCISPACY_CACHE``, default ``~/.scispacy``) from an earlier online run.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from clineval.metrics.classification import PRF, set_prf

Extractor = Callable[[str], frozenset[str]]
_LINKER_FILES = {
    "ann_index": "nmslib_index.bin",
    "tfidf_vectorizer": "tfidf_vectorizer.joblib",
    "tfidf_vectors": "tfidf_vectors_sparse.npz",
    "concept_aliases_list": "concept_aliases.json",
}
_TYPES_FILE = "umls_semantic_type_tree.tsv"


@dataclass(frozen=True)
class UmlsSettings:
    spacy_model: str = "en_core_sci_sm"
    linker_dir: str | None = None
    kb_path: str | None = None

    @classmethod
    def from_dict(cls, settings: dict[str, Any] | None) -> UmlsSettings:
        settings = dict(settings or {})
        unknown = sorted(set(settings) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError(
                f"unknown UMLS setting(s) {unknown}; known: " + ", ".join(cls.__dataclass_fields__)
            )
        return cls(**settings)


@dataclass(frozen=True)
class UmlsStatus:
    """Whether UMLS F1 can be computed here, and why not."""

    available: bool
    reason: str
    spacy_model: str

    def as_dict(self) -> dict[str, Any]:
        return {"available": self.available, "reason": self.reason, "spacy_model": self.spacy_model}


def configured_files(settings: dict[str, Any] | None) -> dict[str, Path]:
    """The linker files a scoring job reads when ``linker_dir`` (and ``kb_path``) name them,
    by role ``umls:<name>``; none when scispaCy's own cache is used."""
    settings = settings or {}
    if not settings.get("linker_dir"):
        return {}
    root = Path(settings["linker_dir"])
    files = {f"umls:{k}": root / v for k, v in _LINKER_FILES.items()}
    files["umls:types"] = root / _TYPES_FILE
    if settings.get("kb_path"):
        files["umls:kb"] = Path(settings["kb_path"])
    return files


def _cached_download(url: str) -> Path | None:
    """The file scispaCy's cache holds for ``url`` (named sha256(url)[.sha256(etag)].<name>)."""
    root = Path(os.environ.get("SCISPACY_CACHE", Path.home() / ".scispacy")) / "datasets"
    prefix = hashlib.sha256(url.encode("utf-8")).hexdigest()
    hits = sorted(
        p for p in root.glob(f"{prefix}*") if p.is_file() and not p.name.endswith(".json")
    )
    return hits[-1] if hits else None


def _local_files(settings: UmlsSettings) -> tuple[dict[str, Path], Path, Path] | str:
    """Linker files, knowledge base and semantic-type tree on disk, or why they are missing."""
    from scispacy.candidate_generation import DEFAULT_PATHS
    from scispacy.linking_utils import DEFAULT_UMLS_PATH, DEFAULT_UMLS_TYPES_PATH

    found: dict[str, Path | None]
    if settings.linker_dir:
        root = Path(settings.linker_dir)
        found = {k: root / v for k, v in _LINKER_FILES.items()}
        found["kb"] = Path(settings.kb_path) if settings.kb_path else None
        found["types"] = root / _TYPES_FILE
    else:
        found = {k: _cached_download(getattr(DEFAULT_PATHS["umls"], k)) for k in _LINKER_FILES}
        found["kb"] = _cached_download(DEFAULT_UMLS_PATH)
        found["types"] = _cached_download(DEFAULT_UMLS_TYPES_PATH)
    missing = [k for k, p in found.items() if p is None or not p.is_file()]
    if missing:
        where = (
            f"linker_dir {settings.linker_dir!r} / kb_path {settings.kb_path!r}"
            if settings.linker_dir
            else "scispaCy's cache (nothing is downloaded here; set linker_dir and kb_path)"
        )
        return f"UMLS linker data missing ({', '.join(missing)}) in {where}"
    files = {k: p for k, p in found.items() if k in _LINKER_FILES and p is not None}
    return files, found["kb"], found["types"]


def status(settings: UmlsSettings) -> UmlsStatus:
    """Check what UMLS linking needs without loading it."""
    model = settings.spacy_model
    if importlib.util.find_spec("scispacy") is None or importlib.util.find_spec("spacy") is None:
        return UmlsStatus(False, "scispacy is not installed", model)
    import spacy.util

    if not (spacy.util.is_package(model) or Path(model).is_dir()):
        return UmlsStatus(False, f"spaCy model {model!r} is not installed", model)
    found = _local_files(settings)
    if isinstance(found, str):
        return UmlsStatus(False, found, model)
    return UmlsStatus(True, "", model)


@cache
def _linker(settings: UmlsSettings) -> Extractor:
    import spacy
    from scispacy.candidate_generation import CandidateGenerator, LinkerPaths
    from scispacy.linking import EntityLinker
    from scispacy.linking_utils import UmlsKnowledgeBase

    found = _local_files(settings)
    if isinstance(found, str):
        raise RuntimeError(found)
    files, kb_path, types_path = found
    paths = LinkerPaths(**{k: str(v) for k, v in files.items()})
    aliases, vectorizer, index = paths.load()
    generator = CandidateGenerator(
        ann_index=index,
        tfidf_vectorizer=vectorizer,
        ann_concept_aliases_list=aliases,
        kb=UmlsKnowledgeBase(file_path=str(kb_path), types_file_path=str(types_path)),
    )
    nlp = spacy.load(settings.spacy_model)
    linker = EntityLinker(candidate_generator=generator, resolve_abbreviations=True)

    def entities(text: str) -> frozenset[str]:
        doc = linker(nlp(text))
        return frozenset(
            linker.kb.cui_to_entity[ent._.kb_ents[0][0]].canonical_name
            for ent in doc.ents
            if ent._.kb_ents
        )

    return entities


def load(settings: UmlsSettings) -> tuple[Extractor | None, UmlsStatus]:
    """The entity extractor (loaded once per process) and the status; ``None`` if unavailable."""
    state = status(settings)
    if not state.available:
        return None, state
    try:
        return _linker(settings), state
    except Exception as err:  # scispaCy or nmslib failing to load is reported, not raised
        return None, UmlsStatus(False, f"UMLS linker failed to load: {err}", settings.spacy_model)


def umls_f1(prediction: str, reference: str, extract: Extractor) -> PRF:
    """F1 (0-100) of the UMLS concepts linked in prediction and reference."""
    return set_prf(extract(prediction), extract(reference))
