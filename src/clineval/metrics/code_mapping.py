"""Free-text answers -> codes of one code system, with a record of how each item was mapped.

An answer is split into items (lines; list markers stripped; empty lines and headings that end
with ``:`` dropped). Per item: the explicit codes of the system found in it (validated by the
system's ``canonical``); else the item text (codes and empty brackets removed) equal to a
candidate title after normalisation (lower case, letters and digits only); else the candidate
title nearest by sentence embedding, when its cosine similarity reaches ``threshold``; else no
code.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from clineval.metrics import embedding

_MARKER = re.compile(r"^\s*(?:[-*•·o]\s+|\(?\d{1,3}[.):]\s*|[a-z][.)]\s+)")
_EMPTY_BRACKETS = re.compile(r"[(\[]\s*[,;:]*\s*[)\]]")
_LABEL = re.compile(r"\b(?:ICD-10-(?:CM|PCS)|ICD-?10|LOINC|ATC|NDC)(?:\s+code)?\s*[:#]?", re.I)


@dataclass(frozen=True)
class CodeSystem:
    """A code system as it appears in text: candidate tokens and their canonical form."""

    name: str
    token: re.Pattern[str]
    canonical: Callable[[str], str | None]


@dataclass(frozen=True)
class Item:
    """One item of an answer and what it was mapped to."""

    text: str
    codes: tuple[str, ...]
    how: str  #: ``code``, ``title``, ``embedding`` or ``none``
    similarity: float | None = None

    def record(self) -> dict[str, Any]:
        return {"text": self.text, "codes": list(self.codes), "how": self.how,
                "similarity": self.similarity}


def split_items(text: str) -> list[str]:
    """The items of an answer: its lines without list markers, headings and empty lines."""
    items = []
    for line in re.split(r"\n|<br\s*/?>", text):
        item = _MARKER.sub("", line).strip().strip("*").strip()
        if item and not item.endswith(":"):
            items.append(item)
    return items


_NUMBERED = re.compile(r"\d+\.\s(.+?)(?=\s\d+\.\s|$)", re.S)
#: The public CliBench scorer's explicit-code pattern: dotted ICD-10-CM-like codes only.
DOTTED_CM = re.compile(r"[A-Z]\d+\.[A-Za-z0-9]+")


def split_items_code(text: str) -> list[str]:
    """The public CliBench scorer's segmentation (``compat``): with blank lines, the block before
    the first one when the text opens with a list marker, else the block after it, split on
    lines (more than five blank lines: the blocks themselves); else lines, ``<br>``, or numbered
    items; a leading ``N.`` is stripped, other bullets are kept."""
    if "\n\n" in text:
        blocks = text.split("\n\n")
        if len(blocks) - 1 > 5:
            points = blocks
        else:
            opens_list = text.strip()[:1] in tuple("0123456789•-*o")
            points = blocks[0 if opens_list else 1].split("\n")
    elif "\n" in text:
        points = text.split("\n")
    elif "<br>" in text:
        points = text.split("<br>")
    else:
        points = _NUMBERED.findall(text)
    items = []
    for point in points:
        point = point.strip()
        if point[:1].isdigit():
            point = re.sub(r"^\d+\.\s*", "", point)
        if point:
            items.append(point)
    return items


def normalize_title(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


@dataclass
class Candidates:
    """Code titles an item may be matched to; a title may stand for several codes."""

    titles: list[str]
    codes: list[tuple[str, ...]]
    encoder: str = embedding.BUNDLED
    _exact: dict[str, int] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        if len(self.titles) != len(self.codes):
            raise ValueError(f"{len(self.titles)} titles but {len(self.codes)} code tuples")
        for index, title in enumerate(self.titles):
            self._exact.setdefault(normalize_title(title), index)

    @classmethod
    def from_titles(cls, titles: dict[str, str], encoder: str = embedding.BUNDLED
                    ) -> Candidates:
        """One candidate per code (code -> title), in sorted code order."""
        codes = sorted(c for c, t in titles.items() if t.strip())
        return cls([titles[c] for c in codes], [(c,) for c in codes], encoder)

    def exact(self, text: str) -> int | None:
        return self._exact.get(normalize_title(text))

    @cached_property
    def vectors(self) -> Any:
        """Unit embeddings of the titles, computed once (only when an item needs them)."""
        return embedding.embed(self.titles, self.encoder)


@dataclass
class Mapper:
    system: CodeSystem
    candidates: Candidates | None
    #: Lowest cosine similarity accepted for an embedding match (``None``: any).
    threshold: float | None = None
    #: ``paper``: the project's item splitting and every code of the system; ``code``: the
    #: public CliBench scorer's splitting and dotted ICD-10-CM-like codes only.
    parsing: str = "paper"

    def explicit(self, item: str) -> tuple[list[str], str]:
        """Valid codes found in ``item`` and the item with every code-shaped token removed."""
        codes = []
        token_pattern = DOTTED_CM if self.parsing == "code" else self.system.token
        for token in token_pattern.findall(item):
            found = self.system.canonical(token)
            if found is not None and found not in codes:
                codes.append(found)
        rest = token_pattern.sub(" ", item)
        rest = _EMPTY_BRACKETS.sub(" ", _LABEL.sub(" ", rest))
        return codes, re.sub(r"\s+", " ", rest).strip(" -:;,.")

    def map(self, text: str) -> list[Item]:
        """Every item of ``text`` with its codes."""
        items = split_items_code(text) if self.parsing == "code" else split_items(text)
        mapped: list[Item | None] = []
        pending: list[tuple[int, str, str]] = []
        for item in items:
            codes, rest = self.explicit(item)
            if codes:
                mapped.append(Item(item, tuple(codes), "code"))
                continue
            hit = self.candidates.exact(rest) if self.candidates and rest else None
            if hit is not None:
                mapped.append(Item(item, self.candidates.codes[hit], "title", 1.0))
                continue
            mapped.append(None)
            pending.append((len(mapped) - 1, item, rest))
        if pending and self.candidates and self.candidates.titles:
            queries = [rest or item for _, item, rest in pending]
            for (slot, item, _), (index, similarity) in zip(
                pending, embedding.nearest(queries, self.candidates.vectors,
                                           self.candidates.encoder), strict=True):
                if self.threshold is None or similarity >= self.threshold:
                    mapped[slot] = Item(item, self.candidates.codes[index], "embedding",
                                        round(similarity, 6))
        for slot, item, _ in pending:
            if mapped[slot] is None:
                mapped[slot] = Item(item, (), "none")
        return [m for m in mapped if m is not None]


def codes_of(items: Sequence[Item]) -> list[str]:
    """The distinct codes of the items, in order of first appearance."""
    return list(dict.fromkeys(code for item in items for code in item.codes))
