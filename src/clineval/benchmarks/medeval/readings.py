"""What a careful grader reads in a MedEval output, and what the paper's literal reading reads.

The paper's App. D counts as *unqualified* an output that does not answer: one that repeats
its input sentence ("Returned Text: median sternotomy wires appear intact.", D.1's first
example; "aorta appears unchanged as compared to the study." for a rewrite) or returns an
irrelevant sentence ("[Lingula] scarring."). Read literally, its rules credit such copies: a
label word inside a repeated sentence is "only one of normal or abnormal", and BLEU or ROUGE
score a repeated sentence or report against the reference as written. Here (docs/medeval.md,
"Copied text and readings"):

- **Frames.** An output that restates the prompt's frame (``Sentence: … Label: …``,
  ``Report: … Codes: …``, ``Original sentence: "…" Rewritten sentence: "…"``) is answered in
  the frame's answer slot. A restated input that is an *exemplar's* (its sentence or report,
  not this example's) is the exemplar replayed: the output answers another example
  (unqualified).
- **Labels** (abnormality, ambiguity): the input sentence repeated in the answer is removed
  before the label words are counted; nothing left: unqualified. An answer slot repeated for
  the same example (``Label: normal`` then ``Label: abnormal``) is read with the first:
  two different labels are no answer, the same label twice is that label.
- **Codes**: the pairs are read from the ``Codes:`` slot of a restated report frame, and from
  each slot that repeats it for the same example (a code given two values is no answer).
- **Why not** (``unqualified``): ``empty`` only for an empty output; ``empty slot`` for an
  answer label with nothing after it; ``no slot`` for a restated frame that fills no slot;
  ``echo`` for an output that only restates the input.
- **Rewrites**: unqualified when empty, an *echo* of the input sentence (:func:`same_words`),
  an exemplar's rewrite or sentence (an exemplar whose sentence is not the input's), or
  *irrelevant* (no content word in common with the input sentence).
- **Summaries**: a restated frame without the ``Summary:`` slot (``Report: <text>``) gives its
  text as the summary, unless another frame follows it (reports written one after another
  answer nothing); an output that opens with a label of its own (``Findings:``) gives the
  text after it. Unqualified when the summary repeats the report (:func:`repeats_report`) or
  is an exemplar's report replayed. A summary that is an exemplar's summary is scored as written
  (a stock impression such as "No acute cardiopulmonary process." can be the right summary of
  another report; ROUGE judges it), and flagged ``copied``.

Exemplars are read from the prompt (``generation["messages"]``) by the frame labels of the
task's templates (:func:`shown_prompt`); without messages (``clineval score`` on external
outputs) only the example's own input is known, so exemplar copies are not found, and a
restated frame around another text than the example's own is read as another example answered
(``other frame``): a replayed exemplar and a garbled restatement look the same there.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from clineval.metrics import copying

#: Per task: the label that opens the prompt's input, the labels inside it, the answer label.
FRAMES: dict[str, tuple[str, tuple[str, ...], str]] = {
    "abnormality": ("Sentence:", (), "Label:"),
    "ambiguity": ("Sentence:", (), "Label:"),
    "rewriting": ("Sentence:", ("Diagnostic:",), "Rewrite:"),
    "codes": ("Report:", (), "Codes:"),
    "summarization": ("Report:", (), "Summary:"),
}
#: Words a rewrite may add or drop and still be the same sentence (an echo).
ARTICLES = frozenset({"a", "an", "the"})
#: Words that carry no content: a rewrite that shares no other word with its sentence is
#: irrelevant to it (App. D's "irrelevant sentence").
_FUNCTION_WORDS = (
    "a an the and or but nor of in on at to for from by with without within into onto over "
    "under about as than then there here this that these those it its is are was were be been "
    "being am has have had do does did not no any some all each every other otherwise also "
    "only very more most less least such so can could may might must shall should will would "
    "which who whom whose what when where why how you your we our they their he she his her i "
    "me my us them one"
)
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS.split(" "))
#: The share of a summary's words that lie in runs copied from the report, and the share of the
#: report's words that the summary repeats, above which the summary is the report repeated.
REPEAT_SHARE = 0.8
#: The words a copy may swap between two stretches (on either side) and stay one copy.
SWAPPED = 2
_BREAK = re.compile(r"[.;!?]+(?=\s|$)")
#: Tasks whose answer slot a model may repeat for the same example: every slot is read.
REPEATED_SLOTS = ("abnormality", "ambiguity", "codes")
#: A label a summary may open with in the model's own words, capitalised as a label is
#: (a report's own "IMPRESSION:" stays text): dropped before it is read.
_SUMMARY_LEAD = re.compile(r"^\s*(?:Findings|Impressions?|Report|Summary)\s*:\s*")
_QUOTES = "\"'“”‘’`"


@dataclass(frozen=True)
class Shown:
    """What the prompt showed: each exemplar's input text and answer, in order."""

    exemplar_inputs: tuple[str, ...] = ()
    exemplar_answers: tuple[str, ...] = ()


