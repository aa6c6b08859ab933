"""The rewriting task's judges: an abnormality and an ambiguity classifier of sentences.

Default (``scoring.classifiers.kind: sklearn``): per domain group, a TF-IDF (word 1-2 grams,
lower-cased) + logistic regression (liblinear, C=1, no randomness) model trained on the train
split of the sentences file, one per label (abnormal, ambiguous). The same file, settings and
scikit-learn version give the same model; ``fingerprint`` hashes the training data, settings and
the fitted coefficients, and scores record it. Trained models are cached per process.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from clineval.errors import ConfigError

KINDS = ("sklearn",)
LABEL_FIELDS = ("abnormal", "ambiguous")


@dataclass(frozen=True)
class Classifier:
    """A fitted sentence classifier for one label field of one domain group."""

    label: str
    group: str
    pipeline: Any
    fingerprint: str
    n_train: int

    def predict(self, sentences: Sequence[str]) -> list[str]:
        return [str(p) for p in self.pipeline.predict(list(sentences))] if sentences else []


def _fit(texts: tuple[str, ...], labels: tuple[str, ...], c: float) -> tuple[Any, str]:
    import sklearn
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    pipeline = make_pipeline(
        TfidfVectorizer(lowercase=True, ngram_range=(1, 2)),
        LogisticRegression(solver="liblinear", C=c),
    )
    pipeline.fit(list(texts), list(labels))
    model = pipeline[-1]
    digest = hashlib.sha256(json.dumps({
        "sklearn": sklearn.__version__,
        "data": [texts, labels],
        "C": c,
        "classes": [str(x) for x in model.classes_],
        "coef": [round(float(x), 10) for x in model.coef_.ravel()],
        "intercept": [round(float(x), 10) for x in model.intercept_],
    }, sort_keys=True).encode()).hexdigest()
    return pipeline, digest


@cache
def train(label: str, group: str, texts: tuple[str, ...], labels: tuple[str, ...],
          c: float = 1.0) -> Classifier:
    """A classifier of ``label`` trained on ``texts`` (cached: trained once per process)."""
    if label not in LABEL_FIELDS:
        raise ConfigError(f"no classifier for label {label!r}; known: {', '.join(LABEL_FIELDS)}")
    if len(set(labels)) < 2:
        raise ConfigError(
            f"the {label} classifier of the {group} sentences needs both classes in the train "
            f"split; it has {sorted(set(labels)) or 'no labelled sentence'}"
        )
    pipeline, digest = _fit(texts, labels, c)
    return Classifier(label, group, pipeline, digest, len(texts))


def settings(scoring: dict[str, Any]) -> dict[str, Any]:
    """The ``scoring.classifiers`` settings, checked."""
    spec = dict(scoring.get("classifiers") or {})
    kind = spec.get("kind", "sklearn")
    if kind not in KINDS:
        raise ConfigError(f"scoring.classifiers.kind={kind!r}; available: {', '.join(KINDS)} "
                          "(a grid model as judge is not implemented yet, docs/medeval.md)")
    return {"kind": kind, "C": float(spec.get("C", 1.0)), "data": spec.get("data")}
