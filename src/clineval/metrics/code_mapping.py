"""Free-text answers -> codes of one code system, with a record of how each item was mapped.

An answer is split into items (lines; list markers stripped; empty lines and headings that end
with ``:`` dropped). Per item: the explicit codes found in it, in either case, that the code
system's ontology holds (its ``canonical`` form, and membership in the supplied ontology's codes,
:attr:`Candidates.known`); else the item text (the valid codes and empty brackets removed) equal
to a candidate title after normalisation (lower case, letters and digits only); else the
candidate title nearest by sentence embedding, when its cosine similarity reaches ``threshold``;
else no code. A code-shaped string the ontology does not hold (``A10BA99``) stays in the item's
text: it is free text for the title and embedding matchers. Candidates whose titles normalise
alike form one candidate standing for all their codes (:class:`Item` ``alternatives``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
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
    #: Code-shaped strings of the item that the ontology does not hold (kept as text).
    invalid: tuple[str, ...] = ()

    @property
    def alternatives(self) -> bool:
        """The item named a title that several codes share: ``codes`` are alternatives, one of
        which the item predicts (explicit codes are all predicted)."""
        return self.how in ("title", "embedding") and len(self.codes) > 1

    def record(self) -> dict[str, Any]:
        return {"text": self.text, "codes": list(self.codes), "how": self.how,
                "similarity": self.similarity, "invalid": list(self.invalid)}


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
    """Code titles an item may be matched to; a title stands for every code in its tuple.

    Titles that normalise alike (:func:`normalize_title`) are merged into one candidate (the
    first such title in the given order, with the codes of all of them, sorted). ``known``: the
    codes of the supplied ontology that explicit codes are checked against (``None``: only the
    code system's own check). ``vectors_file``: the titles' embeddings as the workflow stored
    them (:func:`embedding.write_vectors`), else they come from the user's embedding cache.
    """

    titles: list[str]
    codes: list[tuple[str, ...]]
    encoder: str = embedding.BUNDLED
    known: frozenset[str] | None = None
    vectors_file: Path | None = None
    _exact: dict[str, int] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        if len(self.titles) != len(self.codes):
            raise ValueError(f"{len(self.titles)} titles but {len(self.codes)} code tuples")
        merged: dict[str, tuple[str, list[str]]] = {}
        for title, codes in zip(self.titles, self.codes, strict=True):
            _, found = merged.setdefault(normalize_title(title), (title, []))
            found.extend(c for c in codes if c not in found)
        self.titles = [title for title, _ in merged.values()]
        self.codes = [tuple(sorted(codes)) for _, codes in merged.values()]
        self._exact = {key: index for index, key in enumerate(merged)}

    @classmethod
    def from_titles(cls, titles: dict[str, str], encoder: str = embedding.BUNDLED,
                    known: frozenset[str] | None = None, vectors_file: Path | None = None
                    ) -> Candidates:
        """One candidate per code (code -> title), in sorted code order."""
        codes = sorted(c for c, t in titles.items() if t.strip())
        return cls([titles[c] for c in codes], [(c,) for c in codes], encoder, known,
                   vectors_file)

    def exact(self, text: str) -> int | None:
        return self._exact.get(normalize_title(text))

    def holds(self, code: str) -> bool:
        """Whether ``code`` (canonical) is in the supplied ontology (always, without one)."""
        return self.known is None or code in self.known

    @cached_property
    def embedded(self) -> tuple[Any, str]:
        """Unit embeddings of the titles and their key, read from ``vectors_file``
        (:func:`embedding.read_vectors`) or the embedding cache (:func:`embedding.embed_cached`),
        once, and only when an item needs them."""
        if self.vectors_file is not None:
            return embedding.read_vectors(self.vectors_file, self.titles, self.encoder)
        return embedding.embed_cached(self.titles, self.encoder)

    @property
    def vectors(self) -> Any:
        return self.embedded[0]


@dataclass
class Mapper:
    system: CodeSystem
    candidates: Candidates | None
    #: Lowest cosine similarity accepted for an embedding match (``None``: any).
    threshold: float | None = None
    #: ``paper``: the project's item splitting and every code of the system; ``code``: the
    #: public CliBench scorer's splitting and dotted ICD-10-CM-like codes only.
    parsing: str = "paper"
    #: The cache key of the title embeddings once an item of this mapper needed them.
    embeddings_key: str | None = field(default=None, init=False)

    def explicit(self, item: str) -> tuple[list[str], str, list[str]]:
        """The codes found in ``item`` that the ontology holds, the item with those removed,
        and the code-shaped strings it does not hold (left in the text; ``parsing="code"``:
        removed too, as the public scorer does)."""
        codes: list[str] = []
        invalid: list[str] = []
        token_pattern = DOTTED_CM if self.parsing == "code" else self.system.token

        def valid(match: re.Match[str]) -> str:
            found = self.system.canonical(match.group(0))
            if found is not None and (self.candidates is None or self.candidates.holds(found)):
                if found not in codes:
                    codes.append(found)
                return " "
            invalid.append(match.group(0))
            # the public scorer removes every token it extracted, valid or not
            return " " if self.parsing == "code" else match.group(0)

        rest = token_pattern.sub(valid, item)
        rest = _EMPTY_BRACKETS.sub(" ", _LABEL.sub(" ", rest))
        return codes, re.sub(r"\s+", " ", rest).strip(" -:;,."), invalid

    def map(self, text: str) -> list[Item]:
        """Every item of ``text`` with its codes."""
        return self.map_all([text])[0]

    def map_all(self, texts: Sequence[str]) -> list[list[Item]]:
        """:meth:`map` of every text, the items left to the embedding matcher encoded in one
        call (each distinct text once; a vector depends on its own text only, so the result
        is :meth:`map`'s for each text alone)."""
        split = split_items_code if self.parsing == "code" else split_items
        return self.map_items([split(text) for text in texts])

    def map_items(self, answers_items: Sequence[Sequence[str]]) -> list[list[Item]]:
        """Per answer, its items (already split) with their codes, as :meth:`map_all`."""
        answers: list[list[Item | None]] = []
        pending: list[tuple[int, int, str, str, tuple[str, ...]]] = []
        for items in answers_items:
            mapped: list[Item | None] = []
            for item in items:
                codes, rest, invalid = self.explicit(item)
                if codes:
                    mapped.append(Item(item, tuple(codes), "code", invalid=tuple(invalid)))
                    continue
                hit = self.candidates.exact(rest) if self.candidates and rest else None
                if hit is not None:
                    mapped.append(Item(item, self.candidates.codes[hit], "title", 1.0,
                                       tuple(invalid)))
                    continue
                pending.append((len(answers), len(mapped), item, rest or item, tuple(invalid)))
                mapped.append(None)
            answers.append(mapped)
        if pending and self.candidates and self.candidates.titles:
            queries = list(dict.fromkeys(query for *_, query, _ in pending))
            vectors, self.embeddings_key = self.candidates.embedded
            found = dict(zip(queries, embedding.nearest(queries, vectors,
                                                        self.candidates.encoder), strict=True))
            for answer, slot, item, query, invalid in pending:
                index, similarity = found[query]
                if self.threshold is None or similarity >= self.threshold:
                    answers[answer][slot] = Item(item, self.candidates.codes[index],
                                                 "embedding", round(similarity, 6), invalid)
        for answer, slot, item, _, invalid in pending:
            if answers[answer][slot] is None:
                answers[answer][slot] = Item(item, (), "none", invalid=invalid)
        return [[m for m in mapped if m is not None] for mapped in answers]


def codes_of(items: Sequence[Item], pick: Callable[[tuple[str, ...]], str] | None = None
             ) -> list[str]:
    """The distinct codes of the items, in order of first appearance; an item with
    alternatives contributes one of them: ``pick(alternatives)``, by default the first."""
    found: list[str] = []
    for item in items:
        if item.alternatives:
            found.append(pick(item.codes) if pick else item.codes[0])
        else:
            found.extend(item.codes)
    return list(dict.fromkeys(found))
