"""Post-processing of a response into the answer that is scored (the paper's App. D).

1. Segment: the text after the first ``<disease>的<aspect>为/包括`` (English: ``<aspect> of
   <disease> is/are/include``), whitespace-tolerant, with an optional colon; the verbs of the
   aspect registry count too; that segment ends before the next ``的<aspect><verb>`` /
   ``<aspect> of``, where a model starts another sentence. No match: the whole response,
   unchanged (status ``fallback``; App. D). A completion continuation is cut at its first line
   break (setting ``cut_at_newline``) before either.
2. "None": a segment that is empty, only punctuation, or only a none word (无, 没有, none, N/A,
   ...; setting ``none_words``) is NONE. Edges are stripped of every Unicode punctuation,
   separator and control character and of bullet symbols (``%``, ``‰`` and primes kept).
3. By type: enumerated -> entities by the extractor (``delimiter``: split on list separators
   and circled ordinals, list ordinals dropped first, the default and the deviation from the
   paper's unreleased NER; ``gazetteer``: keep only known entities, found in the items);
   numeric -> the first number (None: no number); declarative -> the text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from clineval.benchmarks.meddisk.aspects import Aspect

#: Default none words (matched case-insensitively, surrounding punctuation ignored).
NONE_WORDS = {
    "zh": ["无", "没有", "暂无", "不详", "无明显", "不存在", "无相关"],
    "en": ["none", "no", "nil", "n/a", "na", "not applicable", "none known", "unknown"],
}
_VERBS = {"zh": ("为", "包括", "是", "有"), "en": ("is", "are", "include", "includes")}
_SPLIT = {
    "zh": re.compile(r"[；;，,、\n]|以及|和|及|或"),
    "en": re.compile(r"[；;，,、\n]|\band\b|\bor\b", re.IGNORECASE),
}
_BULLET = re.compile(r"^\s*(?:[-*•·]+|\(?\d+[.)、]|[（(]\d+[)）]|[一二三四五六七八九十]+、)\s*")
#: Circled, parenthesised and dotted ordinals (①, ⑴, ⒈, ❶, ➀, ㈠, ㊀, ...): list markers that
#: often stand in for a separator ("①咳嗽②发热").
_CIRCLED = re.compile("[\u2460-\u24ff\u2776-\u2793\u3220-\u3229\u3251-\u325f"
                      "\u3280-\u3289\u32b1-\u32bf]")
#: List ordinals at the start or after a separator: "2、" / "3." / "(4)" (not decimals) and
#: Chinese numerals "一、" / "二." / "（三）".
_ORDINAL = re.compile(r"(?:^|(?<=[；;，,、\n]))\s*(?:[(（]?\d+[、.．)）](?!\d)"
                      r"|[(（][一二三四五六七八九十]+[)）]|[一二三四五六七八九十]+[、.．])\s*")
#: Symbols used as bullets or decoration, stripped at the edges with punctuation.
_EDGE_SYMBOLS = frozenset("●○■□◆◇▪▫►▶→★☆✓✔～~")
#: Punctuation kept at the edges: it belongs to a quantity ("5%").
_EDGE_KEPT = frozenset("%‰‱′″")
_SENTENCE_ENDS = ("。", "\n", ". ", "；", ";")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


@dataclass(frozen=True)
class Answer:
    """The scored form of a response or a reference."""

    none: bool
    text: str
    items: tuple[str, ...] = ()
    number: float | None = None
    status: str = "pattern"


def _is_edge(ch: str) -> bool:
    """Whether ``ch`` is stripped at an answer's edges: any Unicode punctuation (P*),
    separator (Z*) or control/format character (C*), whitespace, or a bullet symbol."""
    if ch in _EDGE_KEPT:
        return False
    return ch.isspace() or ch in _EDGE_SYMBOLS or unicodedata.category(ch)[0] in "PZC"


def strip_edges(text: str) -> str:
    """``text`` without the punctuation, spaces and bullet symbols at its two ends."""
    start, end = 0, len(text)
    while start < end and _is_edge(text[start]):
        start += 1
    while end > start and _is_edge(text[end - 1]):
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
    return text.strip(), "pattern"


def is_none(text: str, none_words: Iterable[str]) -> bool:
    """Whether ``text`` says "none" (or nothing at all)."""
    core = strip_edges(text).lower()
    return core == "" or core in {w.lower() for w in none_words}


def split_items(text: str, lang: str) -> list[str]:
    """Entities of an enumerated answer by the delimiter splitter: list separators and
    conjunctions, bullets and ordinals removed (circled ones act as separators, list ordinals
    go before splitting), empty items dropped, first occurrence kept."""
    items: list[str] = []
    text = _CIRCLED.sub("\n", text)
    for part in _SPLIT[lang].split(_ORDINAL.sub("", text)):
        item = strip_edges(_BULLET.sub("", part))
        if item and item not in items:
            items.append(item)
    return items


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


def first_number(text: str) -> float | None:
    """The first number in ``text`` (ASCII digits, optional decimals), None when there is none."""
    match = _NUMBER.search(text)
    return float(match.group()) if match else None


def answer(
    text: str,
    aspect: Aspect,
    lang: str,
    none_words: Sequence[str],
    gazetteer: Sequence[str] | None = None,
    status: str = "pattern",
) -> Answer:
    """The scored form of an answer segment (or of a reference rendered as text)."""
    if is_none(text, none_words):
        return Answer(True, "", status=status)
    if aspect.type == "numeric":
        number = first_number(text)
        return Answer(False, strip_edges(text), number=number, status=status)
    if aspect.type == "enumerated":
        items = split_items(text, lang)
        items = [i for i in items if not is_none(i, none_words)]
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
