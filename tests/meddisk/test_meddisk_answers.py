"""MedDisK answer cleaning on the cases of issue 26: no cut without an answer pattern (App. D),
every ordinal dropped, tiers exact on their thresholds, Unicode edge punctuation, and
`clineval score meddisk` on demonstration diseases and on the file's language."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from meddisk_records import CONF, demo, task

from clineval.benchmarks.meddisk import aggregate, extract, scoring
from clineval.benchmarks.meddisk.aspects import registry
from clineval.benchmarks.meddisk.benchmark import BENCHMARK
from clineval.errors import ConfigError, DataError

ASPECTS = registry(task()["data"])
PS, TP = ASPECTS["primary_symptoms"], ASPECTS["treatment_principles"]
ZH_NONE, EN_NONE = extract.NONE_WORDS["zh"], extract.NONE_WORDS["en"]


# --- the following-sentence cut only after an answer pattern ----------------------------------


def test_chatter_without_an_answer_pattern_is_kept_whole():
    chatter = ("Sure! Here are the main symptoms. The primary symptoms of the flu include "
               "cough and fever.")
    assert extract.segment(chatter, "common cold", PS, "en") == (chatter, "fallback")


def test_zh_answer_restating_the_disease_is_not_cut_to_its_name():
    # the name in brackets defeats the pattern; the old cut left only "CAP（社区获得性肺炎）"
    output = "CAP（社区获得性肺炎）的常见症状包括发热、咳嗽。"
    assert extract.segment(output, "社区获得性肺炎", PS, "zh") == (output, "fallback")
    assert extract.answer(output, PS, "zh", ZH_NONE).items[-1] == "咳嗽"


def test_the_cut_still_applies_after_a_matched_pattern():
    text, status = extract.segment("X的常见症状包括咳嗽。Y的常见症状包括发热。", "X", PS, "zh")
    assert (text, status) == ("咳嗽。", "pattern")


# --- ordinals ---------------------------------------------------------------------------------


def test_circled_ordinals_are_dropped_and_separate_items():
    assert extract.split_items("①咳嗽②发热③头痛", "zh") == ["咳嗽", "发热", "头痛"]
    assert extract.split_items("⑴咳嗽；⑵发热；❸头痛；㈣乏力", "zh") == [
        "咳嗽", "发热", "头痛", "乏力"]
    assert extract.split_items("① cough ② fever", "en") == ["cough", "fever"]


def test_chinese_numeral_ordinals_are_dropped_before_splitting_on_the_comma():
    assert extract.split_items("一、咳嗽；二、发热；三、头痛", "zh") == ["咳嗽", "发热", "头痛"]
    assert extract.split_items("（一）咳嗽\n（二）发热", "zh") == ["咳嗽", "发热"]
    # a numeral inside a word is content, not an ordinal
    assert extract.split_items("十二指肠溃疡、胃溃疡", "zh") == ["十二指肠溃疡", "胃溃疡"]


# --- tiers on their thresholds ----------------------------------------------------------------


def test_rouge1_of_twelve_fifteenths_lands_in_the_basically_correct_tier():
    # 6 of 7 predicted words in an 8-word reference: ROUGE-1 F1 = 12/15 = 0.8, the BC threshold
    pred = extract.Answer(False, "a b c d e f x", tuple("abcdefx"))
    ref = extract.Answer(False, "a b c d e f y z", tuple("abcdefyz"))
    sims = scoring._overlap(pred, ref, "word")
    assert sims["rouge_1"] == 0.8
    assert aggregate.tier(sims["rouge_1"], (0.3, 0.8)) == 2


def test_tiers_and_levels_tolerate_float_rounding_only():
    assert aggregate.tier(0.7999999999999999, (0.3, 0.8)) == 2
    assert aggregate.tier(0.29999999999999993, (0.3, 0.8)) == 1
    assert aggregate.tier(0.7999, (0.3, 0.8)) == 1
    assert aggregate.level(3.9999999999999996) == 1
    assert aggregate.level(3.999) == 2


def test_count_based_overlap_equals_the_shared_metrics():
    from clineval.metrics import overlap

    pred = extract.Answer(False, "fever cough cough rash", ())
    for ref_text in ("cough fever", "cough fever headache nausea rash", "rash"):
        ref = extract.Answer(False, ref_text, ())
        sims = scoring._overlap(pred, ref, "word")
        hyp, gold = pred.text.split(), ref_text.split()
        assert sims["bleu_1"] == pytest.approx(overlap.bleu(hyp, gold, 1), abs=1e-12)
        assert sims["rouge_1"] == pytest.approx(overlap.rouge_n(hyp, gold, 1), abs=1e-12)


# --- Unicode punctuation at the edges ---------------------------------------------------------


def test_unicode_edge_punctuation_is_stripped():
    assert extract.answer("尽早手术治疗……", TP, "zh", ZH_NONE).text == "尽早手术治疗"
    assert extract.answer("「休息」——", TP, "zh", ZH_NONE).text == "休息"
    assert extract.split_items("咳嗽…、发热", "zh") == ["咳嗽", "发热"]
    assert extract.answer("约5%", TP, "zh", ZH_NONE).text == "约5%"  # a quantity keeps its %


@pytest.mark.parametrize("text", ["/", "-", "——", "……", "・", "※", "；；；；；\ufffd"])
def test_an_answer_of_punctuation_only_is_unanswered_and_none_only_literally(text):
    assert extract.answer(text, PS, "zh", ZH_NONE).unanswered == "empty"
    assert extract.answer(text, TP, "en", EN_NONE).unanswered == "empty"
    assert extract.answer(text, PS, "zh", ZH_NONE, literal=True).none
    assert extract.answer(text, TP, "en", EN_NONE, literal=True).none


# --- clineval score meddisk -------------------------------------------------------------------


def _score(tmp_path: Path, rows: list[dict], *argv: str) -> dict:
    predictions = tmp_path / "pred.jsonl"
    predictions.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                           encoding="utf-8")
    parser = argparse.ArgumentParser()
    BENCHMARK.add_score_arguments(parser)
    args = parser.parse_args(["--kb", str(tmp_path / "kb.jsonl"), "--predictions",
                              str(predictions), "--conf", str(CONF), "--json", *argv])
    BENCHMARK.score_external(args)
    return args


def test_score_cli_skips_demonstration_diseases(tmp_path, capsys):
    _, exemplars, _ = demo(tmp_path)
    demo_id = exemplars[0]["id"]
    rows = [{"disease": "D006", "aspect": "primary_symptoms",
             "output": "2型糖尿病的常见症状包括多饮；多尿；体重下降。"},
            {"disease": demo_id, "aspect": "primary_symptoms", "output": "咳嗽"}]
    _score(tmp_path, rows)
    out = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in out["rows"]] == ["D006/primary_symptoms"]
    assert out["summary"]["n"] == 1 and out["summary"]["demonstration_skipped"] == 1


def test_score_cli_takes_the_language_from_the_file(tmp_path, capsys):
    demo(tmp_path)
    english = [{"disease": "D006", "aspect": "primary_symptoms",
                "output": "The primary symptoms of type 2 diabetes include polydipsia, polyuria "
                          "and weight loss."}]
    _score(tmp_path, english)  # no --task: the English task, not the Chinese default
    out = json.loads(capsys.readouterr().out)
    assert out["task"] == "meddisk_en"
    assert out["rows"][0]["reference"].startswith("polydipsia")
    with pytest.raises(ConfigError, match=r"'en'.*meddisk_zh.*'zh' references"):
        _score(tmp_path, english, "--task", "meddisk_zh")
    chinese = [{"disease": "D006", "aspect": "primary_symptoms", "output": "多饮、多尿"}]
    _score(tmp_path, chinese)
    assert json.loads(capsys.readouterr().out)["task"] == "meddisk_zh"


def test_score_cli_declared_language_and_undecidable_files(tmp_path, capsys):
    demo(tmp_path)
    # a declared lang wins over the script (a zh model answering in English)
    declared = [{"disease": "D006", "aspect": "primary_symptoms", "output": "polyuria",
                 "lang": "zh"}]
    _score(tmp_path, declared, "--task", "meddisk_zh")
    assert json.loads(capsys.readouterr().out)["task"] == "meddisk_zh"
    numbers = [{"disease": "D006", "aspect": "severity_level", "output": "2"}]
    with pytest.raises(DataError, match="cannot tell the language"):
        _score(tmp_path, numbers)
    _score(tmp_path, numbers, "--task", "meddisk_en")  # nothing contradicts the task
    assert json.loads(capsys.readouterr().out)["task"] == "meddisk_en"
    mixed = [{**declared[0]}, {"disease": "D007", "aspect": "primary_symptoms",
                               "output": "fever", "lang": "en"}]
    with pytest.raises(DataError, match="row 2, field 'lang'"):
        _score(tmp_path, mixed)
