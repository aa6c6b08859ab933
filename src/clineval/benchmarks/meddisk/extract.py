"""Post-processing of a response into the answer that is scored (the paper's App. D).

1. Segment: the text after the first ``<disease>的<aspect>为/包括`` (English: ``<aspect> of
   <disease> is/are/include``), whitespace-tolerant, with an optional colon; the verbs of the
   aspect registry count too; that segment ends before the next ``的<aspect><verb>`` /
   ``<aspect> of``, where a model starts another sentence. No match: the whole response,
   unchanged (status ``fallback``; App. D). A completion continuation is cut at its first line
   break (setting ``cut_at_newline``) before either.
2. The careful reading (the default; docs/meddisk.md, "Copied text and readings"): the
   segment's sentences that repeat the prompt's question or instruction, whole or a copy run
   of them (5 words, 8 Chinese characters), are dropped (a last sentence cut at
   ``max_tokens`` is dropped when it opens one); then only an explicit none
   word (无, 没有, none, N/A, ...; setting ``none_words``) is NONE, and a segment with no content
   left (nothing, punctuation, list markers, a lead-in such as "the following") is
   **unanswered** (``Answer.unanswered`` says why: ``empty``, ``cut``, ``prompt``), as is a
   numeric answer without a number (``no number``) and an enumerated one whose items the
   gazetteer all drops (``no entity``) or that holds only degenerate repetitions
   (``repetition``: "美女猪猪猪猪猪…"). Edges are stripped of every Unicode punctuation,
   separator and control character, of bullet symbols and of the replacement character of a
   cut multi-byte token (``%``, ``‰`` and primes kept).
3. By type: enumerated -> entities by the extractor (``delimiter``: split on list separators
   and circled ordinals, list ordinals dropped first, the default and the deviation from the
   paper's unreleased NER; ``gazetteer``: keep only known entities, found in the items);
   numeric -> the first number that is not a list marker ("2. 你可以在这里回答" holds none);
   declarative -> the text.

The paper's literal reading (``literal=True``) keeps the segment whole, reads an empty one (and
one without items) as NONE and takes the initial number, list marker or not (§3.2.1, App. D).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from clineval.benchmarks.meddisk.aspects import Aspect
from clineval.metrics import copying

#: Default none words (matched case-insensitively, surrounding punctuation ignored).
NONE_WORDS = {
    "zh": ["无", "没有", "暂无", "不详", "无明显", "不存在", "无相关"],
    "en": ["none", "no", "nil", "n/a", "na", "not applicable", "none known", "unknown"],
}
_VERBS = {"zh": ("为", "包括", "是", "有"), "en": ("is", "are", "include", "includes")}
_SPLIT = {
    "zh": re.compile(r"[；;，,、。！？!?\n]|以及|和|及|或"),
    "en": re.compile(r"[；;，,、。！？\n]|\band\b|\bor\b", re.IGNORECASE),
}
_BULLET = re.compile(r"^\s*(?:[-*•·]+|\(?\d+[.)、]|[（(]\d+[)）]|[一二三四五六七八九十]+、)\s*")
#: Circled, parenthesised and dotted ordinals (①, ⑴, ⒈, ❶, ➀, ㈠, ㊀, ...): list markers that
#: often stand in for a separator ("①咳嗽②发热").
_CIRCLED = re.compile("[\u2460-\u24ff\u2776-\u2793\u3220-\u3229\u3251-\u325f"
                      "\u3280-\u3289\u32b1-\u32bf]")
#: List ordinals at the start or after a separator: "2、" / "3." / "(4)" (not decimals) and
#: Chinese numerals "一、" / "二." / "（三）".
_ORDINAL = re.compile(r"(?:^|(?<=[；;，,、。！？!?\n]))\s*(?:[(（]?\d+[、.．)）](?!\d)"
                      r"|[(（][一二三四五六七八九十]+[)）]|[一二三四五六七八九十]+[、.．])\s*")
#: Symbols used as bullets or decoration, stripped at the edges with punctuation.
_EDGE_SYMBOLS = frozenset("●○■□◆◇▪▫►▶→★☆✓✔～~\ufffd")
#: Punctuation kept at the edges: it belongs to a quantity ("5%").
_EDGE_KEPT = frozenset("%‰‱′″")
_SENTENCE_ENDS = ("。", "\n", ". ", "；", ";")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
#: A list marker: a number opening a line (after an optional bullet) with ``.``, ``、`` or a
#: closing bracket, then more text on that line ("2. 你可以在这里回答", "(1) mild"). A number
#: alone on its line ("2.") is a number.
_LIST_MARKER = re.compile(r"(?m)^[ \t]*(?:[-*•·][ \t]*)?[(（]?\d+(?:[.．、]|[)）])(?!\d)"
                          r"(?=[ \t]*[^\s\d])")
#: Lead-ins that announce an answer without giving it ("the following:", "以下："): dropped at
#: the start of a segment (followed by a colon or nothing), so a segment of one is no answer.
LEAD_INS = {
    "zh": re.compile(r"^\s*(?:以下|如下)(?:几种|几点|内容|几个|几项)?\s*(?:[:：]|$)"),
    "en": re.compile(r"^\s*(?:the\s+following|as\s+follows|following|these)"
                     r"(?:\s+(?:ones|items))?\s*(?:[:：]|$)", re.IGNORECASE),
}
_REPEATED_CHAR = re.compile(r"([^\W\d_])\1{4,}")
_REPEATED_WORD = re.compile(r"\b([^\W\d_]+)(?:\W+\1\b){4,}", re.IGNORECASE)
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”|「([^」]+)」')
_DOTTED_CHAIN = re.compile(r"\d+(?:\.\d+){2,}\.?")
#: Where a sentence of a segment or of a prompt ends, for the copy rule.
_SENTENCE = re.compile(r"[。！？!?；;：:\n]|\.(?=\s|$)")

#: The extractors of enumerated answers (``scoring.extractor``).
EXTRACTORS = ("delimiter", "gazetteer")


@dataclass(frozen=True)
class Answer:
    """The scored form of a response or a reference. ``unanswered``: why a careful grader sees
    no answer (``empty``, ``cut``, ``prompt``, ``no number``, ``list``, ``no entity``,
    ``repetition``), else None."""

    none: bool
    text: str
    items: tuple[str, ...] = ()
    number: float | None = None
    status: str = "pattern"
    unanswered: str | None = None


def _is_edge(ch: str) -> bool:
    """Whether ``ch`` is stripped at an answer's edges: any Unicode punctuation (P*),
    separator (Z*) or control/format character (C*), whitespace, or a bullet symbol."""
    if ch in _EDGE_KEPT:
        return False
    return ch.isspace() or ch in _EDGE_SYMBOLS or unicodedata.category(ch)[0] in "PZC"


#: Closing brackets and their opening ones: a closing bracket whose opening one is in the
#: text stays at its end ("心电图（ST段抬高）", "procedure (TUR)").
_BRACKETS = {")": "(", "）": "（", "]": "[", "】": "【", "」": "「", "』": "『"}


def strip_edges(text: str) -> str:
    """``text`` without the punctuation, spaces and bullet symbols at its two ends (a closing
    bracket that closes a bracket of the text stays)."""
    start, end = 0, len(text)
    while start < end and _is_edge(text[start]):
        start += 1
    while end > start and _is_edge(text[end - 1]):
        opener = _BRACKETS.get(text[end - 1])
        if opener and text.count(opener, start, end - 1) > text.count(text[end - 1], start,
                                                                        end - 1):
            break
        end -= 1
    return text[start:end]


def _space(text: str) -> str:
    return r"\s*".join(re.escape(ch) for ch in text if not ch.isspace())


def _patterns(disease: str, aspect: Aspect, lang: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(answer pattern, next-sentence pattern) for the disease and aspect."""
    verbs = sorted({aspect.verb(lang), *_VERBS[lang]} - {""}, key=len, reverse=True)
    verb = "(?:" + "|".join(_space(v) if lang == "zh" else re.escape(v) for v in verbs) + ")"
    label = _space(aspect.label(lang)) if lang == "zh" else r"\s+".join(
        map(re.escape, aspect.label(lang).split()))
    if lang == "zh":
        answer = rf"{_space(disease)}\s*的\s*{label}\s*{verb}\s*[:：]?"
        following = rf"的\s*{label}\s*{verb}"
    else:
        name = r"\s+".join(map(re.escape, disease.split()))
        answer = rf"{label}\s+(?:of|for)\s+(?:the\s+)?{name}\s+{verb}\b\s*[:：]?"
        following = rf"\b(?:the\s+)?{label}\s+(?:of|for)\b"
    return re.compile(answer, re.IGNORECASE), re.compile(following, re.IGNORECASE)


