"""Token overlap metrics for any language: tokenizers, BLEU-n, ROUGE-N and ROUGE-L F1.

Scores are on a 0-1 scale over token lists. Tokenizers (a setting wherever these are used):

- ``char``: every CJK character (Han, kana, hangul) is a token; runs of other letters and digits
  (with ``.`` inside numbers) are one lower-cased token; punctuation and spaces are dropped.
  The usual choice for Chinese, which has no spaces between words.
- ``word``: lower-cased runs of letters and digits (any script), for English and other spaced
  languages.

Google's ``rouge-score`` tokenizer keeps only ``[a-z0-9]`` and so deletes every Chinese
character; these functions never drop a letter of any script.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

TOKENIZERS = ("char", "word")
_CJK = (
    "\u3040-\u30ff"  # hiragana, katakana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK unified and compatibility ideographs
    "\uac00-\ud7af"  # hangul syllables
    "\U00020000-\U0002fa1f"  # CJK extensions B-F and compatibility supplement
)
_CJK_CHAR = re.compile(f"[{_CJK}]")
_CHAR_TOKEN = re.compile(rf"[{_CJK}]|(?:(?![{_CJK}])[^\W_]|(?<=\d)\.(?=\d))+")
_WORD_TOKEN = re.compile(r"[^\W_]+")


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a CJK character."""
    return _CJK_CHAR.search(text) is not None


def tokenize(text: str, tokenizer: str = "char") -> list[str]:
    """``text`` as tokens by ``tokenizer`` (``char`` or ``word``)."""
    if tokenizer == "char":
        return [t.lower() for t in _CHAR_TOKEN.findall(text)]
    if tokenizer == "word":
        return [t.lower() for t in _WORD_TOKEN.findall(text)]
    raise ValueError(f"unknown tokenizer {tokenizer!r}; known: {', '.join(TOKENIZERS)}")


def _ngrams(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def ngram_counts(hypothesis: Sequence[str], reference: Sequence[str],
                 n: int = 1) -> tuple[int, int, int]:
    """(clipped n-gram matches, hypothesis n-grams, reference n-grams): the counts BLEU's
    precision and ROUGE-N's F1 are ratios of."""
    hyp, ref = _ngrams(hypothesis, n), _ngrams(reference, n)
    return sum((hyp & ref).values()), sum(hyp.values()), sum(ref.values())


def bleu(hypothesis: Sequence[str], reference: Sequence[str], n: int = 1) -> float:
    """Sentence BLEU-n against one reference, without smoothing: the brevity penalty times the
    geometric mean of the clipped 1..n-gram precisions (0 when any precision is 0)."""
    if not hypothesis or not reference:
        return 0.0
    logs = []
    for k in range(1, n + 1):
        matches, total, _ = ngram_counts(hypothesis, reference, k)
        if matches == 0 or total == 0:
            return 0.0
        logs.append(math.log(matches / total))
    h, r = len(hypothesis), len(reference)
    penalty = 1.0 if h > r else math.exp(1 - r / h)
    return penalty * math.exp(sum(logs) / n)


def _f1(matches: int, hyp: int, ref: int) -> float:
    if matches == 0 or hyp == 0 or ref == 0:
        return 0.0
    precision, recall = matches / hyp, matches / ref
    return 2 * precision * recall / (precision + recall)


def rouge_n(hypothesis: Sequence[str], reference: Sequence[str], n: int = 1) -> float:
    """ROUGE-N F1: clipped n-gram overlap, harmonic mean of precision and recall."""
    return _f1(*ngram_counts(hypothesis, reference, n))


def _lcs(a: Sequence[str], b: Sequence[str]) -> int:
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b, start=1):
            current.append(previous[j - 1] + 1 if x == y else max(previous[j], current[j - 1]))
        previous = current
    return previous[-1]


def rouge_l(hypothesis: Sequence[str], reference: Sequence[str]) -> float:
    """ROUGE-L F1: the longest common subsequence over the two lengths."""
    return _f1(_lcs(hypothesis, reference), len(hypothesis), len(reference))
