"""MeDiSumQA and MeDiSumCode (CLUE's two MIMIC-IV tasks): built from MIMIC tables or released JSON.

MeDiSumCode, built: every discharge summary (MIMIC-IV-Note 2.2 ``discharge.csv``) whose admission
has diagnoses in MIMIC-IV ``hosp/diagnoses_icd``, paired by ``hadm_id`` with the admission's
ICD-10-CM codes (dotless, ``seq_num`` order, duplicates dropped) as the target. The paper builds
an ICD-10 dataset; ICD-9-coded admissions are, by ``icd9``: ``exclude`` (default, only ICD-10
codes count and an admission without any is left out) or ``map`` (translated with the CMS GEM
file ``2018_I9gem.txt``, as the authors' released script does with a mapping library). The
summary is the whole note. Admissions are ranked by a seeded hash of the note id: the first
``n_exemplars`` are exemplars, the next ``n`` are evaluated (the paper: 500, one exemplar).

MeDiSumCode, released JSON (``code_json``): a JSON array or JSONL of objects with ``hadm_id``,
``text`` and ``icd_codes`` (a list of codes or of ``{"code": ..., "description": ...}``), the
shape of the authors' generation script output.

MeDiSumQA: the question-answer pairs come from the authors' LLM generation and manual review, so
they are read from a file (``qa``): a JSON array or JSONL of objects with ``note_id``,
``question`` and ``answer`` (``Question``/``Answer`` accepted) and optionally the summary text
under ``discharge_summary``, ``without_discharge_summary`` or ``text``. Without a text the note is
looked up by ``note_id`` in ``discharge.csv``. Either way the patient letter ("Discharge
Instructions:" section, the questions' source) is removed from the summary, as the paper does; a
note without that section is an error. Exemplars are held out by note, so no evaluated question
shares a summary with an exemplar.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from clineval.benchmarks.base.exemplars import hold_out, rank, slug
from clineval.benchmarks.base.sources import require
from clineval.benchmarks.clue.loaders import setting
from clineval.io import DataError, Record, open_text
from clineval.mimic.hosp import Diagnosis, read_diagnoses_icd, read_icd9_gem
from clineval.mimic.notes import has_patient_letter, read_discharge, split_patient_letter

NOTE_WHERE = ("PhysioNet 'MIMIC-IV-Note' v2.2 (credentialed), note/discharge.csv.gz: "
              "https://physionet.org/content/mimic-iv-note/2.2/")
HOSP_WHERE = ("PhysioNet 'MIMIC-IV' v2.2 (credentialed), hosp/diagnoses_icd.csv.gz: "
              "https://physionet.org/content/mimiciv/2.2/")
QA_WHERE = ("PhysioNet 'MeDiSumQA' v1.0.0 (credentialed): "
            "https://physionet.org/content/medisumqa/1.0.0/")
GEM_WHERE = "CMS 2018 ICD-10-CM General Equivalence Mappings (2018_I9gem.txt), cms.gov"
ICD9_POLICIES = ("exclude", "map")
_TEXT_KEYS = ("discharge_summary", "without_discharge_summary", "text")


def read_records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """A JSON array or JSONL of objects -> ``(record number, object)`` (1-based)."""
    with open_text(path) as handle:
        text = handle.read()
    try:
        data = json.loads(text)
        items = data if isinstance(data, list) else [data]
    except json.JSONDecodeError:
        items = []
        for line, raw in enumerate(text.splitlines(), start=1):
            if raw.strip():
                try:
                    items.append(json.loads(raw))
                except json.JSONDecodeError as err:
                    raise DataError(path, line, None, f"neither JSON nor JSONL: {err.msg}") from err
    records = []
    for number, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            raise DataError(path, number, None, "expected an object")
        records.append((number, item))
    if not records:
        raise DataError(path, None, None, "no records")
    return records


def _field(path: Path, number: int, record: dict[str, Any], *names: str) -> str:
    for name in names:
        value = record.get(name)
        if isinstance(value, str) and value.strip():
            return value.strip()
    raise DataError(path, number, names[0], "missing or empty")


# ---------------------------------------------------------------- MeDiSumCode

def _codes_by_admission(
    path: Path, icd9: str, gem: dict[str, list[str]] | None
) -> dict[int, list[str]]:
    """ICD-10-CM codes per admission after the ICD-9 policy, in seq_num order, deduplicated."""
    rows: dict[int, list[Diagnosis]] = {}
    for diagnosis in read_diagnoses_icd(path):
        rows.setdefault(diagnosis.hadm_id, []).append(diagnosis)
    result = {}
    for hadm, diagnoses in rows.items():
        codes: list[str] = []
        for d in sorted(diagnoses, key=lambda d: d.seq_num):
            if d.icd_version == 10:
                codes.append(d.icd_code)
            elif icd9 == "map" and gem is not None:
                codes.extend(gem.get(d.icd_code, []))
        if codes:
            result[hadm] = list(dict.fromkeys(codes))
    return result


def _code_example(note_id: str, hadm_id: int, text: str, codes: list[str], meta: Record) -> Record:
    return {
        "id": f"medisumcode-{slug(note_id)}",
        "dataset": "medisumcode",
        "fields": {"discharge_summary": text.strip()},
        "reference": codes,
        "choices": None,
        "meta": {"hadm_id": hadm_id, "note_id": note_id, **meta},
    }


def build_medisumcode(
    discharge: Path,
    diagnoses_icd: Path,
    *,
    icd9: str = "exclude",
    icd9_gem: Path | None = None,
) -> list[Record]:
    """One example per discharge note whose admission has ICD-10 codes (after the ICD-9 policy)."""
    if icd9 not in ICD9_POLICIES:
        raise ValueError(f"icd9 must be one of {ICD9_POLICIES}, got {icd9!r}")
    gem = read_icd9_gem(icd9_gem) if icd9 == "map" and icd9_gem else None
    codes = _codes_by_admission(diagnoses_icd, icd9, gem)
    examples = []
    for note in read_discharge(discharge):
        if note.hadm_id in codes:
            examples.append(_code_example(
                note.note_id, note.hadm_id, note.text, codes[note.hadm_id],
                {"source": discharge.name, "row": note.row, "codes_from": diagnoses_icd.name,
                 "icd9": icd9},
            ))
    if not examples:
        raise DataError(discharge, None, "hadm_id",
                        f"no note's admission has ICD-10 codes in {diagnoses_icd.name}")
    return examples


def read_medisumcode_json(path: Path) -> list[Record]:
    """Released-style records -> examples (codes dotless upper case, order kept)."""
    examples = []
    for number, record in read_records(path):
        text = _field(path, number, record, "text")
        raw_codes = record.get("icd_codes")
        if not isinstance(raw_codes, list) or not raw_codes:
            raise DataError(path, number, "icd_codes", "missing or empty list")
        codes = []
        for item in raw_codes:
            code = item.get("code") if isinstance(item, dict) else item
            if not isinstance(code, str) or not code.replace(".", "").strip().isalnum():
                raise DataError(path, number, "icd_codes", f"not an ICD code: {item!r}")
            codes.append(code.replace(".", "").strip().upper())
        hadm = record.get("hadm_id")
        if hadm is None:
            raise DataError(path, number, "hadm_id", "missing")
        note_id = str(record.get("note_id") or f"hadm-{hadm}")
        examples.append(_code_example(note_id, int(hadm), text, list(dict.fromkeys(codes)),
                                      {"source": path.name, "record": number}))
    return examples


def _rank_split(
    examples: list[Record], n: int | None, n_exemplars: int, seed: int
) -> tuple[list[Record], list[Record]]:
    ordered = sorted(examples, key=lambda r: rank(r["id"], seed))
    exemplars = [{**r, "meta": {**r["meta"], "held_out": True}} for r in ordered[:n_exemplars]]
    rest = ordered[n_exemplars:]
    return (rest if n is None else rest[:n]), exemplars


def load_medisumcode(
    discharge: Path | str | None = None,
    diagnoses_icd: Path | str | None = None,
    *,
    code_json: Path | str | None = None,
    n: int | None = 500,
    n_exemplars: int = 1,
    seed: int = 0,
    icd9: str = "exclude",
    icd9_gem: Path | str | None = None,
) -> tuple[list[Record], list[Record]]:
    """From ``code_json`` when set, else built from the two MIMIC tables; ``n`` None: all."""
    task = "medisumcode"
    if code_json is not None:
        path = require(code_json, task, "a MeDiSumCode JSON (hadm_id, text, icd_codes)",
                       "the CLUE authors' generation script run on your MIMIC-IV copy",
                       setting(task, "code_json"))
        examples = read_medisumcode_json(path)
    else:
        notes = require(discharge, task, "MIMIC-IV-Note discharge.csv(.gz)", NOTE_WHERE,
                        setting(task, "discharge"))
        hosp = require(diagnoses_icd, task, "MIMIC-IV hosp/diagnoses_icd.csv(.gz)", HOSP_WHERE,
                       setting(task, "diagnoses_icd"))
        gem = None
        if icd9 == "map":
            gem = require(icd9_gem, task, "the ICD-9 to ICD-10 GEM file 2018_I9gem.txt",
                          GEM_WHERE, setting(task, "icd9_gem"))
        examples = build_medisumcode(notes, hosp, icd9=icd9, icd9_gem=gem)
    return _rank_split(examples, n, n_exemplars, seed)


# ---------------------------------------------------------------- MeDiSumQA

def _notes_by_id(path: Path, wanted: Iterable[str]) -> dict[str, tuple[str, int]]:
    wanted = set(wanted)
    found = {}
    for note in read_discharge(path):
        if note.note_id in wanted:
            found[note.note_id] = (note.text, note.row)
    return found


def read_medisumqa(qa: Path, discharge: Path | None) -> list[Record]:
    """QA records -> examples whose summary has its patient letter removed."""
    records = read_records(qa)
    missing_text = [
        _field(qa, n, r, "note_id") for n, r in records
        if not any(isinstance(r.get(k), str) and r[k].strip() for k in _TEXT_KEYS)
    ]
    notes: dict[str, tuple[str, int]] = {}
    if missing_text:
        if discharge is None:
            raise DataError(qa, None, "discharge_summary",
                            "records carry no summary text; set the discharge table")
        notes = _notes_by_id(discharge, missing_text)
    examples, seen = [], {}
    for number, record in records:
        note_id = _field(qa, number, record, "note_id")
        question = _field(qa, number, record, "question", "Question")
        answer = _field(qa, number, record, "answer", "Answer")
        text = next((record[k] for k in _TEXT_KEYS
                     if isinstance(record.get(k), str) and record[k].strip()), None)
        source: Record = {"source": qa.name, "record": number}
        from_table = text is None
        if text is None:
            if note_id not in notes:
                raise DataError(qa, number, "note_id", f"{note_id!r} not in {discharge}")
            text, row = notes[note_id]
            source |= {"note_source": discharge.name if discharge else None, "note_row": row}
        split = split_patient_letter(text)
        if from_table and (split is None or not has_patient_letter(split[1])):
            split = None
        if split is not None:
            summary = split[0]
        elif not from_table and "discharge instructions:" not in text.lower():
            summary = text  # released text, its letter already removed
        else:
            raise DataError(qa, number, "note_id",
                            f"{note_id!r}: no patient letter (Discharge Instructions) to remove")
        seen[note_id] = seen.get(note_id, 0) + 1
        examples.append({
            "id": f"medisumqa-{slug(note_id)}-{seen[note_id]}",
            "dataset": "medisumqa",
            "fields": {"discharge_summary": summary.strip(), "question": question},
            "reference": answer,
            "choices": None,
            "meta": {"note_id": note_id, "letter_removed": split is not None, **source},
        })
    return examples


def load_medisumqa(
    qa: Path | str | None,
    discharge: Path | str | None = None,
    *,
    n_exemplars: int = 1,
    seed: int = 0,
) -> tuple[list[Record], list[Record]]:
    """QA examples less ``n_exemplars`` exemplars held out by note."""
    task = "medisumqa"
    qa_path = require(qa, task, "the MeDiSumQA question-answer file", QA_WHERE, setting(task, "qa"))
    notes = None
    if discharge is not None:
        notes = require(discharge, task, "MIMIC-IV-Note discharge.csv(.gz)", NOTE_WHERE,
                        setting(task, "discharge"))
    examples = read_medisumqa(qa_path, notes)
    return hold_out(examples, n_exemplars, seed, group=lambda r: r["meta"]["note_id"])