def segment(output: str, disease: str, aspect: Aspect, lang: str,
            completion: bool = False) -> tuple[str, str]:
    """``(segment, status)``: the text after the answer pattern up to the next sentence on the
    aspect, or the whole response (stripped) when no pattern matches (App. D)."""
    text = output.lstrip()
    if completion:
        text = text.split("\n", 1)[0]
    answer, following = _patterns(disease, aspect, lang)
    match = answer.search(text)
    if not match:
        return text.strip(), "fallback"
    text = text[match.end():]
    cut = following.search(text)
    if cut and cut.start() > 0:
        text = text[: cut.start()]
        end = max(text.rfind(mark) for mark in _SENTENCE_ENDS)
        if end >= 0:  # drop the next sentence's subject (the disease before 的 / "of")
            text = text[: end + 1]
    body = text.strip()
    # a segment that starts on a line of its own keeps that line break (a list may follow)
    return ("\n" + body if body and "\n" in text[: len(text) - len(text.lstrip())]
            else body), "pattern"


def is_none(text: str, none_words: Iterable[str]) -> bool:
    """Whether ``text`` says "none" (or, the literal reading, nothing at all)."""
    core = strip_edges(text).lower()
    return core == "" or core in {w.lower() for w in none_words}


def says_none(text: str, none_words: Iterable[str]) -> bool:
    """Whether ``text`` is an explicit none word (edges aside)."""
    core = strip_edges(text).lower()
    return core != "" and core in {w.lower() for w in none_words}


