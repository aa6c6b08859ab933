"""Text a model copied from its prompt: the word runs an output shares with the prompt's parts.

A prompt has three kinds of text a model can copy instead of answering (docs/scoring.md,
Copied text):

- ``input``: the example itself as the prompt shows it (a sentence, a note, a record, a question);
- ``exemplar``: an exemplar's text or its answer;
- ``instruction``: the task's wording, with the format example it gives.

Words are compared in lower case without punctuation; a Han, kana or Hangul character is a word
of its own. A word of the output is *copied* when it lies in a run of at least ``run``
consecutive words that also occurs, in that order, in a part; one word of a run may be
*misspelt* (:func:`near`: two long words with the same opening, within :data:`TYPO_EDITS` edits
of each other), so that a typo does not turn a copy into the model's own text. An output is a
copy when at least ``share`` of its words are copied (:func:`find_copy`); it is attributed to
the part that covers most of them, an exemplar before the input before the instruction where
they tie. Outputs shorter than a run are never copies: a label or a number cannot be told
from a copy by its words. Words that restate the question the example asks (``restated``:
"The patient's anion gap in terms of mEq/L is 1." for "What is the patient's anion gap in terms
of mEq/L?") frame an answer: they are never copied. Each benchmark decides what a copy is worth
(docs/scoring.md, "Copied text"); this module only finds it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

#: Bump when :func:`find_copy` or :func:`shown_inputs` decide differently: every score is
#: recomputed (it is part of each scoring identity).
VERSION = "2"
#: The kinds of copied text, in the order that breaks ties.
KINDS = ("exemplar", "input", "instruction")
#: Words in a run (Latin script) and characters in a run (CJK): the defaults of find_copy.
RUN = 5
CJK_RUN = 8
#: The share of an output's words that must be copied for the output to be a copy.
SHARE = 0.5
#: The most edits (insertions, deletions, substitutions) between a misspelt word and the word
#: it stands for, and the fewest letters either must have: shorter words are told apart by a
#: single letter ("is", "as"; "left", "lift").
TYPO_EDITS = 2
TYPO_LETTERS = 6
#: The opening letters a misspelt word keeps: prefixes that turn a word into its opposite
#: ("ab-", "un-", "hypo-"/"hyper-") are no misspelling.
TYPO_OPENING = 4

_CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_WORD = re.compile(f"[{_CJK_CHARS}]|[^\\W_{_CJK_CHARS}]+")
_CJK = re.compile(f"[{_CJK_CHARS}]")


def words(text: str) -> list[str]:
    """``text``'s words in lower case, punctuation dropped; each CJK character a word."""
    return [w.lower() for w in _WORD.findall(text)]


def is_cjk(tokens: Sequence[str]) -> bool:
    """Whether most of ``tokens`` are CJK characters."""
    return bool(tokens) and 2 * sum(1 for t in tokens if _CJK.fullmatch(t)) > len(tokens)


def run_length(tokens: Sequence[str], run: int | None = None) -> int:
    """``run``, else the default for the tokens' script (:data:`RUN` or :data:`CJK_RUN`)."""
    if run is not None:
        return run
    return CJK_RUN if is_cjk(tokens) else RUN


