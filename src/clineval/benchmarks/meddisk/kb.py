"""The MedDisK knowledge-base file (format version 1): JSONL, one disease per line.

An optional first line ``{"format": "meddisk-kb", "version": 1}`` names the format. Every other
line is a disease::

    {"id": "D006", "name": {"zh": "2型糖尿病", "en": "type 2 diabetes"}, "role": "test",
     "synthetic": true, "icd10": "E11.9",
     "aspects": {"primary_symptoms": {"zh": ["多饮", "多尿"], "en": ["polydipsia", "polyuria"]},
                 "treatment_principles": {"zh": "控制血糖……", "en": "control blood glucose ..."},
                 "severity_level": 2, "onset_ages": {"zh": "", "en": ""}}}

``role``: ``demo`` (a demonstration disease, never evaluated) or ``test`` (default). Values by
the aspect's type: enumerated ``{lang: [str, ...]}``, declarative ``{lang: str}``, numeric an
integer (any language). An empty list or string means "none" (the disease has no such
knowledge); a missing aspect, ``null`` or a missing language means "not annotated" (the pair is
skipped and counted). Errors name the file, line, disease and aspect.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clineval.benchmarks.meddisk.aspects import Aspect
from clineval.errors import DataError
from clineval.io import json_line_error

FORMAT, VERSION = "meddisk-kb", 1
ROLES = ("test", "demo")
Value = list[str] | str | int


@dataclass(frozen=True)
class Disease:
    id: str
    names: dict[str, str]
    role: str
    synthetic: bool
    #: aspect key -> {lang: value}; a numeric value is stored under every language as ``"*"``.
    values: dict[str, dict[str, Value]] = field(default_factory=dict)

    def value(self, aspect: str, lang: str) -> Value | None:
        """The value of ``aspect`` in ``lang``; None when not annotated."""
        by_lang = self.values.get(aspect) or {}
        return by_lang.get("*", by_lang.get(lang))


def _where(path: Path, line: int, disease: str | None, aspect: str | None) -> tuple[Path, str]:
    row = f"{line}" + (f" (disease {disease!r})" if disease else "")
    return path, row + (f", aspect {aspect!r}" if aspect else "")


def _value(raw: Any, aspect: Aspect, path: Path, line: int, disease: str) -> dict[str, Value]:
    def fail(problem: str, lang: str | None = None) -> DataError:
        file, row = _where(path, line, disease, aspect.key)
        return DataError(file, row, f"aspects.{aspect.key}" + (f".{lang}" if lang else ""), problem)

    if aspect.type == "numeric":
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise fail(f"expected an integer (a numeric aspect needs an integer), got {raw!r}")
        if aspect.allowed is not None and raw not in aspect.allowed:
            raise fail(f"{raw} is not one of the allowed values {list(aspect.allowed)}: expected "
                       "one of them")
        return {"*": raw}
    if not isinstance(raw, dict):
        raise fail(f"expected {{language: value}}, got {type(raw).__name__}")
    values: dict[str, Value] = {}
    for lang, value in raw.items():
        if value is None:
            continue
        if aspect.type == "enumerated":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise fail("expected a list of strings ([] for none) for an enumerated aspect",
                           lang)
            values[lang] = [v.strip() for v in value if v.strip()]
        else:
            if not isinstance(value, str):
                raise fail('expected a string ("" for none) for a declarative aspect', lang)
            values[lang] = value.strip()
    return values


def _disease(record: Any, aspects: dict[str, Aspect], path: Path, line: int) -> Disease:
    if not isinstance(record, dict):
        raise DataError(path, line, None, "expected a JSON object (one disease)")
    ident = record.get("id")
    if not isinstance(ident, str) or not ident.strip():
        raise DataError(path, line, "id", "expected a non-empty string, got "
                        f"{'nothing' if ident is None else repr(ident)}")
    file, row = _where(path, line, ident, None)
    names = record.get("name")
    if not isinstance(names, dict) or not names or not all(
        isinstance(v, str) and v.strip() for v in names.values()
    ):
        raise DataError(file, row, "name", 'expected {"zh": ..., "en": ...} with non-empty names')
    role = record.get("role", "test")
    if role not in ROLES:
        raise DataError(file, row, "role", f"expected one of {', '.join(ROLES)}, got {role!r}")
    raw_aspects = record.get("aspects")
    if not isinstance(raw_aspects, dict):
        raise DataError(file, row, "aspects", "expected an object {aspect key: value}")
    unknown = sorted(set(raw_aspects) - set(aspects))
    if unknown:
        raise DataError(file, row, "aspects", f"unknown aspect(s) {unknown}: expected the "
                        f"aspect keys {', '.join(aspects)}")
    values = {
        key: _value(raw, aspects[key], path, line, ident)
        for key, raw in raw_aspects.items()
        if raw is not None
    }
    return Disease(ident, {k: v.strip() for k, v in names.items()}, role,
                   bool(record.get("synthetic", False)), values)


def load_kb(path: Path, aspects: dict[str, Aspect]) -> list[Disease]:
    """The diseases of a KB file, checked against the aspect registry."""
    diseases: list[Disease] = []
    seen: dict[str, int] = {}
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError as err:
        raise DataError(path, None, None, "file not found") from err
    for line, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError as err:
            raise json_line_error(path, line, text, err, line == len(lines)) from err
        if isinstance(record, dict) and "format" in record:
            if line != 1 or record.get("format") != FORMAT or record.get("version") != VERSION:
                raise DataError(path, line, "format", f"a header must be the first line and "
                                f"read {{\"format\": \"{FORMAT}\", \"version\": {VERSION}}}")
            continue
        disease = _disease(record, aspects, path, line)
        if disease.id in seen:
            raise DataError(path, line, "id", f"{disease.id!r} is also on line "
                            f"{seen[disease.id]}: expected each disease id once")
        seen[disease.id] = line
        diseases.append(disease)
    if not diseases:
        raise DataError(path, None, None, "the knowledge base holds no disease")
    return diseases