def _key(text: str) -> str:
    """A sentence compared for the copy rule: its words, lower case, punctuation dropped."""
    return " ".join(copying.words(text))


def sentences(text: str) -> list[str]:
    """``text``'s sentences for the copy rule: split at sentence ends, line breaks, colons
    and semicolons, each compared by its words (empty ones dropped)."""
    return [key for key in map(_key, _SENTENCE.split(text)) if key]


def _subject(line: str, disease: str, aspect: Aspect, lang: str) -> bool:
    """Whether ``line`` states the aspect of some disease (a demonstration sentence)."""
    label = aspect.label(lang)
    if lang == "zh":
        return f"的{label}" in line.replace(" ", "")
    return re.search(rf"\b{re.escape(label)}\s+(?:of|for)\s+\S", line, re.IGNORECASE) is not None


def split_prompt(user: str, disease: str, aspect: Aspect, lang: str
                 ) -> tuple[list[str], list[str]]:
    """(the question and instruction lines, the demonstration lines) of the final user
    message: a demonstration line states the aspect of another disease."""
    answer, _ = _patterns(disease, aspect, lang)
    kept, demos = [], []
    for line in user.split("\n"):
        own = answer.search(line) or disease.lower() in line.lower()
        (demos if _subject(line, disease, aspect, lang) and not own else kept).append(line)
    return kept, demos


def prompt_sentences(user: str, disease: str, aspect: Aspect, lang: str) -> frozenset[str]:
    """The sentences of the prompt's question and instruction (the final user message
    without its demonstration lines: those stating the aspect of another disease), keyed as
    :func:`sentences` keys them; the headings that echo the question: the aspect's label,
    the disease's name and the two together; and the instruction's quoted format examples of
    two words or more ("test (positive result)", “检查项目（阳性结果）”; a quoted 无 or none is
    the none word, not a copy)."""
    kept, _ = split_prompt(user, disease, aspect, lang)
    quoted = [q for line in kept for m in _QUOTED.finditer(line)
              for q in m.groups() if q and len(copying.words(q)) > 1]
    label = aspect.label(lang)
    headings = ([label, disease, f"{disease}的{label}"] if lang == "zh"
                else [label, disease, f"{label} of {disease}", f"the {label} of {disease}"])
    return frozenset(sentences("\n".join(kept))) | {_key(h) for h in [*headings, *quoted]
                                                     if _key(h)}


def drop_prompt(text: str, prompt: frozenset[str], cut: bool = False, label: str = ""
                ) -> tuple[str, bool]:
    """``text`` without its sentences that repeat one of ``prompt`` (:func:`prompt_sentences`):
    whole, or (a sentence without the aspect's ``label``: one with it states the aspect of
    some disease, an answer) mostly in copy runs of one; when the output was ``cut`` at
    max_tokens, its last sentence is dropped too when it opens one of them. Returns (what is
    left, whether anything was dropped)."""
    label = _key(label)
    if not prompt:
        return text, False
    parts = _SENTENCE.split(text)
    ends = [*_SENTENCE.findall(text), ""]
    keyed = [(_key(part), part, end) for part, end in zip(parts, ends, strict=True)]
    last = max((i for i, (key, _, _) in enumerate(keyed) if key), default=-1)
    kept, dropped = [], False
    for i, (key, part, end) in enumerate(keyed):
        stated = bool(label) and f" {label} " in f" {key} "
        copied = (key in prompt or (not stated and _inside(key, prompt))
                  or (cut and i == last and _opens(key, prompt)))
        if key and copied:
            dropped = True
            continue
        kept.append(part + end)
    return "".join(kept), dropped


