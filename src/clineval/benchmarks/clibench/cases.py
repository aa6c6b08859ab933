"""MIMIC-IV -> CliBench cases: targets per task, the evaluation sample, and each case's input.

Population: admissions with a discharge summary. Targets: diagnoses, every ICD-10-CM code of
the admission (admissions with an ICD-9 code, or a code the tabular lacks, are dropped);
procedures, lab orders and prescriptions, the first batch (:mod:`clineval.mimic.first_batch`),
procedures of ICD-9-coded admissions dropped, lab itemids mapped to LOINC, NDCs to ATC.
Input: the patient profile, the admission record (the discharge summary's admission sections,
whole sections), and for diagnoses the radiology reports, the lab results and the previous
admission's diagnoses.
"""

from __future__ import annotations

import dataclasses
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pandas as pd

from clineval.benchmarks.base.exemplars import pick
from clineval.benchmarks.base.settings import read, read_own
from clineval.errors import ConfigError, DataError
from clineval.io import Record
from clineval.metrics.ontologies import atc, icd10cm, loinc
from clineval.mimic import sections
from clineval.mimic.dictionaries import read_d_icd, read_d_labitems
from clineval.mimic.first_batch import first_batch
from clineval.mimic.mimic4 import integers, read_chunks, read_table, times, unique

from . import sampling
from .settings import Derivation, Sample


@dataclass(frozen=True)
class Sources:
    """The task's files by role (hosp and note tables, code-system files)."""

    files: dict[str, Path]

    def __getitem__(self, role: str) -> Path:
        if role not in self.files:
            raise ConfigError(f"CliBench: no source file for {role!r}")
        return self.files[role]


#: MIMIC-IV's ``anchor_age`` tops out at 91 (older patients are shown as 91).
MAX_AGE = 91


def _admissions(sources: Sources) -> pd.DataFrame:
    path = sources["admissions"]
    frame = read_table(path, "admissions", ("subject_id", "hadm_id", "admittime", "dischtime",
                                            "admission_type", "admission_location", "insurance",
                                            "language", "marital_status", "race"))
    frame["hadm"] = integers(frame, "hadm_id", path).astype("int64")
    unique(frame, "hadm_id", path)
    frame["subject"] = integers(frame, "subject_id", path).astype("int64")
    frame["admit"] = times(frame, "admittime", path, allow_empty=False)
    return frame.set_index("hadm", drop=False)


def _patients(sources: Sources) -> pd.DataFrame:
    path = sources["patients"]
    frame = read_table(path, "patients", ("subject_id", "gender", "anchor_age", "anchor_year"))
    frame["subject"] = integers(frame, "subject_id", path).astype("int64")
    unique(frame, "subject_id", path)
    frame["age"] = integers(frame, "anchor_age", path, low=0, high=MAX_AGE)
    frame["year"] = integers(frame, "anchor_year", path)
    return frame.set_index("subject", drop=False)


def _noted(sources: Sources) -> set[int]:
    path = sources["discharge"]
    found: set[int] = set()
    for chunk in read_chunks(path, "discharge", ("hadm_id",)):
        found.update(int(h) for h in integers(chunk, "hadm_id", path))
    return found


@cache
def _diagnoses_of(path: Path) -> tuple[dict[int, list[str]], set[int], set[int]]:
    return _diagnoses(Sources({"diagnoses_icd": path}))


def _diagnoses(sources: Sources) -> tuple[dict[int, list[str]], set[int], set[int]]:
    """ICD-10 codes by admission (seq_num order), admissions with an ICD-9 code, admissions
    with a code the ICD-10-CM tabular lacks."""
    path = sources["diagnoses_icd"]
    codes: dict[int, list[tuple[int, str]]] = defaultdict(list)
    icd9: set[int] = set()
    invalid: set[int] = set()
    for chunk in read_chunks(path, "diagnoses_icd", ("hadm_id", "seq_num", "icd_code",
                                                     "icd_version")):
        hadm = integers(chunk, "hadm_id", path)
        seq = integers(chunk, "seq_num", path)
        version = integers(chunk, "icd_version", path)
        for h, s, v, code, row in zip(hadm, seq, version, chunk["icd_code"], chunk["row"],
                                      strict=True):
            if v == 9:
                icd9.add(int(h))
                continue
            if v != 10:
                raise DataError(path, int(row), "icd_version", f"expected 9 or 10, got {v}")
            found = icd10cm.canonical(code)
            if found is None:
                invalid.add(int(h))
            else:
                codes[int(h)].append((int(s), found))
    ordered = {h: list(dict.fromkeys(c for _, c in sorted(v))) for h, v in codes.items()}
    return ordered, icd9, invalid


