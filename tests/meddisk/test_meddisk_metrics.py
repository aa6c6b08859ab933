"""Shared metrics MedDisK introduced: overlap (BLEU-n, ROUGE-N/L, CJK tokenizers), ROUGE on
Chinese, Welch's t-test and Holm/BH corrections, the bundled multilingual encoder."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from clineval.metrics import overlap
from clineval.metrics.embedding import BUNDLED_USE, cosine_pairs, encoder_files, encoder_name
from clineval.metrics.rouge import rouge_f1
from clineval.metrics.significance import adjust, welch

# --- tokenizers -----------------------------------------------------------------------------


def test_char_tokenizer_keeps_every_chinese_character_and_ascii_runs():
    assert overlap.tokenize("咳嗽；打喷嚏, ST段抬高 3.5mg") == [
        "咳", "嗽", "打", "喷", "嚏", "st", "段", "抬", "高", "3.5mg"]
    assert overlap.tokenize("第1.期。v2.") == ["第", "1", "期", "v2"]


def test_word_tokenizer_lowercases_and_keeps_non_ascii_letters():
    assert overlap.tokenize("Bone-marrow; café, HbA1c", "word") == [
        "bone", "marrow", "café", "hba1c"]
    with pytest.raises(ValueError, match="unknown tokenizer"):
        overlap.tokenize("x", "jieba")


# --- BLEU / ROUGE by hand ---------------------------------------------------------------------


def test_bleu1_clipped_precision_and_brevity_penalty():
    # hyp 咳嗽咳 (3), ref 咳嗽流涕 (4): clipped matches 咳 1 + 嗽 1 = 2 -> p1 = 2/3;
    # |h| = 3 < |r| = 4 -> BP = exp(1 - 4/3)
    hyp, ref = overlap.tokenize("咳嗽咳"), overlap.tokenize("咳嗽流涕")
    assert overlap.bleu(hyp, ref, 1) == pytest.approx(2 / 3 * math.exp(1 - 4 / 3))
    assert overlap.bleu(ref, ref, 1) == 1.0
    assert overlap.bleu([], ref, 1) == 0.0


def test_bleu2_geometric_mean():
    hyp, ref = ["a", "b", "c", "d"], ["a", "b", "x", "d"]
    # p1 = 3/4, p2 = 1/3 ("a b"), equal lengths -> BP 1
    assert overlap.bleu(hyp, ref, 2) == pytest.approx(math.sqrt(3 / 4 * 1 / 3))


def test_rouge_n_and_l_f1():
    hyp, ref = overlap.tokenize("皮肤骨髓"), overlap.tokenize("皮肤")
    # overlap 2, P = 2/4, R = 2/2 -> F1 = 2/3
    assert overlap.rouge_n(hyp, ref, 1) == pytest.approx(2 / 3)
    assert overlap.rouge_n(["a"], ["b"], 1) == 0.0
    # LCS of a b c d / a c d x = 3 -> P = R = 3/4
    assert overlap.rouge_l(list("abcd"), list("acdx")) == pytest.approx(0.75)


def test_rouge_py_no_longer_drops_chinese_and_keeps_english():
    chinese = rouge_f1("咳嗽 发热", "咳嗽 流涕")
    assert chinese["rouge_1"] == pytest.approx(50.0)  # 2 of 4 characters shared
    forced = rouge_f1("咳嗽 发热", "咳嗽 流涕", tokenizer="rouge-score")
    assert forced["rouge_1"] == 0.0  # rouge-score's own tokenizer deletes Chinese
    english = rouge_f1("The cats sat", "the cat sat", use_stemmer=True)
    assert english == rouge_f1("The cats sat", "the cat sat", use_stemmer=True,
                               tokenizer="rouge-score")
    assert english["rouge_1"] == pytest.approx(100.0)  # stemming still applies


# --- Welch and corrections --------------------------------------------------------------------


def test_welch_worked_example_matches_scipy():
    result = welch([0.9, 0.8, 0.7], [0.5, 0.6, 0.4])
    assert result.t == pytest.approx(3.674, abs=1e-3)
    assert result.df == pytest.approx(4.0)
    assert result.p == pytest.approx(0.0213, abs=1e-4)
    a, b = [1, 0, 1, 1, 0.5], [0, 0, 1, 0]
    expected = stats.ttest_ind(a, b, equal_var=False)
    got = welch(a, b)
    assert (got.t, got.p) == (pytest.approx(expected.statistic), pytest.approx(expected.pvalue))
    assert (got.mean_a, got.n_a, got.n_b) == (pytest.approx(0.7), 5, 4)


def test_welch_undefined_cases():
    assert welch([1.0], [0.0, 1.0]).t is None
    assert welch([1.0, 1.0], [0.0, 0.0]).t is None  # no variance at all


def test_holm_and_bh_by_hand():
    p = [0.01, 0.04, 0.03, None]
    # Holm: sorted 0.01, 0.03, 0.04 -> 3*0.01, max(.03, 2*.03), max(.06, 1*.04)
    assert adjust(p, "holm") == [pytest.approx(0.03), pytest.approx(0.06), pytest.approx(0.06),
                                 None]
    # BH: 0.04*3/3 = .04; 0.03*3/2 = .045 -> min(.045, .04) = .04; 0.01*3/1 = .03
    assert adjust(p, "bh") == [pytest.approx(0.03), pytest.approx(0.04), pytest.approx(0.04),
                               None]
    assert adjust(p) == p
    with pytest.raises(ValueError, match="unknown correction"):
        adjust(p, "bonferroni")


# --- the bundled multilingual encoder ---------------------------------------------------------


def test_use_multilingual_handles_chinese_offline():
    same, close, far = cosine_pairs(
        ["咳嗽 打喷嚏 流鼻涕", "咳嗽 打喷嚏 流鼻涕", "咳嗽 打喷嚏 流鼻涕"],
        ["咳嗽 打喷嚏 流鼻涕", "咳嗽 鼻塞 流涕 发热", "骨髓"], BUNDLED_USE)
    assert same == pytest.approx(1.0, abs=1e-5)
    assert close > 0.6 > 0.3 > far
    files = encoder_files(BUNDLED_USE)
    assert set(files) == {"encoder:weights.npz", "encoder:sp.model"}
    assert all(p.is_file() for p in files.values())
    assert "Multilingual" in encoder_name(BUNDLED_USE)
