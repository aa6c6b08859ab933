"""A synthetic MIMIC-IV 2.2 (``hosp/``, ``note/``) in the real formats, deterministic by seed,
plus the code-system files a CliBench run needs in their real formats (a LOINC
``ComponentHierarchyBySystem.csv``, an itemid -> LOINC map in mimic-code's layout, an NDC -> ATC
map and ATC names).

Discharge summaries, patients and diagnoses come from :mod:`clineval.mimic.synthetic`; the
procedures, labs, prescriptions and radiology reports of an admission follow its problem's
scenario (:data:`~clineval.mimic.synthetic_mimic4_content.SCENARIOS`), and its chronic
conditions' home medications are prescribed again (unless the scenario holds them). A patient's
``anchor_age`` is set so that the age at admission (``anchor_age + year(admittime) -
anchor_year``) is the age the note states. Edge cases: every fourth admission is its patient's
second; about a fifth is coded in ICD-9; the first ICD-10 admission from index 2 on carries
``U09.9`` (not in the FY2021 tabular); labs before admission, in a first cluster, at +30 h and at
+3 days, text-only results and rows without ``hadm_id``; prescriptions with an empty NDC and the
NDC ``0``; procedures on days 0, 1 and 3.
"""

from __future__ import annotations

import csv
import gzip
import io
import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from clineval.io import atomic_writer
from clineval.mimic import synthetic
from clineval.mimic.icd10 import CODES
from clineval.mimic.mimic4 import COLUMNS
from clineval.mimic.synthetic_mimic4_content import (
    ATC_NAMES,
    CARE_UNITS,
    CHRONIC_DRUGS,
    DRUGS,
    LABS,
    LOINC_GROUPS,
    LOINC_LEVEL1,
    LOINC_LEVEL2,
    PCS,
    PCS_ICD9,
    PCS_TO_ICD9,
    SCENARIOS,
    SERVICES,
    Scenario,
    drug,
    lab,
)

NOT_IN_FY2021 = "U099"
_STAMP = "%Y-%m-%d %H:%M:%S"
#: Labs added on the day after admission (the first not in the admission's first panel).
ADD_ON = ("Magnesium", "Calcium, Total", "Thyroid Stimulating Hormone")


@dataclass(frozen=True)
class Layout:
    """Where the synthetic files go under one directory."""

    root: Path
    gz: bool = True

    def table(self, name: str) -> Path:
        folder = "note" if name in ("discharge", "radiology") else "hosp"
        return self.root / folder / (f"{name}.csv.gz" if self.gz else f"{name}.csv")

    @property
    def loinc_hierarchy(self) -> Path:
        return self.root / "codes" / "ComponentHierarchyBySystem.csv"

    @property
    def lab_loinc_map(self) -> Path:
        return self.root / "codes" / "d_labitems_to_loinc.csv"

    @property
    def ndc_atc(self) -> Path:
        return self.root / "codes" / "ndc_atc.csv"

    @property
    def atc_titles(self) -> Path:
        return self.root / "codes" / "atc_titles.csv"


@contextmanager
def _writer(path: Path, columns: tuple[str, ...]) -> Iterator[csv.writer]:  # type: ignore[valid-type]
    """A CSV writer on ``path``, written atomically; a ``.gz`` file gets a fixed gzip header
    (no time stamp, no name), so the same rows always give the same bytes."""
    with atomic_writer(path, binary=True) as raw:
        packed = (gzip.GzipFile(filename="", mode="wb", compresslevel=1, fileobj=raw, mtime=0)
                  if path.suffix == ".gz" else None)
        handle = io.TextIOWrapper(packed or raw, encoding="utf-8", newline="")
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(columns)
        yield writer
        handle.flush()
        handle.detach()  # the file itself is closed by atomic_writer
        if packed is not None:
            packed.close()


def _time(value: datetime) -> str:
    return value.strftime(_STAMP)


