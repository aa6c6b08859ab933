"""Shared metrics (ROUGE, BERTScore, UMLS, accuracy, ICD-10 codes) and CLUE prompts/extraction."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import yaml
from clue_records import clue_example as _example

from clineval.benchmarks.clue import extract
from clineval.benchmarks.clue.benchmark import BENCHMARK as CLUE
from clineval.metrics import codes, umls
from clineval.metrics.bertscore import BertScoreSettings, bertscore_f1, resolve
from clineval.metrics.classification import accuracy, set_prf
from clineval.metrics.rouge import rouge_f1, rouge_f1_batch

TEMPLATES = yaml.safe_load(
    (Path(__file__).parents[2] / "conf" / "templates" / "clue.yaml").read_text(encoding="utf-8")
)
OPTIONS = "A: Pneumonia\nB: Asthma\nC: Acute bronchitis\nD: COPD\nE: Lung cancer"


# --- ROUGE -------------------------------------------------------------------------------------


def test_rouge_identical_is_100_and_disjoint_is_0():
    assert rouge_f1("the patient has pneumonia", "the patient has pneumonia") == {
        "rouge_1": 100.0,
        "rouge_2": 100.0,
        "rouge_l": 100.0,
    }
    assert rouge_f1("alpha beta", "gamma delta") == {"rouge_1": 0.0, "rouge_2": 0.0, "rouge_l": 0.0}


def test_rouge_by_hand():
    # unigrams: 2 of 3 shared both ways -> 2/3; bigrams: "the cat" of 2 -> 1/2; LCS "the cat" -> 2/3
    scores = rouge_f1("the cat sat", "the cat ran")
    assert scores["rouge_1"] == pytest.approx(200 / 3)
    assert scores["rouge_2"] == pytest.approx(50.0)
    assert scores["rouge_l"] == pytest.approx(200 / 3)
    # LCS with reordering: "a b c d" vs "a c b d" -> LCS 3 of 4
    assert rouge_f1("a b c d", "a c b d")["rouge_l"] == pytest.approx(75.0)


def test_rouge_stemming_is_a_setting_off_by_default():
    assert rouge_f1("cats", "cat")["rouge_1"] == 0.0
    assert rouge_f1("cats", "cat", use_stemmer=True)["rouge_1"] == 100.0
    with pytest.raises(ValueError, match="2 predictions but 1 references"):
        rouge_f1_batch(["a", "b"], ["a"])


# --- BERTScore ---------------------------------------------------------------------------------


def test_bertscore_identical_near_100_and_unrelated_lower():
    f1, info = bertscore_f1(
        ["The patient was admitted with chest pain.", "The patient was admitted with chest pain."],
        ["The patient was admitted with chest pain.", "Stock prices fell sharply on Monday."],
        BertScoreSettings(),
    )
    assert f1[0] == pytest.approx(100.0, abs=0.01)
    assert f1[1] < f1[0] - 20
    assert "all-MiniLM-L6-v2" in info.model
    assert info.num_layers == 6 and not info.rescaled
    assert "model_path" not in info.as_dict()


def test_bertscore_empty_side_scores_zero():
    f1, _ = bertscore_f1(["", "same words"], ["a reference", "same words"], BertScoreSettings())
    assert f1[0] == 0.0
    assert f1[1] == pytest.approx(100.0, abs=0.01)


def test_bertscore_refuses_hub_names_and_bad_settings(tmp_path):
    with pytest.raises(ValueError, match="local directory"):
        resolve(BertScoreSettings(model="emilyalsentzer/Bio_ClinicalBERT"))
    with pytest.raises(ValueError, match="baseline_path"):
        resolve(BertScoreSettings(rescale_with_baseline=True))
    with pytest.raises(ValueError, match="num_layers=7"):
        resolve(BertScoreSettings(num_layers=7))
    with pytest.raises(ValueError, match="unknown BERTScore setting"):
        BertScoreSettings.from_dict({"lang": "en"})


# --- accuracy, set F1, codes -------------------------------------------------------------------


def test_accuracy_and_set_prf_by_hand():
    assert accuracy([True, False, True, True]) == 75.0
    assert accuracy([]) is None
    prf = set_prf({"a", "b", "c", "d"}, {"a", "b", "e"})  # P 2/4, R 2/3, F1 4/7
    assert (prf.precision, prf.recall) == pytest.approx((50.0, 200 / 3))
    assert prf.f1 == pytest.approx(400 / 7)
    assert set_prf(set(), {"a"}).f1 == 0.0


def test_code_extraction_uses_the_clue_pattern():
    text = "ICD-10 codes: I50.23, E11.9, U07.1, I10; also 12345 and see note B2."
    assert codes.extract_codes(text) == ["I5023", "E119", "I10"]  # U is outside the pattern


def test_code_f1_by_hand():
    predicted, gold = ["I5023", "E119", "I10"], ["I5023", "I10", "N179"]
    assert codes.exact_f1(predicted, gold).f1 == pytest.approx(200 / 3)
    assert codes.category_f1(predicted, gold).f1 == pytest.approx(200 / 3)  # {I50,E11,I10}
    assert codes.exact_f1(["I50.22"], ["I5023"]).f1 == 0.0
    assert codes.category_f1(["I50.22"], ["I5023"]).f1 == 100.0


def test_repeated_codes_count_only_when_asked():
    predicted, gold = ["I10", "I10", "E119"], ["I10"]
    assert codes.exact_f1(predicted, gold).f1 == pytest.approx(200 / 3)  # P 1/2, R 1
    assert codes.exact_f1(predicted, gold, count_repeats=True).f1 == pytest.approx(80.0)  # P 2/3


def test_valid_code_share():
    assert codes.is_valid("I50.23") and codes.is_valid("I50") and codes.is_valid("A00.0")
    assert not codes.is_valid("R4599") and not codes.is_valid("I25.47")
    assert codes.valid_share(["I5023", "R4599", "E119"]) == pytest.approx(200 / 3)
    assert codes.valid_share(["R4599", "R4599", "I10"]) == pytest.approx(50.0)
    assert codes.valid_share(["R4599", "R4599", "I10"], count_repeats=True) == pytest.approx(
        100 / 3
    )
    assert codes.valid_share([]) == 0.0


# --- UMLS --------------------------------------------------------------------------------------


def test_umls_f1_with_an_entity_extractor():
    table = {"pred": frozenset({"Pneumonia", "Fever"}), "ref": frozenset({"Pneumonia", "Cough"})}
    assert umls.umls_f1("pred", "ref", table.__getitem__).f1 == pytest.approx(50.0)


def test_umls_unavailable_has_a_reason(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "scispacy" else real(name)
    )
    extractor, state = umls.load(umls.UmlsSettings())
    assert extractor is None
    assert not state.available and state.reason == "scispacy is not installed"


# --- extraction --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "label", "status"),
    [
        ("ENTAILMENT", "entailment", "label"),
        ("The relation is neutral.", "neutral", "label"),
        ("Contradiction. It cannot be entailment.", "contradiction", "leading_label"),
        ("entailment or contradiction", None, "ambiguous"),
        ("I am not sure.", None, "no_label"),
        ("It could be neutral, but...\nFinal answer: CONTRADICTION", "contradiction", "label"),
        # two different labels each given as the answer contradict each other: no answer
        ("Entailment.\nContradiction.", None, "conflicting"),
        ("Label: entailment\nLabel: contradiction", None, "conflicting"),
        ("**Neutral**\n\n**Entailment**", None, "conflicting"),
        ("Label: neutral\nLabel: neutral", "neutral", "label"),  # the same label twice
        ("Neutral. It is not a contradiction.", "neutral", "leading_label"),
    ],
)
def test_nli_label(output, label, status):
    assert extract.nli_label(output) == extract.Extraction(label, status)


@pytest.mark.parametrize(
    ("output", "letter", "status"),
    [
        ("The correct answer is C: Acute bronchitis.", "C", "phrase"),
        ("**The correct answer is E**", "E", "phrase"),
        ("B: Asthma", "B", "bare_letter"),
        ("the correct answer is a fracture of the wrist", None, "no_answer"),
        ("The correct answer is F: cannot be answered", None, "bad_letter"),
        ("A seems wrong. Final answer: The correct answer is D: COPD", "D", "phrase"),
        # SmolLM2 restating the options (the demo, task 1, cot): no bare letter
        ("A: ECOG 3\nB: ECOG 1\nC: ECOG 2\nD: ECOG 4\nE: ECOG 0", None, "listed_options"),
        ("A: 6 cycles\nB: 8 cycles\n\nThe correct answer is: C: Acute bronchitis", "C", "phrase"),
    ],
)
def test_option_letter(output, letter, status):
    assert extract.option_letter(output, list("ABCDE")) == extract.Extraction(letter, status)


ECOG = {"choices": list("ABCDE"), "dataset": "longhealth_task1",
        "fields": {"options": "A: ECOG 3\nB: ECOG 1\nC: ECOG 2\nD: ECOG 4\nE: ECOG 0"}}
COPIED = extract.COPIED_EXAMPLE
MISMATCH = extract.TEXT_MISMATCH


@pytest.mark.parametrize(
    ("output", "careful", "status"),
    [
        # the instruction's example, word for word (demo row longhealth-t1-p02-q07-r0)
        ("The correct answer is C: Acute bronchitis.", None, COPIED),
        ("Thinking.\nFinal answer: The correct answer is C: Acute bronchitis.", None, COPIED),
        ("The correct answer is C: ECOG 2.", "C", "phrase"),
        ("The correct answer is **C**: ECOG 2", "C", "phrase"),
        ("C: ECOG performance status of 2", "C", "bare_letter"),  # the option's words, and more
        ("The correct answer is C: ECOG", "C", "phrase"),  # words of the option only
        ("The correct answer is C: ECOG 3", None, MISMATCH),  # option A's text
        ("The correct answer is C: Acute bronchitis and asthma", None, MISMATCH),
        ("The correct answer is C.", "C", "phrase"),  # no text: the letter (the paper's rule)
        ("The correct answer is C", "C", "phrase"),
        ("C", "C", "bare_letter"),
        ("I cannot tell.", None, "no_answer"),
        # two different letters given as the answer: no answer (the paper's reading: the first)
        ("The correct answer is C: ECOG 2.\nThe correct answer is A: ECOG 3.", None,
         extract.CONFLICTING),
        ("The correct answer is C: ECOG 2. The correct answer is C.", "C", "phrase"),
    ],
)
def test_option_answer_reads_the_option_text_after_the_letter(output, careful, status):
    found = extract.option_answer(output, ECOG, extract.format_examples(None))
    assert found.careful == extract.Extraction(careful, status)
    if status == extract.CONFLICTING:
        assert found.literal == extract.Extraction("C", "phrase")
    assert found.literal == extract.option_letter(output, ECOG["choices"])
    assert (found.copied is not None) == (status == COPIED)


def test_an_answer_that_is_the_options_own_text_is_read_even_when_it_is_the_example():
    example = {**ECOG, "fields": {"options": OPTIONS}}
    found = extract.option_answer("The correct answer is C: Acute bronchitis.", example,
                                  extract.format_examples(None))
    assert found.careful == extract.Extraction("C", "phrase") and found.copied is None
    # a letter that stands for a longer word it begins, as a cut or abbreviated answer does
    assert extract.option_answer("The correct answer is D: CO", example).careful.prediction \
        is None  # too short to stand for a word
    assert extract.option_answer("The correct answer is E: Lung canc", example).careful == \
        extract.Extraction("E", "phrase")


def test_format_examples_come_from_the_prompt_or_else_from_the_shipped_template():
    user = TEMPLATES["datasets"]["longhealth"]["answer_format"]
    for style in ("direct", "reasoning"):
        found = extract.format_examples([{"role": "system", "content": "Read."},
                                         {"role": "user", "content": "Docs.\n" + user[style]}])
        assert ("C", "Acute bronchitis.") in {(f.letter, f.text) for f in found}, style
        assert {f.kind for f in found} == {"instruction"}
    assert [(f.letter, f.text) for f in extract.format_examples(None)] == list(
        extract.TEMPLATE_EXAMPLES)
    # a replaced template's own example is the one a copy is read against
    mine = [{"role": "user", "content": 'Docs. Reply like "The correct answer is B: Gout".'}]
    found = extract.option_answer("The correct answer is B: Gout", {**ECOG},
                                  extract.format_examples(mine))
    assert found.careful.status == COPIED
    assert extract.option_answer("The correct answer is C: Acute bronchitis.", ECOG,
                                 extract.format_examples(mine)).careful.status == MISMATCH
    # an exemplar's answer is a shown answer too; an exemplar's question is not an instruction
    turns = [{"role": "user", "content": 'Q? "The correct answer is A: Not this"'},
             {"role": "assistant", "content": "The correct answer is B: ECOG 1"},
             {"role": "user", "content": "Q2?"}]
    assert [(f.kind, f.letter) for f in extract.format_examples(turns)] == [("exemplar", "B")]


def test_longhealth_rows_keep_the_literal_reading_where_it_differs():
    from clineval.benchmarks.clue.scoring import score

    examples = [{**ECOG, "id": f"lh-{i}", "reference": "C", "meta": {}} for i in range(3)]
    outputs = ["The correct answer is C: Acute bronchitis.", "The correct answer is C: ECOG 2",
               "The correct answer is C: ECOG 0"]
    rows, summary = score({}, examples, [{"id": e["id"], "output": o}
                                         for e, o in zip(examples, outputs, strict=True)])
    assert [r["metrics"]["accuracy"] for r in rows] == [0.0, 100.0, 0.0]
    assert [r.get("literal", {}).get("metrics") for r in rows] == [
        {"accuracy": 100.0}, None, {"accuracy": 100.0}]
    assert rows[0]["copied"] == {"kind": "instruction", "share": 1.0, "total": 1.0}
    assert "copied" not in rows[2] and rows[2]["option_text"] == "ECOG 0"
    assert summary["datasets"]["longhealth_task1"]["metrics"]["accuracy"] == pytest.approx(
        100 / 3)
    assert summary["literal"]["datasets"]["longhealth_task1"]["metrics"]["accuracy"] == 100.0
    assert CLUE.summarize_rows({}, rows) == summary
    assert CLUE.literal_reading


def test_medisumcode_codes_that_repeat_an_exemplar_answer_earn_nothing():
    shown = "ICD-10 codes: I50.23, J96.01, N40.1, I10"
    prompt = [{"role": "system", "content": "Code it."},
              {"role": "user", "content": "Another patient's summary."},
              {"role": "assistant", "content": shown},
              {"role": "user", "content": "This patient's summary."}]
    exemplars = extract.exemplar_codes(prompt)
    assert exemplars == ((shown, ("I5023", "J9601", "N401", "I10")),)
    # the exemplar's codes word for word, or with a code of its own beside them: a copy
    for output in (shown, "ICD-10 codes: I5023, J9601, N401, I10, E119"):
        found = extract.code_answer(output, exemplars)
        assert found.careful == extract.Extraction([], extract.COPIED_EXAMPLE), output
        assert found.copied == shown and found.literal.status == "codes"
    # codes of its own that share some with the exemplar, in another order or fewer: read
    for output in ("I10, I5023, E119", "ICD-10 codes: I5023, J9601, E119, I214, K219"):
        assert extract.code_answer(output, exemplars).careful.status == "codes", output
    # a one-code exemplar answer cannot be told from the model's own choice
    assert extract.code_answer("I10", extract.exemplar_codes(
        [{"role": "assistant", "content": "I10"}])).careful.prediction == ["I10"]
    # without the prompt nothing is known to be shown: the paper's reading
    assert extract.code_answer(shown, extract.exemplar_codes(None)).careful.status == "codes"

    from clineval.benchmarks.clue.scoring import score

    examples = [{"id": f"mc-{i}", "dataset": "medisumcode", "fields": CODE, "meta": {},
                 "reference": ["I10", "E119"]} for i in range(2)]
    generations = [{"id": "mc-0", "output": shown, "messages": prompt},
                   {"id": "mc-1", "output": "I10, E11.9", "messages": prompt}]
    rows, summary = score({}, examples, generations)
    assert rows[0]["status"] == extract.COPIED_EXAMPLE and rows[0]["prediction"] == []
    assert rows[0]["metrics"] == {"em_f1": 0.0, "ap_f1": 0.0, "valid_codes": 0.0}
    assert rows[0]["literal"]["prediction"] == ["I5023", "J9601", "N401", "I10"]
    assert rows[0]["literal"]["metrics"]["em_f1"] == pytest.approx(100 / 3)
    assert rows[0]["copied"] == {"kind": "exemplar", "share": 1.0, "total": 1.0}
    assert "literal" not in rows[1] and rows[1]["metrics"]["em_f1"] == 100.0
    assert summary["datasets"]["medisumcode"]["metrics"]["em_f1"] == 50.0
    assert summary["literal"]["datasets"]["medisumcode"]["metrics"]["em_f1"] == pytest.approx(
        (100 / 3 + 100) / 2)
    assert CLUE.summarize_rows({}, rows) == summary
    assert not CLUE.answered(rows[0]) and CLUE.answered(rows[1])


def test_codes_and_summaries_keep_only_the_final_answer():
    cot = "I considered I50.9 first.\nFinal answer: ICD-10 codes: I50.23, E11.9"
    assert extract.code_list(cot) == extract.Extraction(["I5023", "E119"], "codes")
    assert extract.summary_text("Thinking...\nfinal answer: Can X cause Y?") == (
        extract.Extraction("Can X cause Y?", "marked")
    )
    assert extract.summary_text("  Can X cause Y?\n") == extract.Extraction(
        "Can X cause Y?", "whole_output"
    )


def test_every_reasoning_format_asks_for_the_marker():
    for name, spec in TEMPLATES["datasets"].items():
        assert extract.ANSWER_MARKER in spec["answer_format"]["reasoning"], name
        assert extract.ANSWER_MARKER not in spec["answer_format"]["direct"], name


# --- prompts -----------------------------------------------------------------------------------


def _pool(dataset: str, n: int, fields: dict[str, str], reference, choices=None) -> list[dict]:
    return [_example(dataset, i, fields, reference, choices) for i in range(n)]


NLI = {"premise": "No fever.", "hypothesis": "The patient is febrile."}
LH = {"documents": "[text_0] Discharge letter.", "question": "Diagnosis?", "options": OPTIONS}
CODE = {"discharge_summary": "Heart failure and diabetes."}


def test_a_summary_that_only_replays_an_exemplar_answer_earns_nothing():
    shown = "What new treatments are available for systemic sclerosis?"
    prompt = [{"role": "system", "content": "Summarize the question."},
              {"role": "user", "content": "Another patient's long question."},
              {"role": "assistant", "content": shown},
              {"role": "user", "content": "My father has lead poisoning; what helps?"}]
    # the answer word for word, in other case or punctuation, or looped: a replay
    for output in (shown, "what new treatments are available for Systemic Sclerosis",
                   f"{shown} {shown}"):
        assert extract.replayed_answer(output, prompt) == shown, output
    # the answer's frame around a topic of its own, or more than the answer: the model's own
    for output in ("What new treatments are available for lead poisoning?",
                   f"{shown} What helps lead poisoning?", "What new treatments"):
        assert extract.replayed_answer(output, prompt) is None, output
    assert extract.replayed_answer(shown, None) is None  # no prompt: nothing known shown

    from clineval.benchmarks.clue.scoring import score

    examples = [{"id": f"q-{i}", "dataset": "meqsum", "fields": {"question": "q"}, "meta": {},
                 "reference": "What are the treatments for lead poisoning?"} for i in range(2)]
    generations = [{"id": "q-0", "output": shown, "messages": prompt},
                   {"id": "q-1", "output": "What treats lead poisoning?", "messages": prompt}]
    rows, summary = score({}, examples, generations)
    assert rows[0]["status"] == COPIED
    assert rows[0]["metrics"] == {"rouge_1": 0.0, "rouge_2": 0.0, "rouge_l": 0.0,
                                  "bertscore_f1": 0.0}
    literal = rows[0]["literal"]
    assert literal["status"] == "whole_output" and literal["metrics"]["rouge_l"] > 0
    assert rows[0]["copied"] == {"kind": "exemplar", "share": 1.0, "total": 1.0}
    assert "literal" not in rows[1] and rows[1]["metrics"]["rouge_l"] > 0
    meqsum = summary["datasets"]["meqsum"]["metrics"]
    assert meqsum["rouge_l"] == pytest.approx(rows[1]["metrics"]["rouge_l"] / 2)
    assert summary["literal"]["datasets"]["meqsum"]["metrics"]["rouge_l"] == pytest.approx(
        (literal["metrics"]["rouge_l"] + rows[1]["metrics"]["rouge_l"]) / 2)
    assert CLUE.headline(CLUE.summarize_rows({}, rows)) == CLUE.headline(summary)


def test_exemplar_mode_uses_the_paper_counts_as_chat_turns():
    examples = [
        _example("mednli", 0, NLI, "contradiction"),
        _example("longhealth_task1", 0, LH, "C", list("ABCDE")),
        _example("medisumcode", 0, CODE, ["I5023", "E119"]),
    ]
    exemplars = [
        *(dict(e, id=f"ex-{e['id']}") for e in _pool("mednli", 4, NLI, "contradiction")),
        *(dict(e, id=f"ex-{e['id']}") for e in _pool("longhealth_task1", 2, LH, "C")),
        *(dict(e, id=f"ex-{e['id']}") for e in _pool("medisumcode", 2, CODE, ["I5023", "E119"])),
    ]
    one_shot = {"reasoning": True, "exemplars": 1}
    requests = CLUE.build_requests({}, one_shot, TEMPLATES, examples, exemplars)
    counts = {r["id"]: len(r["exemplar_ids"]) for r in requests}
    assert counts == {"mednli-0": 3, "longhealth_task1-0": 0, "medisumcode-0": 1}
    nli, lh, code = (r["messages"] for r in requests)
    assert [m["role"] for m in nli] == ["system", *["user", "assistant"] * 3, "user"]
    assert nli[2]["content"] == "contradiction"
    assert code[2]["content"] == "ICD-10 codes: I5023, E119"
    assert "SENTENCE_1: No fever." in nli[-1]["content"]
    assert extract.ANSWER_MARKER not in nli[0]["content"]  # few-shot answers directly
    assert '"The correct answer is"' in lh[-1]["content"]

    overridden = CLUE.build_requests(
        {"exemplars": {"count": 1}}, one_shot, TEMPLATES, examples[1:2], exemplars
    )[0]["messages"]
    assert overridden[2]["content"] == "The correct answer is C: Acute bronchitis"


def test_cot_asks_for_reasoning_and_zero_shot_does_not():
    example = [_example("mednli", 0, NLI, "neutral")]
    cot = CLUE.build_requests({}, {"reasoning": True, "exemplars": 0}, TEMPLATES, example, [])
    direct = CLUE.build_requests(
        {}, {"reasoning": False, "exemplars": 0}, TEMPLATES, example, []
    )
    assert extract.ANSWER_MARKER in cot[0]["messages"][0]["content"]
    assert "one label only" in direct[0]["messages"][0]["content"]
    assert cot[0]["request_sha"] != direct[0]["request_sha"]
    assert len(direct[0]["messages"]) == 2 and direct[0]["exemplar_ids"] == []


def test_too_few_exemplars_or_leaked_ones_are_errors():
    example = [_example("mednli", 0, NLI, "neutral")]
    one_shot = {"reasoning": True, "exemplars": 1}
    with pytest.raises(ValueError, match="3 exemplar"):
        CLUE.build_requests({}, one_shot, TEMPLATES, example, [])
    with pytest.raises(ValueError, match="also evaluated"):
        CLUE.build_requests({}, one_shot, TEMPLATES, example, example)