def _inside(key: str, prompt: frozenset[str]) -> bool:
    """Whether at least half of the sentence ``key``'s words lie in runs of a copy run's
    length (5 words, 8 Chinese characters) that a sentence of ``prompt`` holds: the measure
    of :func:`clineval.metrics.copying.find_copy` on one sentence ("病最突出的临床症状" from
    the definition "常见症状指该病最突出的临床症状")."""
    words = key.split()
    if len(words) < copying.run_length(words):
        return False
    return copying.copied_share(key, prompt) >= copying.SHARE


def _opens(key: str, prompt: frozenset[str]) -> bool:
    """Whether the cut sentence ``key`` opens a sentence of ``prompt``, word by word; a
    fragment of numbers alone is never taken for one (a cut "2" is an answer)."""
    words = key.split()
    if not words or all(w.replace(".", "").isdigit() for w in words):
        return False
    def opens(sentence: list[str]) -> bool:
        return (len(sentence) >= len(words) and sentence[: len(words) - 1] == words[:-1]
                and sentence[len(words) - 1].startswith(words[-1]))

    return any(opens(p.split()) for p in prompt)


def without_lead_in(text: str, lang: str) -> str:
    """``text`` without a lead-in at its start (:data:`LEAD_INS`)."""
    return LEAD_INS[lang].sub("", text, count=1)


def has_content(text: str) -> bool:
    """Whether ``text`` holds more than punctuation, bullets and list markers (a number alone,
    "22." or "2.", is content: an age, a level)."""
    return strip_edges(_LIST_MARKER.sub("", _CIRCLED.sub("", text))) != ""


def split_items(text: str, lang: str) -> list[str]:
    """Entities of an enumerated answer by the delimiter splitter: list separators and
    conjunctions, bullets and ordinals removed (circled ones act as separators, list ordinals
    go before splitting), empty items dropped, first occurrence kept."""
    items: list[str] = []
    text = _CIRCLED.sub("\n", text)
    for part in _SPLIT[lang].split(_ORDINAL.sub("", text)):
        item = strip_edges(_BULLET.sub("", part))
        if any(ch.isalnum() for ch in item) and item not in items:  # symbols alone: none
            items.append(item)
    return items


def degenerate(item: str) -> bool:
    """Whether ``item`` is a degenerate repetition, no entity: a letter or Chinese character
    five times in a row ("美女猪猪猪猪猪…"), or a word five times in a row (digits aside: a
    dose of 100000 is a number)."""
    return bool(_REPEATED_CHAR.search(item) or _REPEATED_WORD.search(item))


def gazetteer_items(items: Sequence[str], known: Sequence[str]) -> list[str]:
    """The known entities in ``items``: an item that is one, else the longest known entities
    it contains (non-overlapping); items with none are dropped (chatter, like the paper's NER)."""
    entries = sorted({k.lower(): k for k in known if k}.items(), key=lambda kv: -len(kv[0]))
    found: list[str] = []
    for item in items:
        lowered = item.lower()
        hits: list[tuple[int, str]] = []
        taken = [False] * len(lowered)
        for key, entity in entries:
            start = lowered.find(key)
            while start >= 0:
                span = range(start, start + len(key))
                if not any(taken[i] for i in span):
                    for i in span:
                        taken[i] = True
                    hits.append((start, entity))
                start = lowered.find(key, start + 1)
        for _, entity in sorted(hits):
            if entity not in found:
                found.append(entity)
    return found


def first_number(text: str, markers: bool = True, opening: bool = True) -> float | None:
    """The first number in ``text`` (ASCII digits, optional decimals), None when there is none;
    ``markers=False``: list markers (:data:`_LIST_MARKER`) are not numbers, where ``opening``
    says whether the text's start opens a line (a segment after the answer pattern that goes
    on from the pattern's line does not: "…is 2. It is moderate" is 2)."""
    if not markers:  # nor is a dotted chain ("2.1.1.1", a section number)
        text = ("" if opening else "\0") + text
        text = _LIST_MARKER.sub(lambda m: " " * len(m.group()), text)
        text = _DOTTED_CHAIN.sub(lambda m: " " * len(m.group()), text)
    match = _NUMBER.search(text)
    return float(match.group()) if match else None


