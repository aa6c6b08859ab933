"""MedDisK's careful and literal readings (issue 34; docs/meddisk.md, "Copied text and
readings"): only a none word is "none"; an empty, cut or prompt-copied answer is unanswered; a
list marker is not a number; the paper's literal reading stays on the rows where it differs."""

from __future__ import annotations

import argparse
import json

import pytest
from meddisk_records import CONF, TEMPLATES, demo, task

from clineval.benchmarks.meddisk import extract, prompts, scoring
from clineval.benchmarks.meddisk.aspects import registry
from clineval.benchmarks.meddisk.benchmark import BENCHMARK

ASPECTS = registry(task()["data"])
PS, SL, OA = ASPECTS["primary_symptoms"], ASPECTS["severity_level"], ASPECTS["onset_ages"]
ZH_NONE, EN_NONE = extract.NONE_WORDS["zh"], extract.NONE_WORDS["en"]


def _example(lang: str, disease: str, aspect: str, reference) -> dict:
    spec = ASPECTS[aspect]
    return {"id": f"X/{aspect}", "disease_id": "X", "disease": disease, "aspect": aspect,
            "abbr": spec.abbr, "type": spec.type, "label": spec.label(lang),
            "verb": spec.verb(lang), "lang": lang, "reference": reference}


def _messages(example: dict, demos: list[dict] | None = None) -> list[dict]:
    text, _ = prompts.render(example, demos or [], TEMPLATES[example["lang"]], "instruction")
    return [{"role": "user", "content": text}]


def _row(example: dict, output: str, finish: str = "stop", messages: bool = True) -> dict:
    generation = {"id": example["id"], "output": output, "finish_reason": finish,
                  **({"messages": _messages(example)} if messages else {})}
    rows, _ = scoring.score(task(example["lang"]), [example], [generation])
    return rows[0]


# --- none, unanswered ---------------------------------------------------------------------


@pytest.mark.parametrize("text,lang", [("无", "zh"), ("无。", "zh"), ("没有", "zh"),
                                       ("none.", "en"), ("None", "en"), ("N/A", "en")])
def test_only_an_explicit_none_word_is_none(text, lang):
    found = extract.answer(text, PS, lang, extract.NONE_WORDS[lang])
    assert found.none and found.unanswered is None


def test_an_empty_segment_is_unanswered_and_none_only_literally():
    example = _example("en", "community-acquired pneumonia", "differential_symptoms", [])
    cut = "The differential symptoms of community-acquired pneumonia include"
    row = _row(example, cut, finish="length")
    assert row["unanswered"] == "cut" and row["points"] == 0.0
    assert row["literal"] == {"prediction": None, "points": 10.0, "unanswered": None,
                              "similarity": dict.fromkeys(("bleu_1", "rouge_1", "cosine"), 1.0),
                              "tier": dict.fromkeys(("bleu_1", "rouge_1", "cosine"), 2)}
    stopped = _row(example, cut + ":")
    assert stopped["unanswered"] == "empty" and stopped["literal"]["points"] == 10.0


def test_a_lead_in_cut_at_max_tokens_is_unanswered():
    example = _example("en", "type 2 diabetes", "primary_symptoms", [])
    row = _row(example, "The primary symptoms of type 2 diabetes include the following:\n\n1.",
               finish="length")
    assert row["unanswered"] == "cut" and "literal" in row


def test_the_question_and_instruction_copied_are_unanswered():
    # SmolLM2 in the demo (zh, one_shot, 48 tokens): the question, then the format line
    example = _example("zh", "2型糖尿病", "onset_ages", "")
    output = "2型糖尿病的特定发病年龄为？\n\n请用一句话简要作答。\n\n请"
    row = _row(example, output, finish="length")
    assert row["unanswered"] == "prompt" and row["points"] == 0.0
    assert row["literal"]["prediction"] == "请用一句话简要作答。\n\n请"
    # the question and the instruction only, as issue 34 quotes it
    assert _row(example, "2型糖尿病的特定发病年龄为？\n\n请用一句话简要作答。")["unanswered"] == \
        "prompt"
    english = _example("en", "type 2 diabetes", "onset_ages", "")
    assert _row(english, "Please answer with the onset ages of type 2 diabetes.")[
        "unanswered"] == "prompt"
    # without the prompt (no messages) the copy cannot be seen: the text is read
    assert _row(english, "Please answer with the onset ages of type 2 diabetes.",
                messages=False)["unanswered"] is None


def test_a_copied_sentence_is_dropped_and_the_answer_after_it_read():
    example = _example("zh", "2型糖尿病", "treatment_principles", "控制饮食")
    row = _row(example, "请用一句话简要作答。\n2型糖尿病的治疗原则为控制饮食。")
    assert row["unanswered"] is None and row["prediction"] == "控制饮食"
    fallback = _row(example, "请用一句话简要作答。\n控制饮食、规律运动。")
    assert fallback["prediction"] == "控制饮食、规律运动"
    assert fallback["literal"]["prediction"] == "请用一句话简要作答。\n控制饮食、规律运动"


