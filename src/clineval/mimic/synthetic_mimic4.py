"""A synthetic MIMIC-IV 2.2 (``hosp/``, ``note/``) in the real formats, deterministic by seed,
plus the code-system files a CliBench run needs in their real formats (a LOINC
``ComponentHierarchyBySystem.csv``, an itemid -> LOINC map in mimic-code's layout, an NDC -> ATC
map and ATC names).

Discharge summaries and diagnoses come from :mod:`clineval.mimic.synthetic`. Edge cases: every
fourth admission is its patient's second; about a fifth is coded in ICD-9; admission 2 carries
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
    DRUGS,
    LABS,
    LOINC_CLASS,
    LOINC_GROUPS,
    LOINC_ROOT,
    PCS,
    PCS_ICD9,
    RADIOLOGY,
    SERVICES,
)

NOT_IN_FY2021 = "U099"
_STAMP = "%Y-%m-%d %H:%M:%S"


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
        writer.writerow(("", 1, "", *LOINC_ROOT))
        writer.writerow((LOINC_ROOT[0], 1, LOINC_ROOT[0], *LOINC_CLASS))
        base = f"{LOINC_ROOT[0]}.{LOINC_CLASS[0]}"
        for i, (code, text) in enumerate(LOINC_GROUPS.values(), start=1):
            writer.writerow((base, i, LOINC_CLASS[0], code, text))
        for i, lab in enumerate(LABS, start=1):
            group = LOINC_GROUPS[lab.group][0]
            writer.writerow((f"{base}.{group}", i, group, lab.loinc,
                             f"{lab.label} [{lab.fluid}]"))
    mapping_columns = ("itemid (omop_source_code)", "label", "fluid", "category", "valueuom",
                       "omop_concept_id", "omop_concept_name", "omop_domain_id",
                       "omop_vocabulary_id", "omop_concept_class_id", "omop_standard_concept",
                       "omop_concept_code")
    with atomic_writer(layout.lab_loinc_map) as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(mapping_columns)
        for lab in LABS:
            writer.writerow((lab.itemid, lab.label, lab.fluid, lab.category, lab.unit, "",
                             f"{lab.label} [{lab.fluid}]", "Measurement", "LOINC", "Lab Test",
                             "S", lab.loinc))
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
        for lab in LABS:
            w.writerow((lab.itemid, lab.label, lab.fluid, lab.category))


def write_mimic4(layout: Layout, n: int, seed: int = 0, labs_per_admission: int = 14) -> None:
    """Write ``n`` admissions in every table, the dictionaries and the code-system files."""
    notes = synthetic.admissions(n, seed)
    write_dictionaries(layout)
    write_code_files(layout)
    tables = ("patients", "admissions", "diagnoses_icd", "procedures_icd", "labevents",
              "prescriptions", "services", "transfers", "discharge", "radiology")
    with _writers(layout, tables) as w:
        seen_subjects: dict[int, int] = {}
        for k, note in enumerate(notes):
            rng = random.Random(f"mimic4-synthetic/{seed}/{k}")
            subject = notes[k - 1].subject_id if k % 4 == 1 else note.subject_id
            female = bool(re.search(r"Sex:\s+F", note.text))
            day = datetime.strptime(note.charttime, _STAMP)
            if k % 4 == 1:  # the patient's second admission: after the first one
                day = datetime.strptime(notes[k - 1].charttime, _STAMP) + timedelta(days=200)
            admit = day - timedelta(days=rng.randint(2, 6), hours=-rng.randint(6, 20))
            discharge = day + timedelta(hours=rng.randint(10, 16))
            if subject not in seen_subjects:
                seen_subjects[subject] = k
                anchor_year = admit.year - rng.randint(0, 2)
                w["patients"].writerow((subject, "F" if female else "M", rng.randint(40, 89),
                                        anchor_year, "2017 - 2019", ""))
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
            codes = list(note.codes) + ([NOT_IN_FY2021] if k == 2 and note.icd_version == 10
                                        else [])
            for seq, code in enumerate(codes, start=1):
                w["diagnoses_icd"].writerow((subject, hadm, seq, code, note.icd_version))
            _procedures(w["procedures_icd"], rng, subject, hadm, admit, note.icd_version)
            _labs(w["labevents"], rng, k, subject, hadm, admit, labs_per_admission)
            _prescriptions(w["prescriptions"], rng, k, subject, hadm, admit)
            w["services"].writerow((subject, hadm, _time(admit), "", service))
            w["transfers"].writerow((subject, hadm, 30_000_000 + 2 * k, "ED",
                                     "Emergency Department", _time(admit - timedelta(hours=4)),
                                     _time(admit)))
            w["transfers"].writerow((subject, hadm, 30_000_001 + 2 * k, "admit",
                                     CARE_UNITS[service], _time(admit), _time(discharge)))
            w["discharge"].writerow((note.note_id, subject, hadm, "DS", 1, note.charttime,
                                     note.storetime, note.text))
            _radiology(w["radiology"], rng, k, subject, hadm, admit)


@contextmanager
def _writers(layout: Layout, tables: tuple[str, ...]) -> Iterator[dict[str, csv.writer]]:  # type: ignore[valid-type]
    from contextlib import ExitStack

    with ExitStack() as stack:
        yield {t: stack.enter_context(_writer(layout.table(t), COLUMNS[t])) for t in tables}


def _service(text: str) -> str:
    match = re.search(r"^Service:\s*(\S+)", text, re.M)
    return match.group(1) if match else "MEDICINE"


def _procedures(w: csv.writer, rng: random.Random, subject: int, hadm: int,  # type: ignore[valid-type]
                admit: datetime, version: int) -> None:
    pool = PCS_ICD9 if version == 9 else PCS
    chosen = rng.sample(pool, rng.randint(1, 3))
    for seq, ((code, _), offset) in enumerate(zip(chosen, (0, 1, 3), strict=False), start=1):
        w.writerow((subject, hadm, seq, (admit + timedelta(days=offset)).strftime("%Y-%m-%d"),
                    code, version))


def _labs(w: csv.writer, rng: random.Random, k: int, subject: int, hadm: int,  # type: ignore[valid-type]
          admit: datetime, count: int) -> None:
    """A pre-admission row, a first cluster at +1 h, more at +30 h and +3 days; text-only
    results for items without a range; some rows without ``hadm_id``."""
    offsets = [timedelta(hours=-3), *[timedelta(hours=1)] * max(count // 2, 1)]
    while len(offsets) < count:
        offsets.append(timedelta(hours=30) if len(offsets) % 2 else timedelta(days=3))
    for i, offset in enumerate(offsets):
        lab = LABS[(k + i * 5 + rng.randrange(3)) % len(LABS)]
        time = admit + offset
        if lab.low is None:
            value, number, low, high, flag = rng.choice(("NONE", "FEW", "MOD")), "", "", "", ""
        else:
            span = lab.high - lab.low
            number = round(rng.uniform(lab.low - span / 3, lab.high + span / 3), 1)
            value, low, high = str(number), lab.low, lab.high
            flag = "abnormal" if not lab.low <= number <= lab.high else ""
        no_hadm = i == count - 1 and k % 3 == 0
        w.writerow((k * 1000 + i, subject, "" if no_hadm else hadm, k * 100 + i // 4, lab.itemid,
                    "", _time(time), _time(time + timedelta(hours=1)), value, number, lab.unit,
                    low, high, flag, "ROUTINE", ""))


def _prescriptions(w: csv.writer, rng: random.Random, k: int, subject: int, hadm: int,  # type: ignore[valid-type]
                   admit: datetime) -> None:
    drugs = rng.sample(DRUGS, rng.randint(3, 6))
    for i, drug in enumerate(drugs):
        start = admit + (timedelta(hours=2) if i < len(drugs) - 1 else timedelta(days=2))
        ndc = drug.ndc
        if i == 0 and k % 5 == 0:
            ndc = "" if k % 10 == 0 else "0"
        w.writerow((subject, hadm, k * 100 + i, f"{subject}-{k * 10 + i}", i + 1, "",
                    _time(start), _time(start + timedelta(days=3)), "MAIN", drug.name, "",
                    "", ndc, drug.line, "TAB", "1", "dose", "1", "TAB", "1", "PO"))


def _radiology(w: csv.writer, rng: random.Random, k: int, subject: int, hadm: int,  # type: ignore[valid-type]
               admit: datetime) -> None:
    for seq in range(1, rng.randint(0, 2) + 1):
        exam, indication, findings, impression = RADIOLOGY[(k + seq) % len(RADIOLOGY)]
        text = (f"EXAMINATION:  {exam}\n\nINDICATION:  {indication}\n\nTECHNIQUE:  Standard "
                f"views.\n\nCOMPARISON:  None.\n\nFINDINGS: \n\n{findings}\n\nIMPRESSION: \n\n"
                f"{impression}\n")
        time = _time(admit + timedelta(hours=2 * seq))
        w.writerow((f"{subject}-RR-{k * 10 + seq}", subject, hadm, "RR", seq, time, time, text))
