"""ROUGE-1/2/L F1 with Google's ``rouge-score`` package, on a 0-100 scale.

CLUE scored with Hugging Face ``evaluate``'s ``rouge`` metric at its defaults, which wraps the same
scorer with ``use_stemmer=False`` and sentence-level ROUGE-L (``rougeL``, not ``rougeLsum``); those
are the defaults here.

``rouge-score``'s own tokenizer keeps only ``[a-z0-9]``: it deletes every Chinese (or other
non-Latin) character, so such text would score 0. ``tokenizer`` chooses what splits the texts:
``auto`` (default) uses rouge-score's tokenizer unless either text holds a CJK character, then
:mod:`clineval.metrics.overlap`'s ``char`` tokenizer; ``rouge-score`` always uses rouge-score's;
``char`` or ``word`` always use overlap's (no stemming). English text scores exactly as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from rouge_score import rouge_scorer

from clineval.metrics.overlap import has_cjk, tokenize

#: Output keys and the rouge-score type each comes from.
ROUGE_TYPES = {"rouge_1": "rouge1", "rouge_2": "rouge2", "rouge_l": "rougeL"}
TOKENIZERS = ("auto", "rouge-score", "char", "word")


class _OverlapTokenizer:
    """rouge-score's tokenizer interface over :func:`clineval.metrics.overlap.tokenize`."""

    def __init__(self, kind: str):
        self.kind = kind

    def tokenize(self, text: str) -> list[str]:
        return tokenize(text, self.kind)


@cache
def _scorer(use_stemmer: bool, tokenizer: str) -> rouge_scorer.RougeScorer:
    custom = None if tokenizer == "rouge-score" else _OverlapTokenizer(tokenizer)
    return rouge_scorer.RougeScorer(
        list(ROUGE_TYPES.values()), use_stemmer=use_stemmer, tokenizer=custom
    )


def _resolve(prediction: str, reference: str, tokenizer: str) -> str:
    if tokenizer not in TOKENIZERS:
        raise ValueError(f"unknown ROUGE tokenizer {tokenizer!r}; known: {', '.join(TOKENIZERS)}")
    if tokenizer == "auto":
        return "char" if has_cjk(prediction) or has_cjk(reference) else "rouge-score"
    return tokenizer


def rouge_f1(
    prediction: str, reference: str, *, use_stemmer: bool = False, tokenizer: str = "auto"
) -> dict[str, float]:
    """F1 of ROUGE-1, ROUGE-2 and ROUGE-L between one prediction and its reference (0-100)."""
    scorer = _scorer(use_stemmer, _resolve(prediction, reference, tokenizer))
    scores = scorer.score(reference, prediction)
    return {key: 100.0 * scores[kind].fmeasure for key, kind in ROUGE_TYPES.items()}


def rouge_f1_batch(
    predictions: Sequence[str],
    references: Sequence[str],
    *,
    use_stemmer: bool = False,
    tokenizer: str = "auto",
) -> list[dict[str, float]]:
    """:func:`rouge_f1` for aligned lists."""
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions but {len(references)} references")
    pairs = zip(predictions, references, strict=True)
    return [rouge_f1(p, r, use_stemmer=use_stemmer, tokenizer=tokenizer) for p, r in pairs]