def test_a_demonstration_copied_is_read_as_an_answer(tmp_path):
    # another disease's sentence states a value: it is scored (wrong disease), not dropped
    _, exemplars, _ = demo(tmp_path, "zh")
    example = _example("zh", "社区获得性肺炎", "treatment_principles", "抗感染及支持治疗")
    generation = {"id": example["id"], "output": "急性阑尾炎的治疗原则为尽早手术切除阑尾。",
                  "finish_reason": "stop", "messages": _messages(example, exemplars)}
    rows, _ = scoring.score(task("zh"), [example], [generation])
    assert rows[0]["unanswered"] is None and rows[0]["status"] == "fallback"


def test_the_numeric_format_line_copied_is_no_number():
    example = _example("zh", "2型糖尿病", "severity_level", 2)
    row = _row(example, "1 表示轻度，2 表示中度，3 表示重度。")
    assert row["unanswered"] == "prompt" and row["literal"]["points"] == 0.0  # literally: 1


# --- numbers ------------------------------------------------------------------------------


def test_a_list_marker_is_not_a_number():
    output = "2. 你可以在这里回答。\n\n你可以在这里回答。\n\n你可以"
    found = extract.answer(output, SL, "zh", ZH_NONE, status="fallback")  # the whole output
    assert found.number is None and found.unanswered == "no number"
    assert extract.answer(output, SL, "zh", ZH_NONE, literal=True).number == 2.0
    row = _row(_example("zh", "2型糖尿病", "severity_level", 2), output, finish="length")
    assert row["points"] == 0.0 and row["literal"]["points"] == 10.0
    # "你可以在这里回答" (you can answer here) is the model's own placeholder: no prompt has it
    assert "你可以在这里回答" not in json.dumps(TEMPLATES, ensure_ascii=False)


@pytest.mark.parametrize("text,number", [
    ("2", 2.0), ("2.", 2.0), ("2。", 2.0), ("severity 3.", 3.0), ("该病严重程度为3级", 3.0),
    ("1. The severity level is 2.", 2.0), ("(1) moderate: 2", 2.0), ("2.5", 2.5),
    ("1、轻度\n2、中度", None), ("- 3) severe", None)])
def test_numbers_and_list_markers(text, number):
    assert extract.first_number(text, markers=False) == number


# --- summaries ----------------------------------------------------------------------------


def test_the_summary_keeps_the_literal_reading_where_rows_differ():
    none_ref = _example("en", "type 2 diabetes", "onset_ages", "")
    generations = [{"id": none_ref["id"], "output": "The onset ages of type 2 diabetes are",
                    "finish_reason": "length", "messages": _messages(none_ref)}]
    rows, summary = scoring.score(task("en"), [none_ref], generations)
    assert summary["score"] == 0.0 and summary["unanswered"] == 1
    assert summary["literal"]["score"] == 10.0
    assert BENCHMARK.headline(summary["literal"])["score"] == 10.0
    assert BENCHMARK.answered(rows[0]) is False
    explicit = [{**generations[0], "output": "The onset ages of type 2 diabetes are none."}]
    _, same = scoring.score(task("en"), [none_ref], explicit)
    assert same["score"] == 10.0 and "literal" not in same


def test_score_cli_reads_the_question_from_the_templates(tmp_path, capsys):
    demo(tmp_path)
    predictions = tmp_path / "pred.jsonl"
    rows = [{"disease": "D006", "aspect": "onset_ages", "finish_reason": "length",
             "output": "2型糖尿病的特定发病年龄为？\n\n请用一句话简要作答。\n\n请"}]
    predictions.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                           encoding="utf-8")
    parser = argparse.ArgumentParser()
    BENCHMARK.add_score_arguments(parser)
    BENCHMARK.score_external(parser.parse_args(
        ["--kb", str(tmp_path / "kb.jsonl"), "--predictions", str(predictions),
         "--conf", str(CONF), "--json"]))
    out = json.loads(capsys.readouterr().out)
    assert out["rows"][0]["unanswered"] == "prompt"


def test_a_heading_echoing_the_question_is_dropped():
    example = _example("zh", "社区获得性肺炎", "physical_examinations", ["肺部湿啰音"])
    row = _row(example, "体格检查异常结果：\n\n肺部湿啰音")
    assert row["prediction"] == "肺部湿啰音"


def test_a_repeat_cut_at_max_tokens_is_not_an_item():
    output = "右下腹压痛；反跳痛；反跳痛；反跳痛；反\ufffd"
    cut = extract.answer(output, PS, "zh", ZH_NONE, cut=True)
    assert cut.items == ("右下腹压痛", "反跳痛")
    assert extract.answer(output, PS, "zh", ZH_NONE).items == ("右下腹压痛", "反跳痛", "反")
    assert extract.answer("咳嗽；发热；头", PS, "zh", ZH_NONE, cut=True).items == (
        "咳嗽", "发热", "头")  # a new item cut: kept