def _grams(tokens: Sequence[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def edits(a: str, b: str, most: int) -> int:
    """The edit distance between ``a`` and ``b``, or ``most + 1`` once it exceeds ``most``."""
    if abs(len(a) - len(b)) > most:
        return most + 1
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        current = [i]
        for j, y in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        if min(current) > most:
            return most + 1
        previous = current
    return min(previous[-1], most + 1)


def near(a: str, b: str) -> bool:
    """Whether ``a`` is ``b`` misspelt: words of letters, each of at least
    :data:`TYPO_LETTERS`, that open with the same :data:`TYPO_OPENING` letters and lie within
    :data:`TYPO_EDITS` edits ("cardiomediastal" for "cardiomediastinal"). Numbers and short
    words must be equal; so must words that differ in their opening, where the words of
    opposite meaning differ ("normal", "abnormal"; "hypokalemia", "hyperkalemia")."""
    return (a != b and len(a) >= TYPO_LETTERS and len(b) >= TYPO_LETTERS and a.isalpha()
            and b.isalpha() and a[:TYPO_OPENING] == b[:TYPO_OPENING]
            and edits(a, b, TYPO_EDITS) <= TYPO_EDITS)


def _runs(tokens: Sequence[str], n: int) -> dict[tuple[str | None, ...], set[str]]:
    """Each run of ``n`` tokens with one word left open (None), mapped to the words found
    there: the index that finds a run with one misspelt word."""
    found: dict[tuple[str | None, ...], set[str]] = {}
    for i in range(len(tokens) - n + 1):
        gram = tuple(tokens[i : i + n])
        for k in range(n):
            if len(gram[k]) >= TYPO_LETTERS:
                found.setdefault((*gram[:k], None, *gram[k + 1:]), set()).add(gram[k])
    return found


def copied_words(output: Sequence[str], sources: Iterable[str], run: int) -> list[bool]:
    """Per word of ``output``: whether it lies in a run of ``run`` words found in a source,
    one of them perhaps misspelt (:func:`near`)."""
    grams: set[tuple[str, ...]] = set()
    open_runs: dict[tuple[str | None, ...], set[str]] = {}
    for source in sources:
        tokens = words(source)
        grams |= _grams(tokens, run)
        for key, found in _runs(tokens, run).items():
            open_runs.setdefault(key, set()).update(found)
    marks = [False] * len(output)
    for i in range(len(output) - run + 1):
        gram = tuple(output[i : i + run])
        if gram in grams or any(
                any(near(gram[k], w) for w in open_runs.get((*gram[:k], None, *gram[k + 1:]), ()))
                for k in range(run) if len(gram[k]) >= TYPO_LETTERS):
            for j in range(i, i + run):
                marks[j] = True
    return marks


def copied_share(output: str, sources: Iterable[str], run: int | None = None) -> float:
    """The share of ``output``'s words copied from ``sources`` (0 for an empty output)."""
    tokens = words(output)
    if not tokens:
        return 0.0
    marks = copied_words(tokens, sources, run_length(tokens, run))
    return sum(marks) / len(tokens)


@dataclass(frozen=True)
class Prompt:
    """A chat request's parts: the system message, the exemplar turns (user, assistant) and
    the final user message. A completion request (one message) is all ``user``."""

    system: str
    user: str
    exemplar_inputs: tuple[str, ...] = ()
    exemplar_answers: tuple[str, ...] = ()

    @classmethod
    def of(cls, messages: Sequence[Mapping[str, str]]) -> Prompt:
        system = "\n".join(m["content"] for m in messages if m["role"] == "system")
        turns = [m for m in messages if m["role"] != "system"]
        if not turns:
            return cls(system, "")
        before = turns[:-1]
        return cls(
            system, turns[-1]["content"],
            tuple(m["content"] for m in before if m["role"] == "user"),
            tuple(m["content"] for m in before if m["role"] == "assistant"),
        )


@dataclass(frozen=True)
class Copy:
    """An output found to be a copy: of which ``kind`` of text, and the share of its words
    copied from that kind (``share``) and from the whole prompt (``total``)."""

    kind: str
    share: float
    total: float

    def as_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "share": round(self.share, 4), "total": round(self.total, 4)}


def find_copy(output: str, prompt: Prompt, inputs: Sequence[str] = (), *,
              run: int | None = None, share: float = SHARE,
              restated: Sequence[str] = ()) -> Copy | None:
    """The copy ``output`` is, or None. ``inputs``: the example's texts as the prompt shows
    them (else the final user message is all input); the rest of the system and user messages
    is the instruction. A word copied from several kinds counts for the first of
    :data:`KINDS`; a word in a run of ``restated`` (the question the example asks, which an
    answer may repeat as its frame) counts for none."""
    tokens = words(output)
    n = run_length(tokens, run)
    if len(tokens) < n:
        return None
    parts = {
        "exemplar": [*prompt.exemplar_answers, *prompt.exemplar_inputs],
        "input": list(inputs) if inputs else [prompt.user],
        "instruction": [prompt.system, prompt.user],
    }
    framed = copied_words(tokens, restated, n) if restated else [False] * len(tokens)
    taken = list(framed)
    counts: dict[str, int] = {}
    for kind in KINDS:
        marks = copied_words(tokens, parts[kind], n)
        counts[kind] = sum(1 for i, mark in enumerate(marks) if mark and not taken[i])
        taken = [a or b for a, b in zip(taken, marks, strict=True)]
    total = (sum(taken) - sum(framed)) / len(tokens)
    if total < share:
        return None
    kind = max(KINDS, key=lambda k: (counts[k], -KINDS.index(k)))
    return Copy(kind, counts[kind] / len(tokens), total)


def _texts(value: object) -> Iterable[str]:
    """The strings in ``value``: itself, or those of its items (lists and mappings, nested)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _texts(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _texts(item)


def shown_inputs(example: Mapping[str, object], user: str) -> list[str]:
    """The example's texts that the final user message shows (whole, or cut to fit: its
    opening): each string of at least ``RUN`` words in its fields, nested ones included. Gold
    fields are not shown, so they are not inputs."""
    found: list[str] = []
    for text in _texts(example):
        if len(words(text)) >= RUN and text.strip()[:60] in user and text not in found:
            found.append(text)
    return found
