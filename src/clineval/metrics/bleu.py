"""BLEU-4 with sacrebleu, on a 0-100 scale.

Corpus BLEU is sacrebleu's (one reference per hypothesis, the ``13a`` tokenizer, case-sensitive
unless ``lowercase``, exponential smoothing: sacrebleu's defaults), computed as sacrebleu
computes it: each sentence pair's sufficient statistics (:func:`bleu_statistics`: hypothesis
and reference lengths, matched and total n-grams for n = 1..4) summed over the corpus and scored
by :func:`bleu_from_statistics` (a summed aggregate, :mod:`clineval.metrics.aggregate`). The
statistics of a pair are computed once per process and cached, so a bootstrap resample's corpus
BLEU only sums them. ``sentence_bleu4``: sacrebleu's sentence BLEU of one hypothesis (its
default ``exp`` smoothing with effective order), for per-example rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache

from sacrebleu.metrics import BLEU

#: The entries of one pair's statistics (lengths, then 4 matches and 4 totals).
BLEU_STATISTICS = 10


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


def bleu_from_statistics(statistics: Sequence[int], *, lowercase: bool = False,
                         tokenize: str = "13a", sentence: bool = False) -> float:
    """BLEU-4 (0-100) of summed statistics: the corpus score, or with ``sentence`` the
    sentence score (effective order) of one pair's statistics."""
    values = [int(value) for value in statistics]
    return float(_bleu(lowercase, tokenize, sentence)._compute_score_from_stats(values).score)


def sentence_bleu4(
    hypothesis: str, reference: str, *, lowercase: bool = False, tokenize: str = "13a"
) -> float:
    """Sentence BLEU-4 (0-100) of one hypothesis against one reference."""
    return bleu_from_statistics(
        bleu_statistics(hypothesis, reference, lowercase=lowercase, tokenize=tokenize),
        lowercase=lowercase, tokenize=tokenize, sentence=True)
