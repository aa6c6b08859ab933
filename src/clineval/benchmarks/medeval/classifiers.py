"""The rewriting task's judges: an abnormality and an ambiguity classifier of sentences.

Default (``scoring.classifiers.kind: sklearn``): per domain group, a TF-IDF (word 1-2 grams,
lower-cased) + logistic regression (liblinear, C=1, no randomness) model trained on the train
split of the sentences file, one per label (abnormal, ambiguous). The same file, settings and
scikit-learn version give the same model; ``fingerprint`` hashes the training data, settings and
the fitted coefficients, and scores record it. Trained models are cached per process.

``kind: model``: a model (``classifiers.model``: ``{preset: <conf/model file>}``) judges each
sentence with the zero-shot abnormality and ambiguity prompts of the sentence tasks (the
``classifiers.templates`` file); its label is extracted as the NLU tasks' answers, and an
unqualified answer is no label (wrong). ``decoding: paper`` (default) runs it at Table 8's
temperature 0 and 200 tokens; ``model`` keeps the judge config's own sampling.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from clineval.benchmarks.base.judge import Judge
from clineval.benchmarks.base.settings import read
from clineval.benchmarks.medeval.examples import LABELS
from clineval.benchmarks.medeval.extract import extract_label
from clineval.benchmarks.medeval.prompts import render
from clineval.benchmarks.medeval.settings import Classifiers
from clineval.errors import ConfigError

LABEL_FIELDS = ("abnormal", "ambiguous")
#: The sentence task whose zero-shot prompt a model judge answers, per label field.
JUDGE_TASKS = {"abnormal": "abnormality", "ambiguous": "ambiguity"}
#: Table 8's decoding, the judge's default (``decoding: paper``).
PAPER_DECODING = {"temperature": 0.0, "max_tokens": 200}


@dataclass(frozen=True)
class Classifier:
    """A fitted sentence classifier for one label field of one domain group."""

    label: str
    group: str
    pipeline: Any
    fingerprint: str
    n_train: int
    #: Always answers one of the labels (a model judge may not: its qualified rate is recorded).
    answers_off_format = False

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


@dataclass(frozen=True)
class PromptedJudge:
    """A model judging one label field with the sentence task's zero-shot prompt."""

    label: str
    judge: Judge
    templates: dict[str, Any]
    extraction: str
    answers_off_format = True

    def predict(self, sentences: Sequence[str]) -> list[str | None]:
        """The extracted label per sentence; None for an unqualified answer."""
        task = JUDGE_TASKS[self.label]
        asked = [render({"task": task, "fields": {"sentence": s}}, self.templates, [])
                 for s in sentences]
        return [extract_label(o, LABELS[task], self.extraction).prediction
                for o in self.judge.ask(asked)]


def settings(scoring: dict[str, Any] | None) -> dict[str, Any]:
    """The ``scoring.classifiers`` settings of the task's ``scoring``, checked (``model``: the
    judge's config with its sampling as ``decoding`` says)."""
    spec = read(Classifiers, (scoring or {}).get("classifiers"), "scoring.classifiers")
    found = {"kind": spec.kind, "C": spec.C, "data": spec.data}
    if spec.kind == "sklearn":
        return found
    model = spec.model
    if model is None or "preset" not in model:
        raise ConfigError("scoring.classifiers.kind=model needs scoring.classifiers.model: "
                          "{preset: <a model config of conf/model/>}")
    if spec.decoding == "paper":
        model = {**model, "sampling": {**(model.get("sampling") or {}), **PAPER_DECODING}}
    if not spec.templates:
        raise ConfigError("scoring.classifiers.templates: the MedEval templates file whose "
                          "zero-shot abnormality and ambiguity prompts the judge answers")
    return {**found, "model": model, "decoding": spec.decoding, "templates": spec.templates}
