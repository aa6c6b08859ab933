"""BLEU from per-pair sufficient statistics equals sacrebleu's own corpus and sentence BLEU
exactly (the statistics path is what resampled corpus BLEU sums)."""

from __future__ import annotations

import numpy as np
import pytest
import sacrebleu

from clineval.metrics.bleu import (
    BLEU_STATISTICS,
    bleu_from_statistics,
    bleu_statistics,
    sentence_bleu4,
)

HYPS = ["the lungs are clear .", "no acute cardiopulmonary process", "", "Heart size normal",
        "mild   cardiomegaly, no effusion", "x", "the the the the the", "No Acute Process.",
        "stable post-operative changes of the chest", "pleural effusion on the left side"]
REFS = ["the lungs are clear.", "no acute process in the chest", "normal study",
        "heart size is normal", "mild cardiomegaly without effusion", "y", "the cat",
        "no acute process.", "stable postoperative changes", "left pleural effusion"]


def _sacre(hyps, refs, **options):
    return sacrebleu.BLEU(**options).corpus_score(list(hyps), [list(refs)]).score


@pytest.mark.parametrize("options", [{}, {"lowercase": True}, {"tokenize": "none"},
                                     {"tokenize": "zh"}])
def test_corpus_bleu_from_statistics_equals_sacrebleu_exactly(options):
    rng = np.random.default_rng(5)
    subsets = [list(range(len(HYPS))), [0], [2], [5, 6], [2, 2, 5], [1, 7, 7, 7, 3],
               *[list(rng.integers(0, len(HYPS), size=size)) for size in (3, 8, 20, 40)]]
    matrix = np.array([bleu_statistics(h, r, **options) for h, r in zip(HYPS, REFS,
                                                                        strict=True)])
    for subset in subsets:
        hyps, refs = [HYPS[i] for i in subset], [REFS[i] for i in subset]
        expected = _sacre(hyps, refs, **options)
        assert bleu_from_statistics(matrix[subset].sum(axis=0), **options) == expected


def test_sentence_bleu_from_statistics_equals_sacrebleu_exactly():
    for hyp, ref in zip(HYPS, REFS, strict=True):
        expected = sacrebleu.BLEU(effective_order=True).sentence_score(hyp, [ref]).score
        assert sentence_bleu4(hyp, ref) == expected
        assert bleu_from_statistics(bleu_statistics(hyp, ref), sentence=True) == expected


def test_statistics_layout():
    assert bleu_statistics("a b c", "a b d") == (3, 3, 2, 1, 0, 0, 3, 2, 1, 0)
    assert len(bleu_statistics("", "a")) == BLEU_STATISTICS