def write_code_files(layout: Layout) -> None:
    """The code-system files in their real formats (content synthetic where licensed)."""
    with atomic_writer(layout.loinc_hierarchy) as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(("PATH_TO_ROOT", "SEQUENCE", "IMMEDIATE_PARENT", "CODE", "CODE_TEXT"))
        for i, (code, text) in enumerate(LOINC_LEVEL1.values(), start=1):
            writer.writerow(("", i, "", code, text))
        for i, (code, text, up) in enumerate(LOINC_LEVEL2.values(), start=1):
            writer.writerow((LOINC_LEVEL1[up][0], i, LOINC_LEVEL1[up][0], code, text))
        for i, (code, text, up) in enumerate(LOINC_GROUPS.values(), start=1):
            parent = LOINC_LEVEL2[up]
            path = f"{LOINC_LEVEL1[parent[2]][0]}.{parent[0]}"
            writer.writerow((path, i, parent[0], code, text))
        for i, item in enumerate(LABS, start=1):
            group, _, up = LOINC_GROUPS[item.group]
            parent = LOINC_LEVEL2[up]
            path = f"{LOINC_LEVEL1[parent[2]][0]}.{parent[0]}.{group}"
            writer.writerow((path, i, group, item.loinc, f"{item.label} [{item.fluid}]"))
    mapping_columns = ("itemid (omop_source_code)", "label", "fluid", "category", "valueuom",
                       "omop_concept_id", "omop_concept_name", "omop_domain_id",
                       "omop_vocabulary_id", "omop_concept_class_id", "omop_standard_concept",
                       "omop_concept_code")
    with atomic_writer(layout.lab_loinc_map) as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(mapping_columns)
        for item in LABS:
            writer.writerow((item.itemid, item.label, item.fluid, item.category, item.unit, "",
                             f"{item.label} [{item.fluid}]", "Measurement", "LOINC",
                             "Lab Test", "S", item.loinc))
    with atomic_writer(layout.ndc_atc) as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(("ndc", "atc"))
        for drug in DRUGS:
            writer.writerow((drug.ndc, drug.atc))
    with atomic_writer(layout.atc_titles) as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(("atc", "name"))
        for code, name in sorted(ATC_NAMES.items()):
            writer.writerow((code, name))


def write_dictionaries(layout: Layout) -> None:
    with _writer(layout.table("d_icd_diagnoses"), COLUMNS["d_icd_diagnoses"]) as w:
        for code in CODES.values():
            w.writerow((code.code, 10, code.description))
            w.writerow((code.icd9, 9, f"{code.description} (ICD-9-CM)"))
        w.writerow((NOT_IN_FY2021, 10, "Post COVID-19 condition, unspecified"))
    with _writer(layout.table("d_icd_procedures"), COLUMNS["d_icd_procedures"]) as w:
        for code, title in PCS:
            w.writerow((code, 10, title))
        for code, title in PCS_ICD9:
            w.writerow((code, 9, title))
    with _writer(layout.table("d_labitems"), COLUMNS["d_labitems"]) as w:
        for item in LABS:
            w.writerow((item.itemid, item.label, item.fluid, item.category))


