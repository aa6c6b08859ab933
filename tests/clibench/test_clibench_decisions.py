"""Which answer items are decisions (issue 34): copied record lines, headings, the instruction and
an exemplar's answer are no decisions under the careful reading; the similarity floor; the paper's
literal reading kept on the rows where it differs; prompt_inputs sees the record as rendered."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from clineval.benchmarks import get_benchmark
from clineval.benchmarks.clibench import decisions, prompts, scoring
from clineval.benchmarks.clibench.benchmark import BENCHMARK
from clineval.metrics import copying
from clineval.metrics.code_mapping import Item

TEMPLATES = yaml.safe_load(Path("conf/templates/clibench.yaml").read_text())
ZERO_SHOT = {"reasoning": False, "exemplars": 0}
RECORD = ("Allergies: \nPenicillins\n\nChief Complaint:\nfever, productive cough\n\n"
          "History of Present Illness:\n72 y/o man with hypothyroidism and osteoarthritis "
          "presenting with 3 days of fever to 102, cough productive of yellow sputum.\n\n"
          "Past Medical History:\n- Hypothyroidism\n- Osteoarthritis of both knees\n\n"
          "Medications on Admission:\nLevothyroxine Sodium 75 mcg PO DAILY\n"
          "Acetaminophen 650 mg PO Q6H:PRN pain")
EXAMPLE = {"id": "hadm-1", "task": "diagnoses", "gold": ["J18.9", "E03.9"],
           "profile": "gender: M; race: WHITE; age: 72; insurance: Other.",
           "history": "E03.9 Hypothyroidism, unspecified\nM19.90 Unspecified osteoarthritis, "
                      "unspecified site",
           "segments": {"record": RECORD, "radiology": "INDICATION:  Fever and cough.",
                        "labs": "Sodium for Blood (Chemistry): 129.7 mEq/L, normal range is "
                                "133-145, flagged as abnormal"}}


def messages(example: dict, kind: str = "diagnoses") -> list[dict[str, str]]:
    return prompts.render({**example, "task": kind}, ZERO_SHOT, TEMPLATES, [])


def verdicts(items: list[str], output: str, kind: str = "diagnoses", example=EXAMPLE,
             with_prompt: bool = True) -> list[str | None]:
    seen = decisions.shown(kind, example, messages(example, kind) if with_prompt else None)
    return [v and v[0] for v in decisions.judge(items, output, seen)]


def test_a_copied_history_line_is_no_decision_but_a_diagnosis_is():
    line = ("Admission History: 72 y/o man with hypothyroidism and osteoarthritis presenting "
            "with 3 days of fever to 102")
    output = f"1. {line}\n2. Pneumonia\n3. Hypothyroidism"
    assert verdicts([line, "Pneumonia", "Hypothyroidism"], output) == ["record", None, None]


def test_copied_lab_lines_and_radiology_are_no_decisions():
    lab = "Sodium for Blood (Chemistry): 129.7 mEq/L, normal range is 133-145"
    assert verdicts([lab], lab) == ["record"]
    assert verdicts(["INDICATION: Fever and cough."], "INDICATION: Fever and cough.") == [
        "record"]
    # a whole line of the record, however short (the allergy), is no prescription
    assert verdicts(["Penicillins"], "Penicillins", kind="prescriptions") == ["record"]


def test_the_records_own_decision_lists_may_be_copied():
    # an inherited diagnosis (previous admission) or a past medical history entry is a decision
    inherited = "M19.90 Unspecified osteoarthritis, unspecified site"
    assert verdicts([inherited], inherited) == [None]
    # a home medication continued is a prescription; the same line is no diagnosis' copy rule
    home = "Levothyroxine Sodium 75 mcg PO DAILY"
    assert verdicts([home], home, kind="prescriptions") == [None]
    assert verdicts([home + " and more"], home, kind="labs") == ["record"]


def test_headings_of_the_prompt_and_of_the_answer_are_no_decisions():
    output = "1. Adverse drug events:\n- Adverse drug events:\n- Adverse drug events"
    assert verdicts(["Adverse drug events"], output, kind="prescriptions") == ["heading"]
    items = ["Chief Complaint", "MEDICAL RECORD AT ADMISSION", "History of Present Illness"]
    assert verdicts(items, "\n".join(items)) == ["heading"] * 3
    # without the prompt only the answer's own headings are known
    assert verdicts(["MEDICAL RECORD AT ADMISSION"], "x", with_prompt=False) == [None]


def test_the_copied_instruction_is_no_decision():
    question = "Which diagnoses will this patient receive at discharge?"
    assert verdicts([question], question) == ["instruction"]


def test_an_exemplars_answer_copied_is_no_decision():
    seen = decisions.Shown(exemplar_answers=("- I10\n- E11.9\n- E78.5",))
    assert [v and v[0] for v in decisions.judge(["I10", "E11.9", "J18.9"],
                                                "I10\nE11.9\nJ18.9", seen)] == [
        "exemplar", "exemplar", None]
    # one shared code in an answer of its own is a decision
    assert decisions.judge(["I10", "J18.9", "E03.9"], "I10\nJ18.9\nE03.9", seen) == [None] * 3


def test_an_exemplars_answer_copied_with_garbled_codes_is_no_decision():
    """SmolLM2's one-shot prescriptions (tests/fixtures/clibench_graded, modes-384): the
    exemplar's first entries with a character or two changed; the one entry kept exact is a copy,
    not a decision."""
    seen = decisions.Shown(exemplar_answers=(
        "- B05XA03\n- N02AA03\n- A04AA01\n- A11DA01\n- B03BB01\n- N02BE01\n- N06AB06",))
    items = ["B03BB01", "N02AB01", "A04AB01"]
    assert [v and v[0] for v in decisions.judge(items, "\n".join(items), seen)] == [
        "exemplar", None, None]
    # codes of their own that share a letter or two with the exemplar's are no copy
    seen = decisions.Shown(exemplar_answers=("- N02AA03\n- B03BB01\n- A04AA01",))
    items = ["B03BB01", "J01DD04", "C03CA01"]
    assert decisions.judge(items, "\n".join(items), seen) == [None] * 3


def test_a_repetition_cut_off_is_a_fragment():
    """SmolLM2 at 650 tokens (tests/fixtures/clibench_graded, seed1-650): a list that repeats
    "Hypoglycemia" ends in "Hyp", which the encoder maps to Hypotension (0.57)."""
    items = ["Anemia", "Hypoglycemia", "Hypoglycemia", "Hyp"]
    output = "\n".join(f"{i}. {item}" for i, item in enumerate(items, start=1))
    assert verdicts(items, output) == [None, None, None, "fragment"]
    # the opening of an item named once, or not the last line, is a decision
    assert verdicts(["Anemia of chronic disease", "Anemia"],
                    "1. Anemia of chronic disease\n2. Anemia") == [None, None]
    assert verdicts(["Hyp", "Hypoglycemia", "Hypoglycemia"],
                    "1. Hyp\n2. Hypoglycemia\n3. Hypoglycemia") == [None] * 3


def test_short_items_are_never_copies():
    assert verdicts(["Hypothyroidism"], "Hypothyroidism") == [None]


def test_prompt_inputs_are_the_case_as_rendered_even_when_cut():
    user = messages(EXAMPLE)[-1]["content"]
    assert BENCHMARK.prompt_inputs(EXAMPLE, user) == [
        EXAMPLE["profile"], EXAMPLE["history"], RECORD, EXAMPLE["segments"]["radiology"],
        EXAMPLE["segments"]["labs"]]
    cut = prompts.shortened(EXAMPLE, prompts.joined(EXAMPLE)[:200])
    user = messages(cut)[-1]["content"]
    kept = BENCHMARK.prompt_inputs(EXAMPLE, user)
    assert kept[2] == cut["segments"]["record"] and len(kept[2]) < len(RECORD)
    found = copying.find_copy(RECORD[:150], copying.Prompt.of(messages(cut)), kept)
    assert found is not None and found.kind == "input"


def careful(items: list[Item], output: str, floor: float | None, kind: str = "diagnoses"):
    scorer = scoring.Scorer(kind, scoring.settings({"threshold": floor}), {})
    return scorer.careful(items, output, decisions.shown(kind, EXAMPLE, messages(EXAMPLE)))


def test_the_floor_drops_far_matches_and_keeps_their_literal_codes():
    items = [Item("Pneumonia", ("J18.9",), "embedding", 0.8),
             Item("Acute Myeloid Leukemia", ("D64.9",), "embedding", 0.34),
             Item("J18.9", ("J18.9",), "code")]
    found = careful(items, "x", 0.5)
    assert [(i.codes, i.how) for i, _ in found] == [
        (("J18.9",), "embedding"), ((), "none"), (("J18.9",), "code")]
    assert found[1][1]["literal_codes"] == ["D64.9"] and "below the floor" in found[1][1]["why"]
    assert [i.codes for i, _ in careful(items, "x", None)] == [i.codes for i in items]


def test_rows_keep_the_literal_reading_where_it_differs(monkeypatch):
    line = ("72 y/o man with hypothyroidism and osteoarthritis presenting with 3 days of fever "
            "to 102")
    literal = [[Item(line, ("E03.9",), "embedding", 0.45), Item("Pneumonia", ("J18.9",),
                                                                "title", 1.0)],
               [Item("J18.9", ("J18.9",), "code")]]

    class Fake:
        embeddings_key = None

        def map_all(self, texts):
            return literal

    scorer = scoring.Scorer("diagnoses", scoring.settings({}), {})
    monkeypatch.setattr(scoring.Scorer, "mapper", lambda self: Fake())
    seen = [decisions.shown("diagnoses", EXAMPLE, messages(EXAMPLE)), None]
    rows, summary = scorer.score(["a", "b"], [["J18.9", "E03.9"], ["J18.9"]],
                                 [f"{line}\nPneumonia", "J18.9"], seen)
    assert rows[0]["codes"] == ["J18.9"] and rows[0]["literal"]["codes"] == ["E03.9", "J18.9"]
    assert rows[0]["items"][0]["how"] == "no_decision" and rows[0]["items"][0]["rule"] == "record"
    assert "literal" not in rows[1]
    assert [(i["codes"], i["how"]) for i in rows[0]["literal"]["items"]] == [
        (["E03.9"], "embedding"), (["J18.9"], "title")]
    careful, literally = get_benchmark("clibench").reading(rows[0], {"task": "diagnoses"}
                                                           ).judgements
    assert careful.details[0][1].startswith(f"{line} → no code (no_decision, similarity 0.45: ")
    assert literally.name == "literal" and literally.read == "E03.9, J18.9"
    assert literally.details == (("item", f"{line} → E03.9 (embedding, similarity 0.45)"),
                                 ("item", "Pneumonia → J18.9 (title, similarity 1)"))
    assert summary["literal"]["average"]["recall"] > summary["average"]["recall"]
    again = scoring.summarize_rows("diagnoses", rows)
    assert again["literal"]["levels"] == summary["literal"]["levels"]
    assert again["levels"] == summary["levels"]


def test_the_benchmark_names_its_literal_reading():
    assert BENCHMARK.literal_reading and "nearest code" in BENCHMARK.literal_reading


@pytest.mark.parametrize("kind", ["diagnoses", "prescriptions"])
def test_decision_lists(kind):
    texts = decisions.case_texts(EXAMPLE)
    found = decisions.decision_lists(kind, EXAMPLE, texts)
    if kind == "diagnoses":
        assert EXAMPLE["history"] in found and "- Hypothyroidism" in "\n".join(found)
    else:
        assert found == ["Levothyroxine Sodium 75 mcg PO DAILY\nAcetaminophen 650 mg PO "
                         "Q6H:PRN pain"]


def test_the_allergen_after_the_copied_allergy_line_is_no_prescription():
    output = "Penicillins\nPenicillin\nCeftriaxone"
    assert verdicts(["Penicillins", "Penicillin", "Ceftriaxone"], output,
                    kind="prescriptions") == ["record", "allergy", None]
    # without the copied line, a drug's name alone may be an order (a wrong one)
    assert verdicts(["Penicillin", "Ceftriaxone"], "Penicillin\nCeftriaxone",
                    kind="prescriptions") == [None, None]
    # entries of one line, each with its gloss; the sulfonamides are the allergy's
    sulfa = {**EXAMPLE, "segments": {**EXAMPLE["segments"], "record": RECORD.replace(
        "Penicillins", "Sulfa (Sulfonamide Antibiotics) / Codeine")}}
    items = ["Sulfa (Sulfonamide Antibiotics) / Codeine", "Sulfonamides", "Codeine sulfate"]
    assert verdicts(items, "\n".join(items), kind="prescriptions", example=sulfa) == [
        "record", "allergy", None]


def test_allergy_lines_are_read_for_prescriptions_only_and_none_is_no_allergen():
    texts = decisions.case_texts(EXAMPLE)
    assert decisions.allergies("prescriptions", texts) == ["Penicillins"]
    assert decisions.allergies("diagnoses", texts) == []
    none = RECORD.replace("Penicillins", "No Known Allergies / Adverse Drug Reactions")
    assert decisions.allergies("prescriptions", [none]) == []


def test_a_title_that_names_the_opposite_is_no_code():
    items = [Item("Hypoglycemia", ("E11.65",), "embedding", 0.57),
             Item("Hyperglycemia in type 2 diabetes", ("E11.65",), "embedding", 0.8)]
    found = careful(items, "x", 0.5)
    assert [(i.codes, i.how) for i, _ in found] == [((), "none"), (("E11.65",), "embedding")]
    assert found[0][1]["literal_codes"] == ["E11.65"] and "hyperglycemia" in found[0][1]["why"]
