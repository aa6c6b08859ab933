"""Raw model output -> prediction, per CLUE dataset; never raises on model text.

Chain of thought: the CoT templates ask for a last line starting with ``Final answer:``; the answer
is what follows the last such marker. Without a marker the whole output is the answer, so the same
extraction serves every mode.

LongHealth has two readings (docs/clue.md, "Copied text and readings"): the paper's literal one,
:func:`option_letter` (the letter after "The correct answer is", whatever follows it), and the
careful one, :func:`option_answer`, which also reads the option text the prompt asks for after
the letter and its colon: a text that is not the chosen option's, or a copy of the prompt's own
format example, is no answer. MeDiSumCode has two as well: the paper's, :func:`code_list` (every
code-shaped token), and the careful one, :func:`code_answer`: codes that repeat an exemplar's
answer are no answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from clineval.metrics.codes import extract_codes
from clineval.metrics.copying import words

#: The marker the CoT templates ask for (conf/templates/clue.yaml).
ANSWER_MARKER = "Final answer:"
NLI_LABELS = ("entailment", "neutral", "contradiction")
#: The statuses of an output from which an answer was read.
ANSWERED = frozenset({"label", "leading_label", "phrase", "bare_letter", "codes"})
#: Statuses of an answer that is not credited (the careful reading): the answer repeats an
#: answer the prompt shows (LongHealth: its format example, letter and text; MeDiSumCode: an
#: exemplar's codes), or (LongHealth) its text is not the letter's option.
COPIED_EXAMPLE = "copied_example"
TEXT_MISMATCH = "text_mismatch"
#: Status of an answer that gives two different labels or letters: no answer.
CONFLICTING = "conflicting"
#: The format example of the shipped LongHealth template (conf/templates/clue.yaml, the paper's
#: Figure 12): the one to look for when the prompt is not known (``clineval score`` on outputs
#: made elsewhere). With the prompt, the examples are read from it (:func:`format_examples`).
TEMPLATE_EXAMPLES = (("C", "Acute bronchitis."),)

_MARKER = re.compile(re.escape(ANSWER_MARKER), re.IGNORECASE)
_LABEL = re.compile(r"\b(entailment|neutral|contradiction)\b", re.IGNORECASE)
_LEADING = re.compile(r"(entailment|neutral|contradiction)\W*?(?:[.:;,!)\n]|$)", re.IGNORECASE)
#: A label given as an answer: it opens the text, a line or a sentence (after an answer label
#: such as "Label:" or "Answer:", if any) and ends there ("Entailment.", "Label: neutral").
_GIVEN = re.compile(
    r"(?:^|[\n.!?;])[\s*\"'`(\[]*(?:(?:final\s+)?(?:answer|label|prediction|relation)"
    r"(?:\s+is)?\s*[:\-]?\s*)?[*\"'`(\[]*(entailment|neutral|contradiction)[*\"'`)\]]*[ \t]*"
    r"(?=[.!?;,:\n]|$)", re.IGNORECASE)
_PHRASE = re.compile(r"(?i:the\s+correct\s+answer\s+is)\W{0,3}([A-Z])\b")
_BARE_LETTER = re.compile(r"^\W{0,3}([A-Z])(?:\s*[:.)]|\s*$)")
#: A line that starts like an option line ("B: Asthma", "B. Asthma", "B) Asthma").
_LISTED = re.compile(r"^\W{0,3}([A-Z])\s*[:.)]\s*\S", re.MULTILINE)
#: The option text after a letter: a colon, then the rest of the line.
_AFTER_LETTER = re.compile(r"[ \t*]*:[ \t]*([^\n]*)")
#: A format example in a prompt: the phrase, a letter, a colon and the text up to a quote mark
#: or the line's end ('for example "The correct answer is C: Acute bronchitis."').
_EXAMPLE = re.compile(r"(?i:the\s+correct\s+answer\s+is)\W{0,3}([A-Z])[ \t]*:[ \t]*"
                      r"([^\"'\u201c\u201d\u2018\u2019\n]+)")
_OPTION_LINE = re.compile(r"^\s*([A-Z])\s*:\s*(.*)$")
#: A word of an option text: a number (decimals kept) or a run of letters.
_TEXT_WORD = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+")
#: The shortest word that may stand for a longer one it begins ("fib" for "fibrillation").
_PREFIX = 3
#: The fewest codes of an exemplar's answer that an answer can be told to repeat: one code
#: alone ("I10") may be a choice of the model's own.
_REPEATED_CODES = 2


@dataclass(frozen=True)
class Extraction:
    """``prediction``: label, letter, text or code list (``None``: nothing usable);
    ``status`` says how it was found."""

    prediction: Any
    status: str


def answer_part(output: str) -> tuple[str, bool]:
    """The text after the last ``Final answer:`` marker (stripped), and whether there was one."""
    matches = list(_MARKER.finditer(output))
    if not matches:
        return output.strip(), False
    return output[matches[-1].end() :].strip(), True


def nli_label(output: str) -> Extraction:
    """The one NLI label the answer names; if it names several, the one that opens the answer
    as a sentence of its own ("Contradiction. ... not entailment"). Two different labels each
    given as an answer (a sentence or line of its own: "Label: entailment\nLabel:
    contradiction") contradict each other: no answer (status ``conflicting``)."""
    text, _ = answer_part(output)
    found = [m.group(1).lower() for m in _LABEL.finditer(text)]
    if not found:
        return Extraction(None, "no_label")
    if len(set(found)) == 1:
        return Extraction(found[0], "label")
    if len({m.group(1).lower() for m in _GIVEN.finditer(text)}) > 1:
        return Extraction(None, CONFLICTING)
    leading = _LEADING.match(text.lstrip(" \t\n*\"'`([."))
    if leading:
        return Extraction(leading.group(1).lower(), "leading_label")
    return Extraction(None, "ambiguous")


def option_letter(output: str, choices: list[str] | None) -> Extraction:
    """The capital letter after "The correct answer is" (first occurrence), else a bare leading
    letter. Looser than the CLUE evaluation, which required a colon after the letter; but an
    answer that lists two or more options, a line each ("A: 6 cycles", "B: 2 cycles", ...),
    restates the options and gives no bare letter (status ``listed_options``)."""
    text, _ = answer_part(output)
    allowed = set(choices or "ABCDEF")
    match = _PHRASE.search(text)
    if match:
        letter = match.group(1)
        return Extraction(letter, "phrase") if letter in allowed else Extraction(None, "bad_letter")
    if len({m.group(1) for m in _LISTED.finditer(text)}) >= 2:
        return Extraction(None, "listed_options")
    match = _BARE_LETTER.match(text)
    if match and match.group(1) in allowed:
        return Extraction(match.group(1), "bare_letter")
    return Extraction(None, "no_answer")


def text_words(text: str) -> tuple[str, ...]:
    """An option text's words in lower case: numbers whole ("13.9"), punctuation dropped."""
    return tuple(w.lower() for w in _TEXT_WORD.findall(text))


def _same_word(a: str, b: str) -> bool:
    """Equal, or (words of letters) the shorter, of at least 3 letters, begins the longer: an
    abbreviation or a word cut by the token budget. Numbers must be equal."""
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    return short.isalpha() and long_.isalpha() and len(short) >= _PREFIX \
        and long_.startswith(short)


def _within(part: Sequence[str], whole: Sequence[str]) -> bool:
    return all(any(_same_word(w, v) for v in whole) for w in part)


def names_option(text: Sequence[str], option: Sequence[str]) -> bool:
    """Whether an answer's text (its words) names the option (its words): every word of the
    option is in the text, or every word of the text is in the option (a word standing for
    another as :func:`_same_word` says), in any order."""
    return _within(option, text) or _within(text, option)


def option_texts(example: Mapping[str, Any]) -> dict[str, str]:
    """A LongHealth example's options, letter -> text, from its ``options`` field."""
    found = {}
    for line in str(example.get("fields", {}).get("options", "")).splitlines():
        match = _OPTION_LINE.match(line)
        if match:
            found[match.group(1)] = match.group(2).strip()
    return found


@dataclass(frozen=True)
class ShownAnswer:
    """An answer the prompt shows in the requested format: the instruction's format example
    (``kind`` "instruction") or an exemplar's answer ("exemplar")."""

    kind: str
    letter: str
    text: str

    @property
    def words(self) -> tuple[str, ...]:
        return text_words(self.text)


def format_examples(messages: Sequence[Mapping[str, str]] | None) -> tuple[ShownAnswer, ...]:
    """The answers a chat prompt shows in the requested format ("The correct answer is X:
    text"): in its system and final user messages (the instruction's examples) and in its
    exemplar answers (assistant turns). Without messages, the shipped template's example
    (:data:`TEMPLATE_EXAMPLES`)."""
    if messages is None:
        return tuple(ShownAnswer("instruction", letter, text) for letter, text in TEMPLATE_EXAMPLES)
    last_user = max((i for i, m in enumerate(messages) if m["role"] == "user"), default=-1)
    found: list[ShownAnswer] = []
    for i, message in enumerate(messages):
        kind = "exemplar" if message["role"] == "assistant" else "instruction"
        if kind == "instruction" and message["role"] == "user" and i != last_user:
            continue  # an exemplar's question
        for match in _EXAMPLE.finditer(message["content"]):
            shown = ShownAnswer(kind, match.group(1), match.group(2).strip())
            if shown.words and shown not in found:
                found.append(shown)
    return tuple(found)


@dataclass(frozen=True)
class OptionAnswer:
    """LongHealth's two readings of one output: ``careful`` (the default) and ``literal`` (the
    paper's), the option ``text`` given after the letter ("" when none) and, when the answer
    repeats a shown one, that answer (``copied``)."""

    careful: Extraction
    literal: Extraction
    text: str = ""
    copied: ShownAnswer | None = None


def option_answer(output: str, example: Mapping[str, Any],
                  shown: Iterable[ShownAnswer] = ()) -> OptionAnswer:
    """The careful reading of a LongHealth answer (docs/clue.md, "Copied text and readings").
    The letter is read as the paper reads it (:func:`option_letter`); two different letters
    after "The correct answer is" contradict each other: no answer (``conflicting``; the
    paper's reading takes the first). The text after the letter and a colon, to the line's
    end, is then checked against the letter's option:

    1. no text (a bare letter, "The correct answer is C."): the letter;
    2. the text is the option's text (words equal): the letter;
    3. the letter and text repeat an answer the prompt shows (``shown``: its format example,
       an exemplar's answer): no answer (``copied_example``);
    4. the text names the option (:func:`names_option`): the letter;
    5. otherwise the text is not the letter's option: no answer (``text_mismatch``).
    """
    literal = option_letter(output, example.get("choices"))
    if literal.prediction is None:
        return OptionAnswer(literal, literal)
    if literal.status == "phrase" and len(
            {m.group(1) for m in _PHRASE.finditer(answer_part(output)[0])}) > 1:
        return OptionAnswer(Extraction(None, CONFLICTING), literal)
    text = _text_after_letter(output, literal)
    words = text_words(text)
    if not words:
        return OptionAnswer(literal, literal)
    option = text_words(option_texts(example).get(literal.prediction, ""))
    if words == option:
        return OptionAnswer(literal, literal, text)
    for answer in shown:
        if answer.letter == literal.prediction and answer.words == words:
            return OptionAnswer(Extraction(None, COPIED_EXAMPLE), literal, text, answer)
    if option and names_option(words, option):
        return OptionAnswer(literal, literal, text)
    return OptionAnswer(Extraction(None, TEXT_MISMATCH), literal, text)


def _text_after_letter(output: str, found: Extraction) -> str:
    """The text after the letter :func:`option_letter` read and a colon, to the line's end."""
    text, _ = answer_part(output)
    match = _PHRASE.search(text) if found.status == "phrase" else _BARE_LETTER.match(text)
    if match is None:
        return ""
    after = _AFTER_LETTER.match(text, match.end(1))
    return after.group(1).strip() if after else ""


def code_list(output: str) -> Extraction:
    """ICD-10 codes by the CLUE pattern, dotless, in order, repeats kept."""
    text, _ = answer_part(output)
    codes = extract_codes(text)
    return Extraction(codes, "codes" if codes else "no_codes")


def exemplar_codes(messages: Sequence[Mapping[str, str]] | None
                   ) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The answers of a chat prompt's exemplars (its assistant turns) that give ICD-10 codes:
    each answer's text and its codes (:func:`code_list`). None without the prompt."""
    found = []
    for message in messages or ():
        if message["role"] == "assistant":
            codes = tuple(code_list(message["content"]).prediction)
            if codes:
                found.append((message["content"], codes))
    return tuple(found)


def replayed_answer(text: str, messages: Sequence[Mapping[str, str]] | None) -> str | None:
    """The exemplar answer (an assistant turn of the prompt) that the summary ``text`` only
    replays: its words are that answer's words, once or repeated back to back (lower case,
    punctuation dropped); None when it says anything else, or without the prompt."""
    said = words(text)
    for message in messages or ():
        shown = words(message["content"]) if message["role"] == "assistant" else []
        if shown and said and said == shown * (len(said) // len(shown)):
            return message["content"]
    return None


def repeated_codes(codes: Sequence[str], shown: Iterable[Sequence[str]]
                   ) -> tuple[str, ...] | None:
    """The exemplar answer (its codes) that an answer's ``codes`` repeat: one of at least two
    codes that the answer holds whole, in the same order, where such repeats make at least half
    of the answer's codes (a copy with a few codes of its own around it). None when the answer
    repeats none."""
    covered = [False] * len(codes)
    found: tuple[str, ...] | None = None
    for answer in map(tuple, shown):
        n = len(answer)
        if n < _REPEATED_CODES:
            continue
        for i in range(len(codes) - n + 1):
            if tuple(codes[i:i + n]) == answer:
                covered[i:i + n] = [True] * n
                found = found or answer
    if found is not None and 2 * sum(covered) >= len(codes):
        return found
    return None


@dataclass(frozen=True)
class CodeAnswer:
    """MeDiSumCode's two readings of one output: ``careful`` (the default) and ``literal``
    (the paper's: every code-shaped token), and the exemplar answer the codes repeat
    (``copied``: its text as the prompt shows it), if any."""

    careful: Extraction
    literal: Extraction
    copied: str | None = None


def code_answer(output: str, shown: Iterable[tuple[str, Sequence[str]]] = ()) -> CodeAnswer:
    """The careful reading of a MeDiSumCode answer (docs/clue.md, "Copied text and readings"):
    the paper's codes (:func:`code_list`), unless they repeat an exemplar's answer
    (``shown``: :func:`exemplar_codes`; :func:`repeated_codes`): then no codes (status
    ``copied_example``). The codes of another patient's answer are no answer for this one."""
    literal = code_list(output)
    shown = tuple(shown)
    repeated = repeated_codes(literal.prediction, (codes for _, codes in shown))
    if repeated is None:
        return CodeAnswer(literal, literal)
    text = next(text for text, codes in shown if tuple(codes) == repeated)
    return CodeAnswer(Extraction([], COPIED_EXAMPLE), literal, text)


def summary_text(output: str) -> Extraction:
    """The answer text; the whole output when there is no marker."""
    text, marked = answer_part(output)
    return Extraction(text, "marked" if marked else "whole_output")


def extract(example: dict[str, Any], output: str) -> Extraction:
    """Dispatch on the example's dataset."""
    dataset = example["dataset"]
    if dataset == "mednli":
        return nli_label(output)
    if dataset.startswith("longhealth_"):
        return option_letter(output, example.get("choices"))
    if dataset == "medisumcode":
        return code_list(output)
    if dataset in ("meqsum", "problem_summary", "medisumqa"):
        return summary_text(output)
    raise ValueError(f"example {example['id']!r}: unknown CLUE dataset {dataset!r}")
