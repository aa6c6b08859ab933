"""MedDisK post-processing, tiers, scores and levels; Table 4 reproduced from its shares."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from meddisk_records import demo, task

from clineval.benchmarks.meddisk import aggregate, baselines, extract, scoring
from clineval.benchmarks.meddisk.aspects import registry
from clineval.benchmarks.meddisk.synthetic import demo_records

ASPECTS = registry(task()["data"])
PS, AnS, SL, TP = (ASPECTS[k] for k in ("primary_symptoms", "anatomical_sites",
                                        "severity_level", "treatment_principles"))
ZH_NONE, EN_NONE = extract.NONE_WORDS["zh"], extract.NONE_WORDS["en"]

# The paper's Table 4: (CW, PC, BC) in %, total score, level (levels 1 and 3 inferred).
TABLE4 = {
    "GPT-3.5 Turbo": (46.1, 27.7, 26.1, 4.00, 1), "Vicuna-7B": (54.2, 28.9, 17.0, 3.14, 2),
    "Baichuan-7B": (54.4, 29.3, 16.3, 3.10, 2), "HuatuoGPT-7B": (52.1, 35.5, 12.4, 3.02, 2),
    "PULSE-7B": (55.2, 29.8, 15.1, 3.00, 2), "DoctorGLM-6B": (60.7, 23.6, 15.7, 2.75, 3),
    "ChatGLM-6B": (58.0, 29.8, 12.1, 2.70, 3), "BianQue2-6B": (63.1, 25.6, 11.4, 2.41, 3),
    "LLaMA-7B": (67.2, 18.3, 14.4, 2.36, 3), "ChatDoctor-7B": (65.5, 23.9, 10.6, 2.26, 3),
    "BenTsao-7B": (68.3, 19.4, 12.2, 2.20, 3), "BLOOMZ-7B": (68.7, 25.9, 5.5, 1.84, 4),
}


@pytest.mark.parametrize("model", sorted(TABLE4))
def test_table4_scores_and_levels_from_printed_shares(model):
    cw, pc, bc, printed, printed_level = TABLE4[model]
    assert cw + pc + bc == pytest.approx(100.0, abs=0.15)  # rounding of the printed shares
    score = aggregate.score_from_shares({"cw": cw / 100, "pc": pc / 100, "bc": bc / 100})
    assert score == pytest.approx(printed, abs=0.0125)
    assert aggregate.level(printed) == printed_level


def test_figure5_example_and_levels():
    assert aggregate.score_from_shares({"cw": 0.3, "pc": 0.5, "bc": 0.2}) == pytest.approx(4.5)
    assert [aggregate.level(s) for s in (10, 4.0, 3.99, 3.0, 2.0, 1.99, 0)] == [1, 1, 2, 2, 3, 4, 4]
    assert aggregate.level(2.5, (5, 2.5)) == 2


def test_tier_boundaries_are_inclusive_from_below():
    assert [aggregate.tier(s, (0.3, 0.8)) for s in (0.0, 0.2999, 0.3, 0.7999, 0.8, 1.0)] == [
        0, 0, 1, 1, 2, 2]
    assert aggregate.thresholds_for({"cosine": {"enumerated": [0.5, 0.9]}}, "cosine",
                                    "enumerated") == (0.5, 0.9)
    assert aggregate.thresholds_for(None, "bleu_1", "declarative") == (0.3, 0.8)
    with pytest.raises(ValueError, match="need 0 <= low <= high"):
        aggregate.thresholds_for({"cosine": {"declarative": [0.9, 0.2]}}, "cosine", "declarative")


def test_soft_vote_equals_five_times_the_mean_tier():
    rows = [{"tier": {"bleu_1": a, "rouge_1": b, "cosine": c}}
            for a, b, c in [(0, 1, 2), (1, 1, 1), (0, 0, 1), (2, 2, 2)]]
    summary = aggregate.summarize(rows)
    mean_tier = sum(sum(r["tier"].values()) for r in rows) / 12
    assert summary["score"] == pytest.approx(5 * mean_tier)
    assert sum(summary["shares"].values()) == pytest.approx(1.0)


# --- post-processing --------------------------------------------------------------------------


def test_answer_pattern_zh_and_fallback():
    text, status = extract.segment("好的。上呼吸道感染的常见症状包括：咳嗽；打喷嚏；流鼻涕。",
                                   "上呼吸道感染", PS, "zh")
    assert (text, status) == ("咳嗽；打喷嚏；流鼻涕。", "pattern")
    assert extract.segment("咳嗽、发热", "上呼吸道感染", PS, "zh") == ("咳嗽、发热", "fallback")
    # a model that starts a new demonstration sentence is cut there
    text, _ = extract.segment("X的常见症状包括咳嗽。Y的常见症状包括发热。", "X", PS, "zh")
    assert text == "咳嗽。"


def test_answer_pattern_en_and_completion_cut():
    text, status = extract.segment(
        "The anatomical sites of wart of brass players include the bone marrow.",
        "wart of brass players", AnS, "en")
    assert (text, status) == ("the bone marrow.", "pattern")
    text, _ = extract.segment(" cough; fever\nThe primary symptoms of Y include x", "X", PS, "en",
                              completion=True)
    assert text == "cough; fever"


def test_enumerated_delimiter_splitter_and_gazetteer():
    found = extract.answer("1. 咳嗽；2、打喷嚏、流鼻涕和发热；咳嗽。", PS, "zh", ZH_NONE)
    assert found.items == ("咳嗽", "打喷嚏", "流鼻涕", "发热")
    assert found.text == "咳嗽 打喷嚏 流鼻涕 发热"
    chatter = extract.answer("Ok, I see.", PS, "en", EN_NONE)
    assert chatter.items == ("Ok", "I see")  # the delimiter splitter keeps chatter
    known = extract.answer("Ok, I see.", PS, "en", EN_NONE, gazetteer=["cough", "fever"])
    assert known.unanswered == "no entity"  # the gazetteer drops it: no answer
    literal = extract.answer("Ok, I see.", PS, "en", EN_NONE, gazetteer=["cough", "fever"],
                             literal=True)
    assert literal.none  # the paper's NER: "Ok, I see." -> None (App. E, OpenReview)
    inside = extract.answer("persistent cough with fever; rash", PS, "en", EN_NONE,
                            gazetteer=["cough", "fever", "persistent cough"])
    assert inside.items == ("persistent cough", "fever")


def test_none_normalisation_and_numeric():
    assert extract.answer("无。", PS, "zh", ZH_NONE).none
    assert extract.answer("  ", TP, "zh", ZH_NONE).unanswered == "empty"
    assert extract.answer("  ", TP, "zh", ZH_NONE, literal=True).none  # App. D, literally
    assert extract.answer("None", PS, "en", EN_NONE).none
    assert extract.answer("N/A", TP, "en", EN_NONE).none
    assert extract.answer("该病严重程度为3级", SL, "zh", ZH_NONE).number == 3.0
    assert extract.answer("重度", SL, "zh", ZH_NONE).number is None
    assert extract.answer("COVID-19: level 2", SL, "en", EN_NONE).number == 19.0  # first number
    assert extract.reference_answer([], "zh").none and extract.reference_answer("", "en").none


def test_similarities_none_rules_and_numeric_exact_match():
    none, items = extract.Answer(True, ""), extract.Answer(False, "咳嗽", ("咳嗽",))
    three, three_ref = extract.Answer(False, "3", number=3.0), extract.reference_answer(3, "zh")
    sims = scoring.similarities([(none, none, "enumerated", "zh"),
                                 (none, items, "enumerated", "zh"),
                                 (items, none, "declarative", "zh"),
                                 (three, three_ref, "numeric", "zh"),
                                 (extract.Answer(False, "x", number=None), three_ref, "numeric",
                                  "zh")], scoring.settings_of(task()))
    assert sims[0] == {"bleu_1": 1.0, "rouge_1": 1.0, "cosine": 1.0}
    assert sims[1] == sims[2] == {"bleu_1": 0.0, "rouge_1": 0.0, "cosine": 0.0}
    assert sims[3] == {"bleu_1": 1.0, "rouge_1": 1.0, "cosine": 1.0}
    assert sims[4]["cosine"] == 0.0
    assert scoring.grade(sims[3], "numeric", scoring.settings_of({})) == {
        "bleu_1": 2, "rouge_1": 2, "cosine": 2}


def test_paper_example_skin_vs_bone_marrow():
    # BLEU/ROUGE are 0 (no shared word), cosine decides the third tier
    example = {"id": "d/anatomical_sites", "disease_id": "d", "disease": "wart of brass players",
               "aspect": "anatomical_sites", "type": "enumerated", "label": "anatomical sites",
               "verb": "include", "lang": "en", "reference": ["skin"]}
    output = "The anatomical sites of wart of brass players include the bone marrow."
    rows, summary = scoring.score(task("en"), [example], [{"id": example["id"],
                                                             "output": output}])
    assert rows[0]["prediction"] == "the bone marrow"
    assert rows[0]["similarity"]["bleu_1"] == rows[0]["similarity"]["rouge_1"] == 0.0
    assert rows[0]["tier"]["bleu_1"] == 0
    assert summary["n"] == 1 and set(summary["aspects"]) == {"anatomical_sites"}


# --- baselines on the demo KB -----------------------------------------------------------------


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_oracle_scores_exactly_ten_and_constant_the_none_share(tmp_path, lang):
    examples, _, _ = demo(tmp_path, lang)
    assert len(examples) == 3 * 18
    for name, expected in (("oracle", 10.0), ("constant", None)):
        answer = baselines.get(name, {}, examples)
        generations = [{"id": e["id"], "output": answer(e)} for e in examples]
        _, summary = scoring.score(task(lang), examples, generations)
        if expected is None:
            nones = sum(extract.reference_answer(e["reference"], lang).none for e in examples)
            expected = 10 * nones / len(examples)
            assert nones > 0
        assert summary["score"] == expected
        assert f"{summary['score']:.2f}" == f"{expected:.2f}"
    assert summary["level"] == 4 and len(summary["aspects"]) == 18


def test_swap_baseline_answers_with_another_disease(tmp_path):
    examples, _, _ = demo(tmp_path)
    answer = baselines.get("swap", {"seed": 0}, examples)
    by_id = {e["id"]: e for e in examples}
    output = answer(by_id["D006/primary_symptoms"])
    assert output.startswith("2型糖尿病的常见症状包括")
    assert "多饮" not in output  # not its own value
    _, summary = scoring.score(task(), examples,
                               [{"id": e["id"], "output": answer(e)} for e in examples])
    assert 0 < summary["score"] < 10
    assert not math.isnan(summary["macro_score"])


def test_demo_kb_is_flagged_synthetic_and_bilingual():
    records = demo_records()
    assert records[0] == {"format": "meddisk-kb", "version": 1}
    diseases = records[1:]
    assert len(diseases) == 8 and all(d["synthetic"] for d in diseases)
    assert sum(d["role"] == "demo" for d in diseases) == 5
    assert all(len(d["aspects"]) == 18 and set(d["name"]) == {"zh", "en"} for d in diseases)


def test_synonyms_normalise_both_sides(tmp_path):
    path = tmp_path / "synonyms.json"
    path.write_text('{"departments": {"心血管内科": "心内科", "Cardiology dept": "心内科"}}',
                    encoding="utf-8")
    example = {"id": "d/departments", "disease_id": "d", "disease": "某病",
               "aspect": "departments", "type": "enumerated", "label": "就诊科室",
               "verb": "包括", "lang": "zh", "reference": ["心内科"]}
    generations = [{"id": "d/departments", "output": "某病的就诊科室包括心血管内科。"}]
    plain, _ = scoring.score(task(), [example], generations)
    mapped, _ = scoring.score(task(synonyms=str(path)), [example], generations)
    assert plain[0]["tier"]["bleu_1"] < 2
    assert mapped[0]["prediction"] == "心内科"
    assert mapped[0]["tier"] == {"bleu_1": 2, "rouge_1": 2, "cosine": 2}
    from clineval.benchmarks.meddisk.benchmark import BENCHMARK
    files = BENCHMARK.scoring_inputs(task(synonyms=str(path)), "meddisk_zh", Path("data"))
    assert files["synonyms"] == path
