"""Copied prompt text (metrics/copying.py): word runs, prompt parts, the kind of a copy."""

from __future__ import annotations

from clineval.metrics.copying import (
    Prompt,
    copied_share,
    edits,
    find_copy,
    near,
    shown_inputs,
    words,
)

MESSAGES = [
    {"role": "system", "content": "You rewrite radiology sentences in plain words."},
    {"role": "user", "content": "Sentence: The bones of the left hand are unremarkable."},
    {"role": "assistant", "content": "The bones of the left hand look normal."},
    {"role": "user", "content": 'Sentence: The heart and mediastinum are unremarkable.\n'
                                'Answer in one sentence, for example "The lungs are clear of '
                                'any disease today."'},
]
INPUT = "The heart and mediastinum are unremarkable."


def test_words_are_lower_case_without_punctuation_and_cjk_characters_count_one_each():
    assert words("The Heart, and (mediastinum)!") == ["the", "heart", "and", "mediastinum"]
    assert words("2型糖尿病的年龄") == ["2", "型", "糖", "尿", "病", "的", "年", "龄"]


def test_a_prompt_splits_into_system_exemplar_turns_and_the_final_user_message():
    prompt = Prompt.of(MESSAGES)
    assert prompt.system.startswith("You rewrite")
    assert prompt.exemplar_inputs == ("Sentence: The bones of the left hand are unremarkable.",)
    assert prompt.exemplar_answers == ("The bones of the left hand look normal.",)
    assert prompt.user.startswith("Sentence: The heart")
    assert Prompt.of([{"role": "user", "content": "x"}]) == Prompt("", "x")


def test_an_echo_of_the_input_is_an_input_copy():
    found = find_copy("The heart and mediastinum are unremarkable.", Prompt.of(MESSAGES), [INPUT])
    assert found is not None and found.kind == "input" and found.share == 1.0


def test_an_exemplar_answer_and_the_format_example_are_found_as_such():
    prompt = Prompt.of(MESSAGES)
    exemplar = find_copy("The bones of the left hand look normal.", prompt, [INPUT])
    assert exemplar is not None and exemplar.kind == "exemplar"
    example = find_copy("The lungs are clear of any disease today.", prompt, [INPUT])
    assert example is not None and example.kind == "instruction"


def test_a_rewrite_in_own_words_and_a_short_label_are_no_copies():
    prompt = Prompt.of(MESSAGES)
    assert find_copy("The heart and the middle of the chest look normal.", prompt, [INPUT]) is None
    assert find_copy("normal", prompt, [INPUT]) is None


def test_half_the_words_copied_is_the_threshold():
    source = ["one two three four five six seven eight nine ten"]
    assert copied_share("one two three four five alpha beta gamma delta epsilon", source) == 0.5
    assert copied_share("one two three four alpha beta gamma delta epsilon zeta", source) == 0.0


def test_shown_inputs_are_the_example_texts_the_message_shows_not_its_gold():
    example = {"id": "x", "sentence": INPUT, "reference": "The heart looks normal in size.",
               "options": ["Option one is long enough here", "no"]}
    user = MESSAGES[-1]["content"] + "\nOption one is long enough here"
    assert shown_inputs(example, user) == [INPUT, "Option one is long enough here"]


FINDINGS = ("Heart size normal. Cardiomediastinal contours unremarkable. Lungs are clear.")


def test_a_misspelt_word_does_not_break_a_copied_run():
    # the tester's case: one typo left runs of five on both sides too short (5 of 9 words)
    typo = "Heart size normal. Cardiomediastal contours unremarkable. Lungs are clear."
    assert copied_share(typo, [FINDINGS]) == 1.0
    found = find_copy(typo, Prompt("", "Report: " + FINDINGS), [FINDINGS])
    assert found is not None and found.kind == "input" and found.share == 1.0


def test_only_long_words_within_two_edits_are_misspellings():
    assert edits("cardiomediastal", "cardiomediastinal", 2) == 2
    assert near("cardiomediastal", "cardiomediastinal")
    assert not near("effusion", "effusion")  # equal words are no misspelling
    assert not near("left", "lift") and not near("lungs", "lung")  # short words
    assert not near("123456", "123457")  # numbers
    # words of opposite meaning differ in their opening, however few the edits
    assert not near("normal", "abnormal") and not near("hypokalemia", "hyperkalemia")
    assert not near("hypertension", "hypotension") and not near("stable", "unstable")
    assert not near("effusion", "infusions")  # three edits
    # one misspelling per run: two in the same five words break it
    assert copied_share("Hart size normel. Cardiomediastinal contours", [FINDINGS]) == 0.0


NOTE = ("A 54-year-old man presents with vomiting for two days. Sodium 140 mEq/L, chloride 104 "
        "mEq/L, bicarbonate 35 mEq/L. He takes no medication and denies alcohol use.")
QUESTION = "What is the patient's anion gap in terms of mEq/L?"
MEDCALC = [{"role": "system", "content": "You are a helpful assistant for calculating a score."},
           {"role": "user", "content": f"Here is the patient note:\n{NOTE}\n\nHere is the task:\n"
                                       f"{QUESTION}\n\nPlease output in JSON."}]


def test_an_answer_that_restates_the_question_is_no_copy():
    prompt = Prompt.of(MEDCALC)
    answer = "The patient's anion gap in terms of mEq/L is 1."
    assert find_copy(answer, prompt, [NOTE, QUESTION]) is not None  # without the question known
    assert find_copy(answer, prompt, [NOTE, QUESTION], restated=[QUESTION]) is None


def test_a_pasted_note_stays_a_copy_when_the_question_is_restated():
    prompt = Prompt.of(MEDCALC)
    pasted = f"The patient's anion gap in terms of mEq/L is: {NOTE}"
    found = find_copy(pasted, prompt, [NOTE, QUESTION], restated=[QUESTION])
    assert found is not None and found.kind == "input"
    assert found.total == found.share < 1.0  # the restated words count for no kind
    assert find_copy(NOTE, prompt, [NOTE, QUESTION], restated=[QUESTION]).share == 1.0


def test_medcalc_marks_a_pasted_note_but_not_a_restated_question():
    from clineval.benchmarks import get_benchmark
    from clineval.workflow.steps.entry import mark_copies

    bench = get_benchmark("medcalc")
    example = {"id": "1", "note": NOTE, "question": QUESTION}
    generations = [{"id": i, "output": o, "messages": MEDCALC} for i, o in (
        ("1", "The patient's anion gap in terms of mEq/L is 1."), ("2", NOTE))]
    rows = [{"id": "1"}, {"id": "2"}]
    mark_copies(bench, [example, {**example, "id": "2"}], generations, rows)
    assert rows[0]["copied"] is None
    assert rows[1]["copied"]["kind"] == "input"
    assert bench.restated_texts({"id": "x"}) == []
