"""Optional synonym normalisation (the authors normalised Departments and Ages with an in-house
thesaurus): a JSON file ``{aspect key: {variant: canonical}}``, applied to both the response and
the KB value before scoring: each enumerated item, or a declarative text as a whole, that equals
a variant (case-insensitive) becomes the canonical form. Setting ``scoring.synonyms`` (a path;
null: none); the file is a scoring input.
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache
from pathlib import Path

from clineval.benchmarks.meddisk.extract import Answer
from clineval.errors import DataError

Synonyms = dict[str, dict[str, str]]


@cache
def load(path: str) -> Synonyms:
    """The synonym map of ``path``, variants lower-cased; read once per process."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise DataError(path, None, None, f"cannot read the synonyms file: {err}") from err
    if not isinstance(data, dict):
        raise DataError(path, None, None, "expected {aspect key: {variant: canonical}}")
    synonyms: Synonyms = {}
    for aspect, mapping in data.items():
        if not isinstance(mapping, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in mapping.items()
        ):
            raise DataError(path, None, aspect, "expected {variant: canonical} strings")
        synonyms[aspect] = {k.strip().lower(): v.strip() for k, v in mapping.items()}
    return synonyms


def normalise(answer: Answer, mapping: dict[str, str]) -> Answer:
    """``answer`` with its items (or its text) replaced by their canonical forms."""
    if answer.none or not mapping:
        return answer
    if answer.items:
        items: list[str] = []
        for item in answer.items:
            canonical = mapping.get(item.lower(), item)
            if canonical not in items:
                items.append(canonical)
        return replace(answer, items=tuple(items), text=" ".join(items))
    return replace(answer, text=mapping.get(answer.text.lower(), answer.text))