def test_degenerate_repetitions_are_no_items():
    found = extract.answer("美女猪猪猪猪猪猪猪猪", PS, "zh", ZH_NONE)
    assert found.unanswered == "repetition"
    assert extract.answer("咳嗽；猪猪猪猪猪", PS, "zh", ZH_NONE).items == ("咳嗽",)
    assert extract.answer("pig pig pig pig pig", PS, "en", EN_NONE).unanswered == "repetition"
    assert extract.answer("penicillin 100000 IU", PS, "en", EN_NONE).items == (
        "penicillin 100000 IU",)  # digits are no repetition


def test_a_numbered_list_after_sentence_ends_is_split():
    assert extract.split_items("1. 咳嗽！2. 发热！3. 头痛", "zh") == ["咳嗽", "发热", "头痛"]
    assert extract.split_items("咳嗽。发热。", "zh") == ["咳嗽", "发热"]


def test_the_stems_verb_alone_is_no_item():
    example = _example("zh", "急性前壁心肌梗死", "patient_population", ["中老年男性"])
    row = _row(example, "急性前壁心肌梗死的患病人群：1. 包括；；；；；；\ufffd", finish="length")
    assert row["unanswered"] == "prompt"  # the heading was a copy; nothing else is left
    assert row["literal"]["prediction"] == "急性前壁心肌梗死的患病人群：1. 包括"


def test_a_run_of_the_definition_is_a_copy():
    example = _example("zh", "社区获得性肺炎", "primary_symptoms", ["发热"])
    row = _row(example, "- 包括；病最突出的临床症状\n- 包括；病最突出的临床症状")
    assert row["unanswered"] == "prompt"
    short = _row(example, "临床症状；发热")  # 4 characters of the definition: read
    assert short["prediction"] == "临床症状 发热"


def test_a_definition_copied_after_the_pattern_is_no_answer():
    example = _example("en", "type 2 diabetes", "anatomical_sites", ["pancreas"])
    row = _row(example, "The anatomical sites of type 2 diabetes are the body locations where "
                        "the disease lies, by anatomy.")
    assert row["unanswered"] == "prompt"
    assert row["literal"]["prediction"] == "the body locations where the disease lies by anatomy"


def test_a_quoted_format_example_is_a_copy_but_a_quoted_none_is_none():
    example = _example("en", "acute anterior wall myocardial infarction",
                       "auxiliary_examinations", ["ECG (ST elevation)"])
    assert _row(example, "Test (positive result)")["unanswered"] == "prompt"
    assert _row(example, "none")["prediction"] is None
    assert _row(example, "none")["unanswered"] is None


def test_dotted_chains_symbols_and_closing_brackets():
    assert extract.first_number("2.1.1.1.1.1.", markers=False) is None
    assert extract.first_number("2.1.1.1.1.1.") == 2.1  # literally the initial number
    assert extract.split_items("＋；糖瓶", "zh") == ["糖瓶"]
    assert extract.split_items("procedure (TUR)\n心电图（ST段抬高）", "en") == [
        "procedure (TUR)", "心电图（ST段抬高）"]
    assert extract.strip_edges("「休息」——") == "休息"


def test_a_number_going_on_from_the_pattern_is_no_list_marker():
    example = _example("en", "type 2 diabetes", "severity_level", 2)
    assert _row(example, "The severity level of type 2 diabetes is 2. It is moderate.")[
        "prediction"] == "2. It is moderate"
    listed = _row(example, "The severity level of type 2 diabetes is:\n1. Mild\n2. Moderate")
    assert listed["unanswered"] == "list"


def test_a_numeric_list_gives_options_and_a_bare_number_is_content():
    example = _example("en", "type 2 diabetes", "severity_level", 2)
    assert _row(example, "1. Mild: 1\n2. Moderate: 2\n3. Severe: 3")["unanswered"] == "list"
    ages = _example("en", "acute anterior wall myocardial infarction", "prevalence_ages", "")
    assert _row(ages, "The prevalence ages of acute anterior wall myocardial infarction are 22."
                )["prediction"] == "22"


def test_copied_is_measured_on_the_answer_not_the_stem():
    example = _example("en", "type 2 diabetes", "onset_ages", "")
    assert _row(example, "The onset ages of type 2 diabetes are none.")["copied"] is None
    zh = _example("zh", "2型糖尿病", "onset_ages", "")
    row = _row(zh, "2型糖尿病的特定发病年龄为？\n\n请用一句话简要作答。\n\n请用一句话简要作答。")
    assert row["copied"]["kind"] == "instruction"
    assert "copied" not in _row(example, "none", messages=False)  # the workflow decides