def _icd9_procedures(sources: Sources) -> set[int]:
    path = sources["procedures_icd"]
    found: set[int] = set()
    for chunk in read_chunks(path, "procedures_icd", ("hadm_id", "icd_version")):
        version = integers(chunk, "icd_version", path)
        found.update(int(h) for h in integers(chunk, "hadm_id", path)[version == 9])
    return found


def targets(kind: str, data: Record, sources: Sources, admissions: pd.DataFrame,
            noted: set[int]) -> tuple[dict[int, list[str]], dict[int, list[str]]]:
    """Gold codes per eligible admission, and the raw items they came from (itemids, NDCs)."""
    admit = admissions["admit"]
    rule = data["first_batch"]
    if kind == "diagnoses":
        codes, icd9, invalid = _diagnoses_of(sources["diagnoses_icd"])
        gold = {h: c for h, c in codes.items() if h in noted and h not in icd9 | invalid and c}
        return gold, {}
    if kind == "procedures":
        batch = first_batch(sources["procedures_icd"], "procedures_icd", "chartdate",
                            "icd_code", admit, rule, date_only=True)
        excluded = _icd9_procedures(sources)
        return {h: c for h, c in batch.items() if h in noted and h not in excluded and c}, {}
    if kind == "labs":
        batch = first_batch(sources["labevents"], "labevents", "charttime", "itemid", admit,
                            rule)
        if data["lab_codes"] == "itemid":
            return {h: b for h, b in batch.items() if h in noted and b}, {}
        mapping = loinc.read_itemid_map(sources["lab_loinc_map"]).loinc
        gold = {h: list(dict.fromkeys(mapping[i] for i in items if i in mapping))
                for h, items in batch.items() if h in noted}
        return {h: g for h, g in gold.items() if g}, {h: batch[h] for h in gold if gold[h]}
    if kind == "prescriptions":
        ndc_map = atc.read_ndc_map(sources["ndc_atc"])
        batch = first_batch(sources["prescriptions"], "prescriptions", "starttime", "ndc",
                            admit, rule)
        raw = {h: [atc.normalize_ndc(n) for n in items if len(atc.normalize_ndc(n)) > 5]
               for h, items in batch.items() if h in noted}
        gold = {h: list(dict.fromkeys(a for n in ndcs for a in ndc_map.get(n, ())))
                for h, ndcs in raw.items()}
        return {h: g for h, g in gold.items() if g}, {h: raw[h] for h in gold if gold[h]}
    raise ConfigError(f"CliBench task {kind!r}")


def _strata(sources: Sources, hadms: set[int]) -> tuple[dict[int, list[str]],
                                                         dict[int, list[str]]]:
    """Services and care units of each admission (in file order)."""
    services: dict[int, list[str]] = defaultdict(list)
    units: dict[int, list[str]] = defaultdict(list)
    for table, column, target in (("services", "curr_service", services),
                                  ("transfers", "careunit", units)):
        path = sources[table]
        for chunk in read_chunks(path, table, ("hadm_id", column)):
            chunk = chunk[chunk["hadm_id"].str.strip() != ""]
            for h, value in zip(integers(chunk, "hadm_id", path), chunk[column], strict=True):
                if int(h) in hadms and value.strip() and value.strip() not in target[int(h)]:
                    target[int(h)].append(value.strip())
    return services, units


def _notes(sources: Sources, table: str, hadms: set[int]) -> dict[int, list[str]]:
    """Note texts of the given admissions, in ``note_seq`` order."""
    path = sources[table]
    found: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for chunk in read_chunks(path, table, ("hadm_id", "note_seq", "text"), 50_000):
        chunk = chunk[chunk["hadm_id"].str.strip() != ""]
        hadm = integers(chunk, "hadm_id", path)
        mine = hadm.isin(hadms)
        if not mine.any():
            continue
        seq = integers(chunk[mine.to_numpy()], "note_seq", path, allow_empty=True).fillna(0)
        for h, s, text in zip(hadm[mine], seq, chunk.loc[mine.to_numpy(), "text"], strict=True):
            found[int(h)].append((int(s), text))
    return {h: [t for _, t in sorted(v, key=lambda x: x[0])] for h, v in found.items()}