def write_mimic4(layout: Layout, n: int, seed: int = 0, labs_per_admission: int = 14) -> None:
    """Write ``n`` admissions in every table, the dictionaries and the code-system files."""
    notes = synthetic.admissions(n, seed)
    write_dictionaries(layout)
    write_code_files(layout)
    tables = ("patients", "admissions", "diagnoses_icd", "procedures_icd", "labevents",
              "prescriptions", "services", "transfers", "discharge", "radiology")
    with _writers(layout, tables) as w:
        seen_subjects: dict[int, int] = {}
        # the first ICD-10 admission from index 2 on carries a code the FY2021 tabular lacks
        unknown = next((k for k, n in enumerate(notes) if k >= 2 and n.icd_version == 10), -1)
        for k, note in enumerate(notes):
            rng = random.Random(f"mimic4-synthetic/{seed}/{k}")
            subject = note.subject_id
            admit = datetime.strptime(note.admitted, _STAMP)
            discharge = datetime.strptime(note.charttime, _STAMP) + timedelta(
                hours=rng.randint(10, 16))
            if subject not in seen_subjects:
                seen_subjects[subject] = k
                anchor_year = admit.year - rng.randint(0, 2)
                # the age at admission, anchor_age + year(admittime) - anchor_year, is the note's
                w["patients"].writerow((subject, "F" if note.female else "M",
                                        note.age - (admit.year - anchor_year), anchor_year,
                                        "2017 - 2019", ""))
            hadm = note.hadm_id
            service = SERVICES.get(_service(note.text), "MED")
            w["admissions"].writerow((
                subject, hadm, _time(admit), _time(discharge), "",
                rng.choice(("EW EMER.", "URGENT", "OBSERVATION ADMIT")), "P" + str(rng.randint(
                    10000, 99999)), "EMERGENCY ROOM", rng.choice(("HOME", "HOME HEALTH CARE",
                                                                  "SKILLED NURSING FACILITY")),
                rng.choice(("Medicare", "Medicaid", "Other")),
                rng.choice(("ENGLISH", "ENGLISH", "ENGLISH", "?")),
                rng.choice(("MARRIED", "SINGLE", "WIDOWED", "DIVORCED", "")),
                rng.choice(("WHITE", "BLACK/AFRICAN AMERICAN", "HISPANIC/LATINO - PUERTO RICAN",
                            "ASIAN - CHINESE", "UNKNOWN")),
                _time(admit - timedelta(hours=4)), _time(admit), 0))
            codes = list(note.codes) + ([NOT_IN_FY2021] if k == unknown else [])
            for seq, code in enumerate(codes, start=1):
                w["diagnoses_icd"].writerow((subject, hadm, seq, code, note.icd_version))
            scenario = scenario_of(note)
            _procedures(w["procedures_icd"], scenario, subject, hadm, admit, note.icd_version)
            _labs(w["labevents"], rng, scenario, k, subject, hadm, admit, labs_per_admission)
            _prescriptions(w["prescriptions"], prescribed(note), k, subject, hadm, admit)
            w["services"].writerow((subject, hadm, _time(admit), "", service))
            w["transfers"].writerow((subject, hadm, 30_000_000 + 2 * k, "ED",
                                     "Emergency Department", _time(admit - timedelta(hours=4)),
                                     _time(admit)))
            w["transfers"].writerow((subject, hadm, 30_000_001 + 2 * k, "admit",
                                     CARE_UNITS[service], _time(admit), _time(discharge)))
            w["discharge"].writerow((note.note_id, subject, hadm, "DS", 1, note.charttime,
                                     note.storetime, note.text))
            _radiology(w["radiology"], scenario, k, subject, hadm, admit)


@contextmanager
def _writers(layout: Layout, tables: tuple[str, ...]) -> Iterator[dict[str, csv.writer]]:  # type: ignore[valid-type]
    from contextlib import ExitStack

    with ExitStack() as stack:
        yield {t: stack.enter_context(_writer(layout.table(t), COLUMNS[t])) for t in tables}


def _service(text: str) -> str:
    match = re.search(r"^Service:\s*(\S+)", text, re.M)
    return match.group(1) if match else "MEDICINE"


def scenario_of(note: synthetic.Admission) -> Scenario:
    """The scenario of the admission's problem (its principal ICD-10-CM code)."""
    assert note.problem is not None
    return SCENARIOS[note.problem.codes[0]]


def prescribed(note: synthetic.Admission) -> tuple[list[str], str]:
    """The drugs first prescribed (the scenario's, then the chronic conditions' home
    medications it does not hold) and the one prescribed later."""
    scenario = scenario_of(note)
    home = [CHRONIC_DRUGS[c.code] for c in note.chronic if c.code in CHRONIC_DRUGS]
    first = list(dict.fromkeys([*scenario.drugs, *(d for d in home
                                                   if d not in scenario.held)]))
    return first, scenario.later_drug


def _procedures(w: csv.writer, scenario: Scenario, subject: int, hadm: int,  # type: ignore[valid-type]
                admit: datetime, version: int) -> None:
    rows = [(PCS_TO_ICD9.get(code) if version == 9 else code, day)
            for code, day in scenario.procedures]
    for seq, (code, day) in enumerate([r for r in rows if r[0]], start=1):
        w.writerow((subject, hadm, seq, (admit + timedelta(days=day)).strftime("%Y-%m-%d"),
                    code, version))


