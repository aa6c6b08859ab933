"""BLEU-4 with sacrebleu, on a 0-100 scale.

``corpus_bleu4``: sacrebleu's corpus BLEU (one reference per hypothesis, the ``13a`` tokenizer,
case-sensitive unless ``lowercase``, exponential smoothing: sacrebleu's defaults).
``sentence_bleu4``: sacrebleu's sentence BLEU of one hypothesis (its default ``exp`` smoothing
with effective order), for per-example rows.
"""

from __future__ import annotations

from collections.abc import Sequence

from sacrebleu.metrics import BLEU


def _bleu(lowercase: bool, tokenize: str, sentence: bool) -> BLEU:
    return BLEU(lowercase=lowercase, tokenize=tokenize, effective_order=sentence)


def corpus_bleu4(
    hypotheses: Sequence[str],
    references: Sequence[str],
    *,
    lowercase: bool = False,
    tokenize: str = "13a",
) -> float | None:
    """Corpus BLEU-4 (0-100) of aligned hypotheses and references; None for none."""
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} references")
    if not hypotheses:
        return None
    bleu = _bleu(lowercase, tokenize, sentence=False)
    return float(bleu.corpus_score(list(hypotheses), [list(references)]).score)


def sentence_bleu4(
    hypothesis: str, reference: str, *, lowercase: bool = False, tokenize: str = "13a"
) -> float:
    """Sentence BLEU-4 (0-100) of one hypothesis against one reference."""
    return float(_bleu(lowercase, tokenize, sentence=True).sentence_score(hypothesis,
                                                                           [reference]).score)