def _lab_results(sources: Sources, hadms: set[int], values: str) -> dict[int, list[str]]:
    """Each admission's lab results as lines ``label for fluid (category): value unit, ...``."""
    items = read_d_labitems(sources["d_labitems"])
    path = sources["labevents"]
    lines: dict[int, list[str]] = defaultdict(list)
    columns = ("hadm_id", "itemid", "value", "valuenum", "valueuom", "ref_range_lower",
               "ref_range_upper", "flag")
    for chunk in read_chunks(path, "labevents", columns):
        chunk = chunk[chunk["hadm_id"].str.strip() != ""]
        hadm = integers(chunk, "hadm_id", path)
        mine = hadm.isin(hadms).to_numpy()
        if not mine.any():
            continue
        part = chunk[mine]
        for h, raw in zip(hadm[mine], part.itertuples(index=False), strict=True):
            item = items.get(int(raw.itemid)) if raw.itemid.strip().isdigit() else None
            number = raw.valuenum.strip()
            if item is None or (values == "numeric" and not number):
                continue
            line = f"{item.title}: {number or raw.value.strip()}"
            line += f" {raw.valueuom.strip()}" if raw.valueuom.strip() else ""
            low, high = raw.ref_range_lower.strip(), raw.ref_range_upper.strip()
            if low and high:
                line += f", normal range is {low}-{high}"
            if raw.flag.strip():
                line += f", flagged as {raw.flag.strip()}"
            lines[int(h)].append(line)
    return lines


def _age(admission: pd.Series, patient: pd.Series | None, style: str) -> str:
    if patient is None or pd.isna(patient["age"]):
        return "unknown"
    if style == "code":
        return str(int(patient["age"]))
    return str(int(patient["age"]) + admission["admit"].year - int(patient["year"]))


def profile(admission: pd.Series, patient: pd.Series | None, style: str) -> str:
    """The patient profile sentence (paper: gender, race, age at admission, insurance,
    language, marital status; ``code``: anchor age and admission location, no language)."""
    gender = "unknown" if patient is None else patient["gender"] or "unknown"
    parts = [f"gender: {gender}", f"race: {admission['race'] or 'unknown'}",
             f"age: {_age(admission, patient, style)}",
             f"insurance: {admission['insurance'] or 'unknown'}"]
    if style == "code":
        parts.append(f"admission location: {admission['admission_location'] or 'unknown'}")
    else:
        parts.append(f"language: {admission['language'] or 'unknown'}")
    parts.append(f"marital status: {admission['marital_status'] or 'unknown'}")
    return "; ".join(parts) + "."


def _previous(admissions: pd.DataFrame, hadm: int) -> int | None:
    """The patient's latest admission before ``hadm``."""
    row = admissions.loc[hadm]
    same = admissions[(admissions["subject"] == row["subject"])
                      & (admissions["admit"] < row["admit"])]
    return None if same.empty else int(same.sort_values("admit").iloc[-1]["hadm"])


def data_settings(data: Record) -> Record:
    """How cases are built (``Derivation``'s keys of ``data``, each default the schema's)."""
    return dataclasses.asdict(read_own(Derivation, data, "data"))