def shown_prompt(messages: Sequence[Mapping[str, str]] | None, kind: str) -> Shown | None:
    """The exemplars of a MedEval prompt, or None without messages. MedEval renders one user
    message: each exemplar is a line that opens with the input label and holds the answer label
    (``Sentence: … Label: abnormal.``); the last line that opens with the input label is the
    example itself. Exemplar turns of a chat prompt are read as such."""
    if messages is None:
        return None
    prompt = copying.Prompt.of(messages)
    opener, inner, answer = FRAMES[kind]
    inputs, answers = list(prompt.exemplar_inputs), list(prompt.exemplar_answers)
    lines = [line for line in prompt.user.split("\n") if line.startswith(opener)]
    for line in lines[:-1]:
        at = line.find(" " + answer)
        if at < 0:
            continue
        inputs.append(_cut(line[len(opener):at], inner))
        answers.append(line[at + 1 + len(answer):].strip())
    return Shown(tuple(s.strip() for s in inputs), tuple(answers))


def _cut(text: str, labels: Sequence[str]) -> str:
    """``text`` up to the first of ``labels`` (the input without its inner labels)."""
    ends = [at for label in labels if (at := text.find(" " + label)) >= 0]
    return (text[: min(ends)] if ends else text).strip()


# -- comparing texts --------------------------------------------------------------------------
def sentence_words(text: str) -> list[str]:
    """``text``'s words in lower case, articles dropped, with ``|`` where a sentence ends
    (``.``, ``;``, ``!`` or ``?`` before a space or the end; none at the end): the form in
    which a rewrite and its sentence are compared. Other punctuation, quotes and case do not
    count, sentence breaks do (splitting a run-on sentence is a rewrite, App. C's third
    example)."""
    found: list[str] = []
    for part in _BREAK.split(text):
        here = [w for w in copying.words(part) if w not in ARTICLES]
        if here:
            if found:
                found.append("|")
            found += here
    return found


def same_words(a: str, b: str) -> bool:
    """Whether ``a`` says ``b`` in the same words (:func:`sentence_words`; empty: never)."""
    words = sentence_words(a)
    return bool(words) and words == sentence_words(b)


