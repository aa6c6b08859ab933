"""The MedEval input formats (version 1), read into records with errors naming file, row, field.

Sentences CSV (``medeval-sentences/1``), one sentence a row::

    id, domain, [modality], [split], sentence, [abnormal], [ambiguous], [rewrite]

Reports CSV (``medeval-reports/1``), one report a row::

    id, domain, [modality], [split], findings, impression, [codes]

(bracketed columns may be left out: they read as empty.)

``domain`` is the body part (``chest``, ``foot``, ``ankle``, ...), lower-cased; ``modality``
is free text and optional; ``split`` is ``train``, ``validation`` or ``test`` in every row, or
empty in every row (then :mod:`splits` assigns the paper's 7:1:2 by seed). ``abnormal`` is
``abnormal``/``normal``, ``ambiguous`` is ``ambiguous``/``unambiguous`` (empty: no label for
that task); ``rewrite`` is the expert rewrite of an ambiguous sentence. ``codes`` lists
``Name=value`` pairs separated by ``;`` with values ``positive``, ``negative`` or ``unknown``;
codes not listed take the domain's ``unlisted`` value; an empty cell means the report has no
code labels. See docs/medeval.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from clineval.errors import DataError
from clineval.io import Record
from clineval.mimic.csvfile import read_rows

FORMAT_VERSION = "1"
SENTENCES_FORMAT = f"medeval-sentences/{FORMAT_VERSION}"
REPORTS_FORMAT = f"medeval-reports/{FORMAT_VERSION}"
#: Required columns; ``modality``, ``split``, the label columns and ``codes`` may be left out
#: (a missing column reads as empty in every row).
SENTENCE_COLUMNS = ("id", "domain", "sentence")
REPORT_COLUMNS = ("id", "domain", "findings", "impression")
SPLITS = ("train", "validation", "test")
ABNORMAL_LABELS = ("abnormal", "normal")
AMBIGUOUS_LABELS = ("ambiguous", "unambiguous")
CODE_VALUES = ("positive", "negative", "unknown")
#: The domain group a body part belongs to: chest is "chest", every other domain
#: "miscellaneous" (the paper's two columns).
CHEST = "chest"
MISC = "miscellaneous"


def domain_group(domain: str, chest_domains: Sequence[str] = (CHEST,)) -> str:
    return CHEST if domain in chest_domains else MISC


def _label(path: Path, row: int, field: str, value: str, allowed: tuple[str, ...]) -> str | None:
    text = value.strip().lower()
    if not text:
        return None
    if text not in allowed:
        raise DataError(path, row, field, f"{value!r} is not one of {', '.join(allowed)} or empty "
                        "(expected one of them)")
    return text


def _common(path: Path, row: int, record: Mapping[str, str], seen: set[str]) -> Record:
    rid = record["id"].strip()
    if not rid:
        raise DataError(path, row, "id", "empty: expected a value")
    if rid in seen:
        raise DataError(path, row, "id", f"{rid!r} appears twice: expected each id once")
    seen.add(rid)
    domain = record["domain"].strip().lower()
    if not domain:
        raise DataError(path, row, "domain", "empty: expected a value")
    split = (record.get("split") or "").strip().lower()
    if split and split not in SPLITS:
        raise DataError(path, row, "split", f"{record['split']!r} is not one of {SPLITS} or empty "
                        "(expected one of them)")
    return {
        "id": rid,
        "domain": domain,
        "modality": (record.get("modality") or "").strip(),
        "split": split or None,
        "source": path.name,
        "row": row,
    }


def check_splits(path: Path, records: list[Record]) -> None:
    """Every row gives a split, or none does."""
    given = [r for r in records if r["split"]]
    if given and len(given) != len(records):
        first = next(r for r in records if not r["split"])
        raise DataError(path, first["row"], "split",
                        "empty, but other rows give a split: give it in every row or in none")


def read_sentences(path: Path) -> list[Record]:
    """The sentences CSV as records (``abnormal``/``ambiguous`` None where unlabelled)."""
    records: list[Record] = []
    seen: set[str] = set()
    for row, raw in read_rows(path, SENTENCE_COLUMNS):
        record = _common(path, row, raw, seen)
        sentence = raw["sentence"].strip()
        if not sentence:
            raise DataError(path, row, "sentence", "empty: expected a value")
        ambiguous = _label(path, row, "ambiguous", raw.get("ambiguous") or "", AMBIGUOUS_LABELS)
        rewrite = (raw.get("rewrite") or "").strip() or None
        if rewrite and ambiguous != "ambiguous":
            raise DataError(path, row, "rewrite",
                            "a rewrite is given for a sentence not labelled ambiguous")
        records.append({
            **record,
            "format": SENTENCES_FORMAT,
            "sentence": sentence,
            "abnormal": _label(path, row, "abnormal", raw.get("abnormal") or "", ABNORMAL_LABELS),
            "ambiguous": ambiguous,
            "rewrite": rewrite,
        })
    if not records:
        raise DataError(path, None, None, "no sentences")
    check_splits(path, records)
    return records


def normalise_code(name: str) -> str:
    """A code name compared case-, space- and punctuation-free (``Pleural-Effusion``)."""
    return "".join(ch for ch in name.lower() if ch.isalnum())


def parse_codes(
    path: Path | str, row: int, text: str, codes: Sequence[str], unlisted: str
) -> dict[str, str]:
    """``Name=value; ...`` -> a value for every code of the domain (``unlisted`` for the rest)."""
    by_key = {normalise_code(c): c for c in codes}
    values: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        name, sep, value = part.partition("=")
        if not sep:
            raise DataError(path, row, "codes", f"{part!r} is not Name=value")
        code = by_key.get(normalise_code(name))
        if code is None:
            raise DataError(path, row, "codes",
                            f"{name.strip()!r} is not a code of this domain ({', '.join(codes)})")
        label = value.strip().lower()
        if label not in CODE_VALUES:
            raise DataError(path, row, "codes",
                            f"{code}: {value.strip()!r} is not one of {', '.join(CODE_VALUES)}")
        if code in values:
            raise DataError(path, row, "codes", f"{code} is given twice")
        values[code] = label
    return {code: values.get(code, unlisted) for code in codes}


def read_reports(
    path: Path, code_sets: Mapping[str, Mapping[str, Any]] | None = None
) -> list[Record]:
    """The reports CSV as records; ``codes`` None where the row gives none.

    ``code_sets``: per domain, ``codes`` (names) and ``unlisted`` (the value of codes a row does
    not list); a row with codes in a domain without a code set is an error. None: the codes
    column is not read (tasks that use no codes).
    """
    records: list[Record] = []
    seen: set[str] = set()
    for row, raw in read_rows(path, REPORT_COLUMNS):
        record = _common(path, row, raw, seen)
        findings, impression = raw["findings"].strip(), raw["impression"].strip()
        if not findings and not impression:
            raise DataError(path, row, "findings", "findings and impression are both empty")
        codes = None
        if code_sets is not None and (raw.get("codes") or "").strip():
            spec = code_sets.get(record["domain"])
            if spec is None:
                raise DataError(path, row, "codes", f"no code list is configured for domain "
                                f"{record['domain']!r} (known: {', '.join(sorted(code_sets))})")
            codes = parse_codes(path, row, raw["codes"], spec["codes"], spec["unlisted"])
        records.append({**record, "format": REPORTS_FORMAT, "findings": findings,
                        "impression": impression, "codes": codes})
    if not records:
        raise DataError(path, None, None, "no reports")
    check_splits(path, records)
    return records
