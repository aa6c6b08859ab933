"""BLEU-4 with sacrebleu, on a 0-100 scale.

``corpus_bleu4``: sacrebleu's corpus BLEU (one reference per hypothesis, the ``13a`` tokenizer,
case-sensitive unless ``lowercase``, exponential smoothing: sacrebleu's defaults).
``sentence_bleu4``: sacrebleu's sentence BLEU of one hypothesis (its default ``exp`` smoothing
with effective order), for per-example rows.

Both are computed as sacrebleu computes them, from each sentence pair's sufficient statistics
(:func:`bleu_statistics`: hypothesis and reference lengths, matched and total n-grams for
n = 1..4) summed over the corpus and scored by :func:`bleu_from_statistics`. The statistics of
a pair are computed once per process and cached, so a bootstrap resample's corpus BLEU only
sums them (:func:`bleu_statistics_matrix` gives them as an array for vectorised sums).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache

import numpy as np
from sacrebleu.metrics import BLEU


@cache
def _bleu(lowercase: bool, tokenize: str, sentence: bool) -> BLEU:
    return BLEU(lowercase=lowercase, tokenize=tokenize, effective_order=sentence)


@lru_cache(maxsize=1 << 16)
def bleu_statistics(hypothesis: str, reference: str, *, lowercase: bool = False,
                    tokenize: str = "13a") -> tuple[int, ...]:
    """sacrebleu's statistics of one pair: ``(hyp_len, ref_len, matches_1..4, totals_1..4)``."""
    stats = _bleu(lowercase, tokenize, sentence=False)._extract_corpus_statistics(
        [hypothesis], [[reference]])
    return tuple(int(value) for value in stats[0])


def bleu_statistics_matrix(hypotheses: Sequence[str], references: Sequence[str], *,
                           lowercase: bool = False, tokenize: str = "13a") -> np.ndarray:
    """The ``(n, 10)`` integer matrix of the pairs' :func:`bleu_statistics`, row by row."""
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} references")
    return np.array([bleu_statistics(h, r, lowercase=lowercase, tokenize=tokenize)
                     for h, r in zip(hypotheses, references, strict=True)],
                    dtype=np.int64).reshape(len(hypotheses), 10)


def bleu_from_statistics(statistics: Sequence[int], *, lowercase: bool = False,
                         tokenize: str = "13a", sentence: bool = False) -> float:
    """BLEU-4 (0-100) of summed statistics: the corpus score, or with ``sentence`` the
    sentence score (effective order) of one pair's statistics."""
    values = [int(value) for value in statistics]
    return float(_bleu(lowercase, tokenize, sentence)._compute_score_from_stats(values).score)


def corpus_bleu4(
    hypotheses: Sequence[str],
    references: Sequence[str],
    *,
    lowercase: bool = False,
    tokenize: str = "13a",
) -> float | None:
    """Corpus BLEU-4 (0-100) of aligned hypotheses and references; None for none."""
    if not len(hypotheses):
        if len(references):
            raise ValueError(f"0 hypotheses but {len(references)} references")
        return None
    matrix = bleu_statistics_matrix(hypotheses, references, lowercase=lowercase,
                                    tokenize=tokenize)
    return bleu_from_statistics(matrix.sum(axis=0), lowercase=lowercase, tokenize=tokenize)


def sentence_bleu4(
    hypothesis: str, reference: str, *, lowercase: bool = False, tokenize: str = "13a"
) -> float:
    """Sentence BLEU-4 (0-100) of one hypothesis against one reference."""
    return bleu_from_statistics(
        bleu_statistics(hypothesis, reference, lowercase=lowercase, tokenize=tokenize),
        lowercase=lowercase, tokenize=tokenize, sentence=True)
