"""Fitting requests into the context: the cut field, the record, errors, token counters."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clineval.inference import tiny_model
from clineval.inference.context import (
    ContextLimitError,
    TruncationPolicy,
    fit_to_context,
)
from clineval.inference.tokens import ApproxTokenCounter, ChatTokenCounter

INSTRUCTIONS = 'You are a careful clinician. Answer as JSON: {"answer": ...}.'


def render(fields):
    body = "\n".join(f"{name.upper()}: {text}" for name, text in sorted(fields.items()))
    return [{"role": "system", "content": INSTRUCTIONS}, {"role": "user", "content": body}]


def words(messages):
    """A monotone toy tokenizer: one token per word plus two per message."""
    return sum(len(m["content"].split()) + 2 for m in messages)


class Counting:
    def __init__(self, count):
        self.count = count
        self.calls = 0

    def __call__(self, messages):
        self.calls += 1
        return self.count(messages)


def test_short_request_is_untouched():
    fields = {"note": "BP 120/80.", "question": "MAP?"}
    messages, record = fit_to_context("e1", fields, render, words, 1000, 100)
    assert record is None
    assert messages == render(fields)


def test_longest_field_is_cut_from_the_end_and_recorded():
    note = " ".join(f"w{i}" for i in range(500))
    fields = {"note": note, "question": "What is the score?"}
    messages, record = fit_to_context("e2", fields, render, words, 200, 50)
    assert words(messages) <= 150
    assert record is not None
    assert record.field == "note"
    assert record.cut_from == "end"
    user = messages[1]["content"]
    kept = user.split("NOTE: ", 1)[1].split("\nQUESTION:")[0]
    assert note.startswith(kept)
    assert "QUESTION: What is the score?" in user
    assert messages[0]["content"] == INSTRUCTIONS
    assert record.chars_cut == len(note) - len(kept)
    assert record.original_tokens == 500
    assert record.kept_tokens == len(kept.split())
    assert record.request_tokens == words(messages)
    assert record.budget == 150
    # maximal: one more character of the note would not fit
    longer = render({**fields, "note": note[: len(kept) + 1]})
    assert words(longer) > 150 or len(kept) == len(note)


def test_cut_from_start_keeps_the_end_of_a_named_field():
    fields = {"note": "a " * 300 + "LAST", "history": "x " * 400}
    policy = TruncationPolicy(field="note", cut_from="start")
    messages, record = fit_to_context("e3", fields, render, words, 700, 100, policy)
    assert record is not None and record.field == "note"
    assert "LAST" in messages[1]["content"]
    assert messages[1]["content"].count("x") == 400  # the longer field was left alone


def test_binary_search_counts_logarithmically():
    counter = Counting(words)
    note = "word " * 20_000
    fit_to_context("e4", {"note": note}, render, counter, 1000, 100)
    assert counter.calls <= 2 + len(note).bit_length() + 1


def test_error_when_even_an_empty_field_does_not_fit():
    fields = {"note": "long " * 100, "question": "q " * 300}
    with pytest.raises(ContextLimitError, match=r"example ex-9: .*'note' empty.*budget is 200"):
        fit_to_context("ex-9", fields, render, words, 250, 50, TruncationPolicy(field="note"))


def test_error_when_output_leaves_no_room():
    with pytest.raises(ContextLimitError, match="example e5: max_tokens=512"):
        fit_to_context("e5", {"note": "x"}, render, words, 512, 512)


def test_unknown_policy_field_and_keys_are_refused():
    with pytest.raises(ContextLimitError, match="'summary' is not among"):
        fit_to_context(
            "e6", {"note": "x " * 50}, render, words, 20, 5, TruncationPolicy(field="summary")
        )
    with pytest.raises(ValueError, match="unknown key"):
        TruncationPolicy.from_config({"side": "end"})
    assert TruncationPolicy.from_config({"cut_from": "start"}).cut_from == "start"


field_text = st.text(alphabet=st.sampled_from("ab c\n"), max_size=400)


@settings(max_examples=200, deadline=None)
@given(
    fields=st.dictionaries(
        st.sampled_from(["note", "question", "history"]), field_text, min_size=1
    ),
    max_model_len=st.integers(min_value=20, max_value=400),
    max_tokens=st.integers(min_value=1, max_value=19),
    cut_from=st.sampled_from(["end", "start"]),
)
def test_property_truncated_request_fits_and_keeps_the_rest(
    fields, max_model_len, max_tokens, cut_from
):
    count = ApproxTokenCounter(chars_per_token=2.0)
    policy = TruncationPolicy(cut_from=cut_from)
    try:
        messages, record = fit_to_context(
            "p", fields, render, count, max_model_len, max_tokens, policy
        )
    except ContextLimitError:
        name = max(fields, key=lambda k: len(fields[k]))
        assert count(render({**fields, name: ""})) > max_model_len - max_tokens
        return
    assert count(messages) <= max_model_len - max_tokens
    if record is None:
        assert messages == render(fields)
        return
    original = fields[record.field]
    kept_len = len(original) - record.chars_cut
    kept = original[:kept_len] if cut_from == "end" else original[len(original) - kept_len :]
    assert messages == render({**fields, record.field: kept})
    assert record.field == max(fields, key=lambda k: len(fields[k]))
    assert record.chars_cut > 0
    assert record.kept_tokens <= record.original_tokens


def test_approx_counter_is_documented_formula():
    counter = ApproxTokenCounter(chars_per_token=4.0, per_message=4, per_request=3)
    messages = [{"role": "user", "content": "x" * 10}, {"role": "system", "content": "y" * 6}]
    assert counter(messages) == 4 + 8 + 3
    with pytest.raises(ValueError, match="positive"):
        ApproxTokenCounter(chars_per_token=0)


def test_chat_token_counter_matches_the_chat_template(tmp_path):
    tokenizer = tiny_model.build_tokenizer()
    tokenizer.save_pretrained(tmp_path)
    counter = ChatTokenCounter(tmp_path)
    messages = [{"role": "user", "content": "héllo"}]
    prompt = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    expected = len(tokenizer(prompt, add_special_tokens=False)["input_ids"])
    assert counter(messages) == expected
    assert counter([{"role": "user", "content": "héllo!"}]) == expected + 1