def _value(rng: random.Random, scenario: Scenario, item) -> tuple[str, object, object, object,
                                                                   str]:
    """A result of ``item``: value text, number, range, flag; the scenario's abnormal values,
    else within the normal range."""
    given = scenario.values.get(item.label)
    if item.low is None:
        text = given if isinstance(given, str) else rng.choice(("NONE", "NEG", "FEW"))
        return text, "", "", "", ""
    low, high = given if isinstance(given, tuple) else (item.low, item.high)
    span = item.high - item.low
    digits = 1 if span >= 5 else 2 if span >= 0.05 else 3
    number = round(rng.uniform(low, high), digits)
    flag = "abnormal" if not item.low <= number <= item.high else ""
    return str(number), number, item.low, item.high, flag


def _labs(w: csv.writer, rng: random.Random, scenario: Scenario, k: int, subject: int,  # type: ignore[valid-type]
          hadm: int, admit: datetime, count: int) -> None:
    """A pre-admission row (in the emergency department), the scenario's panel at +1 h (the
    first batch), repeats of its first items at +30 h and +3 days (at least two, up to
    ``count`` rows in all); text-only results for items without a range; the last row of
    every third admission without ``hadm_id``."""
    panel = [lab(*x) if isinstance(x, tuple) else lab(x) for x in scenario.labs]
    rows = [(timedelta(hours=-3), panel[0])] + [(timedelta(hours=1), x) for x in panel]
    # the next day: a test added on (not in the first panel), then repeats of the panel's first
    added = next(lab(x) for x in ADD_ON if lab(x) not in panel)
    later = [added, *(panel[i % min(len(panel), 4)] for i in range(max(1, count - len(rows) - 1)))]
    for i, item in enumerate(later):
        rows.append((timedelta(hours=30) if i % 2 == 0 else timedelta(days=3), item))
    for i, (offset, item) in enumerate(rows):
        time = admit + offset
        value, number, low, high, flag = _value(rng, scenario, item)
        no_hadm = i == len(rows) - 1 and k % 3 == 0
        w.writerow((k * 1000 + i, subject, "" if no_hadm else hadm, k * 100 + i // 4,
                    item.itemid, "", _time(time), _time(time + timedelta(hours=1)), value,
                    number, item.unit, low, high, flag, "ROUTINE", ""))


def _prescriptions(w: csv.writer, drugs: tuple[list[str], str], k: int, subject: int,  # type: ignore[valid-type]
                   hadm: int, admit: datetime) -> None:
    first, later = drugs
    names = [*first, later]
    for i, name in enumerate(names):
        item = drug(name)
        start = admit + (timedelta(hours=2) if i < len(names) - 1 else timedelta(days=2))
        ndc = item.ndc
        if i == 0 and k % 5 == 0:
            ndc = "" if k % 10 == 0 else "0"
        w.writerow((subject, hadm, k * 100 + i, f"{subject}-{k * 10 + i}", i + 1, "",
                    _time(start), _time(start + timedelta(days=3)), "MAIN", item.name, "",
                    "", ndc, item.line, "TAB", "1", "dose", "1", "TAB", "1", "PO"))


def _radiology(w: csv.writer, scenario: Scenario, k: int, subject: int, hadm: int,  # type: ignore[valid-type]
               admit: datetime) -> None:
    for seq, (exam, indication, findings, impression) in enumerate(scenario.radiology,
                                                                   start=1):
        text = (f"EXAMINATION:  {exam}\n\nINDICATION:  {indication}\n\nTECHNIQUE:  Standard "
                f"views.\n\nCOMPARISON:  None.\n\nFINDINGS: \n\n{findings}\n\nIMPRESSION: \n\n"
                f"{impression}\n")
        time = _time(admit + timedelta(hours=2 * seq))
        w.writerow((f"{subject}-RR-{k * 10 + seq}", subject, hadm, "RR", seq, time, time, text))