def same_sentences(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` hold the same sentences (:func:`sentence_words`), in any order."""
    def sentences(text: str) -> list[tuple[str, ...]]:
        return sorted(tuple(part.split()) for part in " ".join(sentence_words(text)).split("|"))

    return bool(sentence_words(a)) and sentences(a) == sentences(b)


def content_words(text: str) -> set[str]:
    """The words of ``text`` that carry content: not a function word, not a lone letter."""
    return {w for w in copying.words(text) if w not in FUNCTION_WORDS and len(w) > 1}


def without_echo(text: str, sentence: str) -> tuple[str, bool]:
    """``text`` with every place where it repeats ``sentence`` (its words in order, articles
    aside) cut out, and whether one was found."""
    target = [w for w in copying.words(sentence) if w not in ARTICLES]
    if not target:
        return text, False
    spans = [(m.start(), m.end(), m.group().lower())
             for m in re.finditer(copying._WORD.pattern, text)]
    kept = [(s, e, w) for s, e, w in spans if w not in ARTICLES]
    cuts: list[tuple[int, int]] = []
    i = 0
    while i + len(target) <= len(kept):
        if [w for _, _, w in kept[i:i + len(target)]] == target:
            cuts.append((kept[i][0], kept[i + len(target) - 1][1]))
            i += len(target)
        else:
            i += 1
    for start, end in reversed(cuts):
        text = text[:start] + " " + text[end:]
    return text, bool(cuts)


def aligned_shares(text: str, source: str) -> tuple[float, float]:
    """The shares of ``text``'s words and of ``source``'s words that the two hold in the same
    order, in common stretches of at least :data:`copying.RUN` words, articles aside, a
    misspelt word (:func:`copying.near`) read as the source's word, and a shorter stretch
    counted where at most :data:`SWAPPED` words part it from a counted one ("adenomas, nodules
    or masses" for "adenopathy, nodules or masses" at the end of a repeated report)."""
    ours = [w for w in copying.words(text) if w not in ARTICLES]
    theirs = [w for w in copying.words(source) if w not in ARTICLES]
    if not ours or not theirs:
        return 0.0, 0.0
    known = set(theirs)
    ours = [w if w in known else next((v for v in sorted(known) if copying.near(w, v)), w)
            for w in ours]
    blocks = SequenceMatcher(None, ours, theirs, autojunk=False).get_matching_blocks()[:-1]
    held = [n >= copying.RUN for _, _, n in blocks]
    changed = True
    while changed:  # a short stretch joins a held one across a word or two swapped
        changed = False
        for i in range(len(blocks)):
            if held[i]:
                continue
            near = [j for j in (i - 1, i + 1) if 0 <= j < len(blocks) and held[j]]
            if any(_bridged(blocks[min(i, j)], blocks[max(i, j)]) for j in near):
                held[i] = changed = True
    kept = sum(n for (_, _, n), h in zip(blocks, held, strict=True) if h)
    return kept / len(ours), kept / len(theirs)


def _bridged(first: tuple[int, int, int], second: tuple[int, int, int]) -> bool:
    """Whether two matching stretches (text start, source start, length) are one copy with at
    most :data:`SWAPPED` words between them on either side."""
    return (second[0] - first[0] - first[2] <= SWAPPED
            and second[1] - first[1] - first[2] <= SWAPPED)


def repeats_report(summary: str, report: str) -> bool:
    """Whether ``summary`` is ``report`` repeated: the same words (:func:`same_words`), or at
    least :data:`REPEAT_SHARE` of its words held in order with the report in stretches of
    :data:`copying.RUN` words and at least that share of the report's words repeated in them
    (runs of copied words, :func:`copying.copied_share`, or an alignment that sets articles and
    a misspelt word aside, :func:`aligned_shares`: "The lungs are clear, cardiomediastal
    silhouette …" repeats "The lungs are clear. The cardiomediastinal silhouette …"). An
    extractive summary (a sentence or two of the report) repeats less of it."""
    if same_words(summary, report):
        return True
    if (copying.copied_share(summary, [report]) >= REPEAT_SHARE
            and copying.copied_share(report, [summary]) >= REPEAT_SHARE):
        return True
    return min(aligned_shares(summary, report)) >= REPEAT_SHARE


def _mostly(text: str, source: str) -> bool:
    """Whether ``text`` is ``source`` restated: the same words, or most of its words copied."""
    return same_words(text, source) or copying.copied_share(text, [source]) >= copying.SHARE


# -- frames ---------------------------------------------------------------------------------
#: The frame a model writes around a rewrite in its own words, as the template's labels.
_OWN_REWRITE_FRAME = (
    (re.compile(r"^\s*(?:the\s+)?original(?:\s+sentence)?\s*:", re.IGNORECASE), "Sentence:"),
    (re.compile(r"(?:^|(?<=\s))(?:the\s+)?(?:rewritten(?:\s+sentence)?|rewrite)\s*:",
                re.IGNORECASE), "Rewrite:"),
)


@dataclass(frozen=True)
class Framed:
    """An output read through the prompt's frame: the answer text (after the answer label when
    the output restates a frame or puts text before the label) and, when the output answers no
    question of this example, why (``copy``): ``input`` (it restates the example's input and
    fills no slot), ``frame`` (it restates another text, not an exemplar's, and fills no slot),
    ``exemplar`` (it restates an exemplar's input: the exemplar replayed) or, where the prompt
    is not known, ``other`` (it restates a frame around another text and fills its slot: a
    replayed exemplar or a garbled restatement, which only the prompt tells apart).
    ``restated``: the input the output restates (without the frame's inner labels); ``slot``:
    whether it reached the answer label of a restated frame (True also when it restates
    none); ``more``: the answers of further slots for the same example (the answer label
    repeated before another frame opens; label and code tasks only)."""

    answer: str
    copy: str | None = None
    restated: str = ""
    slot: bool = True
    more: tuple[str, ...] = ()


def _label_at(text: str, label: str, start: int = 0) -> int:
    """Where ``label`` (as the template writes it) starts in ``text`` at or after ``start``,
    at the start or after white space; -1 if nowhere."""
    found = re.compile(rf"(?:^|(?<=\s)){re.escape(label)}").search(text, start)
    return -1 if found is None else found.start()


def own_frames(output: str) -> str:
    """A rewrite's output with the frame a model writes in its own words (``Original
    sentence: "…" Rewritten sentence: "…"``) given the template's labels (``Sentence:``,
    ``Rewrite:``)."""
    for pattern, label in _OWN_REWRITE_FRAME:
        output = pattern.sub(label, output)
    return output


def read_frame(output: str, kind: str, own: str = "", shown: Shown | None = None) -> Framed:
    """The answer ``output`` gives for the example whose input is ``own``.

    An output that opens with the input label (``Sentence:``, ``Report:``) restates a frame:
    the answer is what follows its answer label (``Label:``, ``Rewrite:``, ``Codes:``,
    ``Summary:``); no answer label before the input label opens another frame: no answer. A
    restated report frame with no ``Summary:`` label and no frame after it gives its text as
    the summary (``slot`` False), unless it is an exemplar's report. An output that does not
    open a frame ends where one opens; text before its answer label
    is read as a restated input too. A restated input that is an exemplar's and not the
    example's own is the exemplar replayed (``copy``: ``exemplar``); any other (the example's
    own, or one a grader cannot place: a garbled restatement) is the echoed frame, and its slot
    is read. Without the prompt (``shown`` None) a restated frame around another text than the
    example's own answers another example (``other``): a replayed exemplar cannot be told from
    a garbled restatement there. A leading answer label is dropped, and so is an input label
    that opens the slot (``Summary: Report: …``: what follows is read, and the copy rules judge
    it), and a summary's own leading ``Findings:``; the answer ends where a frame label of the
    task follows, a summary also at a blank line. Label and code tasks read the slots that
    repeat the answer label before another frame opens into ``more``."""
    opener, inner, answer = FRAMES[kind]
    text = output.strip()
    framed = text.startswith(opener)
    at = _label_at(text, answer)
    end = _label_at(text, opener, len(opener) if framed else 0)
    another = end >= 0 and (at < 0 or end < at)  # another frame opens before this one's slot
    if another:
        text, at = text[:end].strip(), -1
    copy, restated = None, ""
    if framed or at > 0:
        restated = _cut(text[len(opener) if framed else 0: at if at >= 0 else len(text)], inner)
        copy = _restated(restated, own, shown, framed)
        if at < 0 and kind == "summarization" and copy != "exemplar" and not another:
            text, copy = restated, None  # a summary without the slot: its text is the summary
        elif at < 0:  # a restated frame with no answer slot
            if copy in (None, "other"):
                copy = "input" if not own or _its_own(restated, own) else "frame"
            return Framed("", copy, restated, slot=False)
        else:
            text = text[at + len(answer):]
    elif at == 0:
        text = text[len(answer):]
    text = text.strip()
    if text.startswith(opener):
        text = text[len(opener):]
    if kind == "summarization":
        text = re.split(r"\n\s*\n", _SUMMARY_LEAD.sub("", text, count=1).strip(), maxsplit=1)[0]
    labels = (opener, *inner, answer)
    following = [p for label in labels if (p := _label_at(text, label)) >= 0]
    more: list[str] = []
    if following:
        text, tail = text[: min(following)], text[min(following):]
        while kind in REPEATED_SLOTS and tail.startswith(answer):
            tail = tail[len(answer):]
            after = [p for label in labels if (p := _label_at(tail, label)) >= 0]
            cut = min(after) if after else len(tail)
            more.append(tail[:cut].strip())
            tail = tail[cut:]
    return Framed(text.strip(), copy, restated, slot=at >= 0 or not framed, more=tuple(more))


def _restated(restated: str, own: str, shown: Shown | None, framed: bool) -> str | None:
    """``exemplar`` when a restated input is an exemplar's (most of its words, or the same
    words) and not the example's own (the same sentences in any order, or most of its words);
    without the prompt (``shown`` None), ``other`` for a restated frame around another text;
    else None."""
    if not restated.strip() or (own and _its_own(restated, own)):
        return None
    if shown is None:
        return "other" if framed and own else None
    if any(_mostly(restated, e) and not (own and _its_own(e, own))
           for e in shown.exemplar_inputs):
        return "exemplar"
    return None


def _its_own(restated: str, own: str) -> bool:
    """Whether ``restated`` is ``own`` restated: most of its words, or the same sentences in
    any order."""
    return _mostly(restated, own) or same_sentences(restated, own)


_LEAD_IN = re.compile(r"^[^\n" + _QUOTES + r"]{1,80}:\s*(?=[" + _QUOTES + r"])")


def _unquoted(text: str) -> str:
    """``text`` without quotes around it, and without a lead-in that ends with a colon before
    the quote (``The radiologist wrote: "…"``); a quote left open runs to the end."""
    text = _LEAD_IN.sub("", text.strip(), count=1)
    if text[:1] in _QUOTES:
        close = next((i for i in range(1, len(text)) if text[i] in _QUOTES), -1)
        if close > 0:
            return text[1:close].strip()
    return text.strip(_QUOTES + " ")


def rewrite_slot(output: str) -> str:
    """The rewrite an output gives (the slot reading): its own frame as the template's, the
    slot after ``Rewrite:`` (:func:`read_frame`), or, in a restated frame without that label,
    the sentence it restates (``Sentence: <the rewrite>``); its first line, quotes dropped."""
    framed = read_frame(own_frames(output), "rewriting")
    text = framed.answer if framed.slot else framed.restated
    return _unquoted(text.strip().split("\n", 1)[0])


# -- the readings of each task ----------------------------------------------------------------
@dataclass(frozen=True)
class TextReading:
    """A rewrite or summary: ``text`` as the careful reading scores it (empty when unqualified),
    ``literal`` as the paper's literal reading scores it (the slot as written), ``why`` it is
    unqualified (None when qualified) and the kind of prompt text it copies (``copy``:
    ``input`` or ``exemplar``) when that decided it."""

    text: str
    literal: str
    why: str | None
    copy: str | None = None

    @property
    def qualified(self) -> bool:
        return self.why is None


def read_rewrite(output: str, sentence: str, shown: Shown | None = None,
                 slot: str | None = None) -> TextReading:
    """A rewrite of ``sentence`` (``slot``: the answer already read, e.g. by ``answer_span:
    whole``; default :func:`rewrite_slot`). Unqualified: a restated frame of an exemplar's
    sentence (or, without the prompt, of another sentence) that fills its ``Rewrite:`` slot
    (another example answered); empty; the
    input's words (``echo``); an exemplar's rewrite or sentence where the exemplar's sentence
    is not the input's (``exemplar``); no content word of the input (``irrelevant``); no text
    (:func:`_no_text`)."""
    framed = read_frame(own_frames(output), "rewriting", sentence, shown)
    text = rewrite_slot(output) if slot is None else slot
    if framed.copy in ("exemplar", "other") and framed.slot:
        return TextReading("", text, f"{framed.copy} frame", _kind(framed.copy))
    if not text:
        return _no_text(output, framed, text, sentence)
    if same_words(text, sentence):
        return TextReading("", text, "echo", "input")
    if shown is not None:
        for source, rewrite in zip(shown.exemplar_inputs, shown.exemplar_answers, strict=True):
            if not same_words(source, sentence) and (_mostly(text, rewrite)
                                                     or _mostly(text, source)):
                return TextReading("", text, "exemplar", "exemplar")
    if not content_words(text) & content_words(sentence):
        return TextReading("", text, "irrelevant")
    return TextReading(text, text, None)


def read_summary(output: str, report: str, shown: Shown | None = None,
                 slot: str | None = None) -> TextReading:
    """A summary of ``report`` (``slot``: the answer already read; default the slot reading: a
    restated frame without the ``Summary:`` slot gives its text). Unqualified: a restated frame
    of an exemplar's report (or, without the prompt, of another report) that fills its slot;
    no text (:func:`_no_text`); the report
    repeated (:func:`repeats_report`: ``echo``); an exemplar's report repeated
    (``exemplar``). An exemplar's *summary* is scored as written."""
    framed = read_frame(output, "summarization", report, shown)
    text = framed.answer if slot is None else slot
    if framed.copy in ("exemplar", "other"):
        return TextReading("", text, f"{framed.copy} frame", _kind(framed.copy))
    if not text:
        return _no_text(output, framed, text, report)
    if repeats_report(text, report):
        return TextReading("", text, "echo", "input")
    if shown is not None and any(repeats_report(text, source) and not _mostly(source, report)
                                 for source in shown.exemplar_inputs):
        return TextReading("", text, "exemplar", "exemplar")
    return TextReading(text, text, None)


def _no_text(output: str, framed: Framed, text: str, own: str) -> TextReading:
    """Why an output gives no rewrite or summary text: ``empty`` (the output is empty or white
    space), ``echo`` (it restates the input ``own`` and nothing else), ``no slot`` (it restates
    a frame around another text and fills no answer slot) or ``empty slot`` (an answer label
    with nothing after it)."""
    if not output.strip():
        return TextReading("", text, "empty")
    if framed.copy == "input" or (framed.restated and _its_own(framed.restated, own)):
        return TextReading("", text, "echo", "input")
    return TextReading("", text, "empty slot" if framed.slot else "no slot")


@dataclass(frozen=True)
class AnswerText:
    """The text an NLU answer is read from: ``text`` (the careful reading's), ``why`` the output
    gives no answer where that is decided before its words are read, and the kind of prompt
    text it copies when that decided it (``copy``)."""

    text: str
    why: str | None = None
    copy: str | None = None
    more: tuple[str, ...] = ()


def label_text(output: str, kind: str, own: str, shown: Shown | None = None) -> AnswerText:
    """Where an NLU output's label is read (abnormality, ambiguity: ``own`` the sentence;
    codes: the report): the frame's answer slot (:func:`read_frame`), with every place where
    it restates the input or an exemplar's input (another than the example's own) cut out
    (:func:`without_echo`). A replayed exemplar, or a restated frame with no answer slot,
    gives no text; so does an output that only restates (``echo``, ``exemplar``). The answers
    of slots that repeat the first for the same example are ``more``, read the same way."""
    framed = read_frame(output, kind, own, shown)
    if framed.copy is not None:
        why = {"input": "echo", "exemplar": "exemplar frame",
               "other": "other frame"}.get(framed.copy, "no slot")
        return AnswerText("", why, _kind(framed.copy))
    text, echoed = without_echo(framed.answer, own)
    replayed = False
    for source in shown.exemplar_inputs if shown is not None else ():
        if not same_words(source, own):
            text, found = without_echo(text, source)
            replayed = replayed or found
    if (echoed or replayed) and not [w for w in copying.words(text) if w not in ARTICLES]:
        return AnswerText("", "echo", "input") if echoed else AnswerText("", "exemplar",
                                                                         "exemplar")
    return AnswerText(text, more=tuple(_without_echoes(m, own, shown) for m in framed.more))


def _without_echoes(text: str, own: str, shown: Shown | None) -> str:
    """``text`` with the input and every exemplar's input (another than ``own``) cut out."""
    text = without_echo(text, own)[0]
    for source in shown.exemplar_inputs if shown is not None else ():
        if not same_words(source, own):
            text = without_echo(text, source)[0]
    return text


def _kind(copy: str) -> str | None:
    """The ``copied`` kind of a frame's copy (``frame``, ``other``: none of the prompt's
    parts)."""
    return copy if copy in ("input", "exemplar") else None


# -- the row's ``copied`` ------------------------------------------------------------------------
def copied(output: str, own: str, shown: Shown | None, messages: Sequence[Mapping[str, str]]
           | None, decided: str | None) -> dict[str, object] | None:
    """The row's ``copied``: :func:`clineval.metrics.copying.find_copy` over the prompt (its
    exemplars read by :func:`shown_prompt`; the example's input ``own``), or, where a reading
    rule decided that the output copies (``decided``: ``input`` or ``exemplar``) and the
    measure finds no copy of that kind (a short echo: fewer words than a run), that kind with
    the shares counted in runs as long as the output."""
    user = copying.Prompt.of(messages).user if messages else ""
    system = copying.Prompt.of(messages).system if messages else ""
    prompt = copying.Prompt(system, user, shown.exemplar_inputs if shown else (),
                            shown.exemplar_answers if shown else ())
    inputs = [own] if own else []
    found = copying.find_copy(output, prompt, inputs)
    if decided is None or (found is not None and found.kind == decided):
        return found.as_dict() if found else None
    parts = {"input": inputs,
             "exemplar": [*prompt.exemplar_answers, *prompt.exemplar_inputs]}[decided]
    # runs as long as the output or the shortest input it may restate, if shorter: a short echo
    restated = inputs if decided == "input" else prompt.exemplar_inputs
    lengths = [len(copying.words(text)) for text in restated if copying.words(text)]
    run = max(1, min(copying.RUN, len(copying.words(output)), *lengths))
    share = copying.copied_share(output, parts, run)
    total = copying.copied_share(output, [*parts, *inputs, system, user], run)
    return copying.Copy(decided, share, max(share, total)).as_dict()