def answer(
    text: str,
    aspect: Aspect,
    lang: str,
    none_words: Sequence[str],
    gazetteer: Sequence[str] | None = None,
    status: str = "pattern",
    *,
    prompt: frozenset[str] = frozenset(),
    cut: bool = False,
    literal: bool = False,
) -> Answer:
    """The scored form of an answer segment (or of a reference rendered as text).

    ``prompt``: the prompt's question and instruction sentences (:func:`prompt_sentences`);
    ``cut``: the output stopped at max_tokens; ``literal``: the paper's literal reading."""
    if literal:
        return _literal(text, aspect, lang, none_words, gazetteer, status)
    text, dropped = drop_prompt(text, prompt, cut, aspect.label(lang))
    text = without_lead_in(text, lang)
    if says_none(text, none_words):
        return Answer(True, "", status=status)
    def why() -> str:
        return "prompt" if dropped else "cut" if cut else "empty"

    if not has_content(text):
        return Answer(False, "", status=status, unanswered=why())
    if aspect.type == "numeric":
        opening = status != "pattern"
        if len(_LIST_MARKER.findall(("" if opening else "\0") + text)) > 1:
            # a list ("1. Mild: 1 / 2. Moderate: 2 / …") gives options, not one number
            return Answer(False, strip_edges(text), status=status, unanswered="list")
        number = first_number(text, markers=False, opening=opening)
        return Answer(False, strip_edges(text), number=number, status=status,
                      unanswered=None if number is not None else "no number")
    if aspect.type == "enumerated":
        found = split_items(text, lang)
        nones = [i for i in found if says_none(i, none_words)]
        verbs = {v.lower() for v in (aspect.verb(lang), *_VERBS[lang]) if v}
        found = [i for i in found if i.lower() not in verbs]  # the stem's verb: no entity
        items = [i for i in found if i not in nones and not degenerate(i)]
        if not items and nones:
            return Answer(True, "", status=status)  # none words ("无；无")
        if not items and found:
            return Answer(False, "", status=status, unanswered="repetition")
        if gazetteer is not None:
            items = gazetteer_items(items, gazetteer)
            if not items:
                return Answer(False, "", status=status, unanswered="no entity")
        if cut and len(items) > 1 and _cut_repeat(text, items):
            items = items[:-1]
        if not items:
            return Answer(False, "", status=status, unanswered=why())
        return Answer(False, " ".join(items), tuple(items), status=status)
    return Answer(False, strip_edges(text), status=status)


def _cut_repeat(text: str, items: Sequence[str]) -> bool:
    """Whether the last item of an output stopped at max_tokens is a repeat cut mid-way: no
    separator after it, and a proper start of an earlier item ("反跳痛；反跳痛；反")."""
    last = items[-1]
    return (not text.rstrip().endswith(tuple("；;，,、。")) and
            any(item != last and item.startswith(last) for item in items[:-1]))


def _literal(text: str, aspect: Aspect, lang: str, none_words: Sequence[str],
             gazetteer: Sequence[str] | None, status: str) -> Answer:
    """The paper's literal reading: an empty segment is NONE, the initial number counts."""
    if is_none(text, none_words):
        return Answer(True, "", status=status)
    if aspect.type == "numeric":
        return Answer(False, strip_edges(text), number=first_number(text), status=status)
    if aspect.type == "enumerated":
        items = [i for i in split_items(text, lang) if not is_none(i, none_words)]
        if gazetteer is not None:
            items = gazetteer_items(items, gazetteer)
        if not items:
            return Answer(True, "", status=status)
        return Answer(False, " ".join(items), tuple(items), status=status)
    return Answer(False, strip_edges(text), status=status)


def reference_answer(value: list[str] | str | int, lang: str) -> Answer:
    """A KB value in scored form, normalised as a response is: each enumerated item through
    the delimiter splitter, items joined by one space; ``[]``/``""`` are NONE."""
    if isinstance(value, bool):
        raise TypeError("a reference value cannot be a boolean")
    if isinstance(value, int):
        return Answer(False, str(value), number=float(value), status="reference")
    if isinstance(value, list):
        items: list[str] = []
        for part in value:
            items.extend(i for i in split_items(part, lang) if i not in items)
        return Answer(not items, " ".join(items), tuple(items), status="reference")
    text = strip_edges(value)
    return Answer(not text, text, status="reference")