def derive(kind: str, data: Record, sources: Sources, n_exemplars: int
           ) -> tuple[list[Record], list[Record], Record]:
    """Examples, exemplars (patient-disjoint from the examples) and derivation facts."""
    settings = data_settings(data)
    admissions = _admissions(sources)
    patients = _patients(sources)
    noted = _noted(sources) & set(admissions.index)
    gold, raw = targets(kind, settings, sources, admissions, noted)
    branch = sorted(gold)
    services, units = _strata(sources, set(branch))
    labels = sampling.labels(kind, gold, sources.files.get("loinc_hierarchy"))
    sample = data.get("sample")
    chosen = sampling.select(branch, labels, services, units, sample, kind)
    seed = read(Sample, sample, "data.sample").seed
    eval_subjects = {int(admissions.at[h, "subject"]) for h in chosen}
    pool = [h for h in branch if int(admissions.at[h, "subject"]) not in eval_subjects]
    picked = [int(r["id"].split("-")[1]) for r in pick(
        [{"id": f"hadm-{h}"} for h in pool], n_exemplars, seed)]
    needed = set(chosen) | set(picked)
    notes = _notes(sources, "discharge", needed)
    extra: Record = {}
    if kind == "diagnoses":
        extra["radiology"] = _notes(sources, "radiology", needed)
        extra["labs"] = _lab_results(sources, needed, settings["lab_values"])
        extra["history"] = _history_codes(sources, admissions, needed) if settings["history"] \
            else {}
    cases = {h: case(kind, h, gold[h], raw.get(h, []), admissions, patients, notes, extra,
                     settings, services.get(h, []), units.get(h, [])) for h in needed}
    frequency = frequent_codes([gold[h] for h in pool])
    examples = [{**cases[h], "frequency_baseline": frequency} for h in chosen]
    exemplars = [{**cases[h], "meta": {**cases[h]["meta"], "held_out": True}} for h in picked]
    facts = {"population": len(noted), "branch": len(branch), "evaluated": len(chosen),
             "training_pool": len(pool), "seed": seed, "settings": settings}
    return examples, exemplars, facts


def _history_codes(sources: Sources, admissions: pd.DataFrame, hadms: set[int]
                   ) -> dict[int, list[str]]:
    codes, _, _ = _diagnoses_of(sources["diagnoses_icd"])
    titles = {icd10cm.canonical(c) or c: t for c, t in
              read_d_icd(sources["d_icd_diagnoses"], 10).items()}
    history = {}
    for hadm in hadms:
        previous = _previous(admissions, hadm)
        if previous is not None and codes.get(previous):
            history[hadm] = [f"{c} {titles.get(c, '')}".strip() for c in codes[previous]]
    return history


def frequent_codes(golds: list[list[str]]) -> list[str]:
    """The training pool's most frequent codes, as many as its mean target count (rounded);
    ties broken by code."""
    if not golds:
        return []
    counts = Counter(c for g in golds for c in set(g))
    k = max(1, round(sum(len(g) for g in golds) / len(golds)))
    return [c for c, _ in sorted(counts.items(), key=lambda x: (-x[1], x[0]))[:k]]


def case(kind: str, hadm: int, gold: list[str], raw: list[str], admissions: pd.DataFrame,
         patients: pd.DataFrame, notes: dict[int, list[str]], extra: Record, settings: Record,
         services: list[str], units: list[str]) -> Record:
    admission = admissions.loc[hadm]
    subject = int(admission["subject"])
    patient = patients.loc[subject] if subject in patients.index else None
    clean = (sections.admission_record if settings["record"] == "sections"
             else sections.paragraph_record)
    record = "\n\n".join(clean(text) for text in notes.get(hadm, []))
    segments = {"record": record}
    history = ""
    if kind == "diagnoses":
        shorten = (sections.radiology_findings if settings["radiology"] == "findings"
                   else str.strip)
        segments["radiology"] = "\n\n".join(shorten(t) for t in extra["radiology"].get(hadm, []))
        segments["labs"] = "\n".join(extra["labs"].get(hadm, []))
        history = "\n".join(extra["history"].get(hadm, []))
    first = icd10cm.at(gold[0], "chapter") if kind == "diagnoses" else set()
    race = str(admission["race"] or "UNKNOWN")
    return {
        "id": f"hadm-{hadm}",
        "task": kind,
        "subject_id": subject,
        "hadm_id": hadm,
        "profile": profile(admission, patient, settings["profile"]),
        "history": history,
        "segments": segments,
        "gold": gold,
        "groups": {
            "chapter": next(iter(first), "none"),
            "service": services[0] if services else "unknown",
            "care_unit": next((u for u in units if u != "Emergency Department"),
                              units[0] if units else "unknown"),
            "gender": "unknown" if patient is None else str(patient["gender"]),
            "race": sampling.simple_race(race),
            "insurance": str(admission["insurance"] or "unknown"),
            "language": str(admission["language"] or "unknown"),
            "marital_status": str(admission["marital_status"] or "unknown"),
        },
        "meta": {"source_items": raw, "services": services, "care_units": units},
    }
