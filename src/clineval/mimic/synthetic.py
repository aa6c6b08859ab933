"""A small synthetic MIMIC-IV discharge table and its ``diagnoses_icd`` rows, deterministic by seed.

Each admission has one discharge summary ("DS", note_seq 1) with the usual MIMIC-IV-Note headings
and de-identification blanks ("___"): one admission problem, two or three chronic conditions
(never more than the problem's new and in-hospital diagnoses together), and, for most notes, a
patient letter under "Discharge Instructions:". Its ``diagnoses_icd`` rows list the problem's
codes first (seq_num 1 = principal), then the diagnoses that arose during the stay, then the
chronic conditions; about a fifth of the admissions are coded in ICD-9-CM, as MIMIC-IV codes
stays before October 2015. Every fourth admission (index 1, 5, 9, ...) is the previous one's
patient again, 200 days after its discharge: the same sex and chronic conditions, another
problem, and an age that follows from the dates (the note's age is the age at admission).
"""

from __future__ import annotations

import csv
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from clineval.io import atomic_writer
from clineval.mimic.hosp import DIAGNOSES_ICD_COLUMNS
from clineval.mimic.icd10 import CODES
from clineval.mimic.notes import DISCHARGE_COLUMNS
from clineval.mimic.synthetic_content import CHRONIC, HISTORY_SHARE, PROBLEMS, Chronic, Problem

ICD9_SHARE = 0.2
LETTER_SHARE = 0.85


@dataclass(frozen=True)
class Admission:
    subject_id: int
    hadm_id: int
    note_id: str
    charttime: str
    storetime: str
    text: str
    icd_version: int
    codes: tuple[str, ...]  #: in seq_num order, in the admission's ICD version
    #: the letter's facts (why, what, medication, todo) when the note has a patient letter
    letter: dict[str, str] = field(default_factory=dict)
    #: the patient at admission: age (as the note's HPI states it) and sex
    age: int = 0
    female: bool = False
    #: admission time (``YYYY-MM-DD HH:MM:SS``); ``charttime`` is the discharge day
    admitted: str = ""
    problem: Problem | None = None
    chronic: tuple[Chronic, ...] = ()
    #: the index of the patient's previous admission in the list, if any
    previous: int | None = None


def _vitals(rng: random.Random) -> str:
    return (
        f"VS: T {rng.uniform(97.0, 99.5):.1f} HR {rng.randint(62, 104)} "
        f"BP {rng.randint(102, 158)}/{rng.randint(58, 92)} RR {rng.randint(14, 22)} "
        f"O2 sat {rng.randint(92, 99)}% RA"
    )


def _letter(rng: random.Random, problem: Problem, salutation: str) -> str:
    closing = rng.choice(("We wish you the best!", "It was a pleasure caring for you.",
                          "We wish you a speedy recovery."))
    return (
        f"Dear {salutation} ___,\n \nIt was a pleasure taking care of you at ___.\n \n"
        f"WHY WERE YOU IN THE HOSPITAL?\n- You were admitted to the hospital {problem.why}.\n \n"
        f"WHAT HAPPENED WHILE YOU WERE IN THE HOSPITAL?\n- {problem.what}\n"
        f"- {problem.medication}\n \n"
        f"WHAT SHOULD YOU DO WHEN YOU GET HOME?\n- {problem.todo}\n"
        "- Take all of your medications as prescribed.\n \n"
        f"{closing}\nYour ___ Care Team"
    )


def _generic_instructions() -> str:
    return (
        "Please take your medications as listed and keep your follow-up appointments. Return "
        "to the emergency department for fever, chest pain, shortness of breath or any other "
        "concerning symptom."
    )


def _listed(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _note(
    rng: random.Random, problem: Problem, chronic: list[Chronic], female: bool, with_letter: bool,
    age: int,
) -> str:
    sex = "F" if female else "M"
    pmh = _listed([c.name or c.history.split(" (")[0] for c in chronic[:3]]) if chronic \
        else "no significant history"
    hpi = problem.hpi.format(
        age=age, sex="woman" if female else "man", pmh=pmh, pos="her" if female else "his"
    )
    home = [c.home_med for c in chronic if c.home_med] + ([problem.home_med]
                                                         if problem.home_med else [])
    discharge_meds = [*(m for m in home if m != problem.home_med), problem.new_med]
    allergies = rng.choice(("No Known Allergies / Adverse Drug Reactions", "Penicillins",
                            "Sulfa (Sulfonamide Antibiotics)", "lisinopril"))
    if any(allergies.lower() in m.lower() for m in home):  # no allergy to a home medication
        allergies = "No Known Allergies / Adverse Drug Reactions"
    secondary = [c.history for c in chronic]
    sections = [
        "Name:  ___                     Unit No:   ___",
        "Admission Date:  ___              Discharge Date:   ___",
        f"Date of Birth:  ___             Sex:   {sex}",
        f"Service: {problem.service}",
        f"Allergies: \n{allergies}",
        "Attending: ___.",
        f"Chief Complaint:\n{problem.complaint}",
        f"Major Surgical or Invasive Procedure:\n{problem.procedure}",
        f"History of Present Illness:\n{hpi}",
        "Past Medical History:\n" + "\n".join(f"- {c.history}" for c in chronic),
        "Social History:\n___",
        "Family History:\n" + rng.choice(("Mother with HTN. Father with MI at 60.",
                                          "Non-contributory.", "Sister with breast cancer.")),
        f"Physical Exam:\nADMISSION PHYSICAL EXAM:\n{_vitals(rng)}\nGEN: NAD, A&Ox3\n"
        f"DISCHARGE PHYSICAL EXAM:\n{_vitals(rng)}",
        f"Pertinent Results:\n{problem.results}",
        f"Brief Hospital Course:\n{problem.course}\n\nCHRONIC ISSUES:\n"
        + "\n".join(f"# {c.history}: continued home regimen." for c in chronic),
        "Medications on Admission:\n" + ("\n".join(home) or "None"),
        "Discharge Medications:\n"
        + "\n".join(f"{i}. {m}" for i, m in enumerate(discharge_meds, start=1)),
        "Discharge Disposition:\n" + rng.choice(("Home", "Home With Service",
                                                "Extended Care")),
        f"Discharge Diagnosis:\nPRIMARY:\n{problem.diagnosis}\n\nSECONDARY:\n"
        + "\n".join(secondary),
        "Discharge Condition:\nMental Status: Clear and coherent.\nLevel of Consciousness: "
        "Alert and interactive.\nActivity Status: Ambulatory - Independent.",
        "Discharge Instructions:\n"
        + (_letter(rng, problem, "Ms." if female else "Mr.") if with_letter
           else _generic_instructions()),
        "Followup Instructions:\n___",
    ]
    return " \n" + "\n \n".join(sections) + "\n"


_STAMP = "%Y-%m-%d %H:%M:%S"
#: Ages at a patient's first admission (MIMIC-IV's anchor ages stop at 91).
AGES = (40, 89)
#: Days from a patient's discharge to the next admission (every fourth admission).
READMISSION_DAYS = 200


def _chronic(rng: random.Random, problem: Problem, female: bool) -> list[Chronic]:
    """Two or three chronic conditions (the problem's required ones first), never more than
    the problem's new and in-hospital diagnoses together (:data:`HISTORY_SHARE`)."""
    own = {*problem.codes, *problem.hospital}
    pool = [c for c in CHRONIC if c.code not in own and c.code not in problem.requires
            and not (female and c.code == "N401")]
    most = max(1, min(3, int(len(own) * HISTORY_SHARE / (1 - HISTORY_SHARE))))
    required = [c for c in CHRONIC if c.code in problem.requires]
    count = max(len(required), min(most, rng.randint(2, 3)))
    return required + rng.sample(pool, count - len(required))


def admissions(n: int, seed: int) -> list[Admission]:
    """``n`` synthetic admissions; each draws from its own stream (seed, index)."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    result: list[Admission] = []
    for k in range(n):
        rng = random.Random(f"mimic-synthetic/{seed}/{k}")
        before = result[k - 1] if k % 4 == 1 else None
        problem = PROBLEMS[(k + rng.randrange(len(PROBLEMS))) % len(PROBLEMS)]
        while before is not None and before.problem is not None and {
                *problem.codes, *problem.hospital} & {*before.problem.codes,
                                                      *before.problem.hospital}:
            # readmitted for something else: no diagnosis of the stay is in the history
            problem = PROBLEMS[(PROBLEMS.index(problem) + 1) % len(PROBLEMS)]
        female = before.female if before else rng.random() < 0.5
        chronic = _chronic(rng, problem, female)
        if before is not None:  # the same patient keeps the conditions the new problem allows
            own = {*problem.codes, *problem.hospital}
            kept = [c for c in before.chronic if c.code not in own]
            required = [c for c in CHRONIC if c.code in problem.requires and c not in kept]
            chronic = (required + kept)[:max(len(chronic), len(required))] or chronic
        with_letter = rng.random() < LETTER_SHARE
        icd_version = 9 if rng.random() < ICD9_SHARE else 10
        codes10 = list(dict.fromkeys([*problem.codes, *problem.hospital,
                                      *(c.code for c in chronic)]))
        codes = tuple(CODES[c].icd9 if icd_version == 9 else c for c in codes10)
        subject_id = before.subject_id if before else 10_000_000 + 37 * k + rng.randrange(37)
        if before is not None:
            discharged = datetime.strptime(before.charttime, _STAMP)
            admitted = discharged + timedelta(days=READMISSION_DAYS, hours=rng.randint(6, 20))
            first = datetime.strptime(before.admitted, _STAMP)
            age = before.age + admitted.year - first.year
        else:
            admitted = datetime(2110 + rng.randrange(80), rng.randint(1, 12), rng.randint(1, 28),
                                rng.randint(6, 20), rng.randint(0, 59))
            age = rng.randint(*AGES)
        discharged = (admitted + timedelta(days=rng.randint(2, 6))).replace(hour=0, minute=0)
        day = discharged.strftime("%Y-%m-%d")
        letter = (
            {"why": problem.why, "what": problem.what, "medication": problem.medication,
             "todo": problem.todo}
            if with_letter else {}
        )
        result.append(Admission(
            subject_id=subject_id,
            hadm_id=20_000_000 + 53 * k + rng.randrange(53),
            note_id=(f"{subject_id}-DS-{int(before.note_id.rsplit('-', 1)[1]) + 1}" if before
                     else f"{subject_id}-DS-{rng.randint(2, 30)}"),
            charttime=f"{day} 00:00:00",
            storetime=f"{day} {rng.randint(9, 20):02d}:{rng.randint(0, 59):02d}:00",
            text=_note(rng, problem, chronic, female, with_letter, age),
            icd_version=icd_version,
            codes=codes,
            letter=letter,
            age=age,
            female=female,
            admitted=admitted.strftime(_STAMP),
            problem=problem,
            chronic=tuple(chronic),
            previous=k - 1 if before is not None else None,
        ))
    return result


def write_discharge_csv(path: Path, records: list[Admission]) -> None:
    """The notes in MIMIC-IV-Note's ``discharge.csv`` layout (all fields quoted as needed)."""
    with atomic_writer(path) as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(DISCHARGE_COLUMNS)
        for a in records:
            writer.writerow([a.note_id, a.subject_id, a.hadm_id, "DS", 1, a.charttime,
                             a.storetime, a.text])


def write_diagnoses_icd_csv(path: Path, records: list[Admission]) -> None:
    """The admissions' codes in MIMIC-IV ``hosp/diagnoses_icd.csv`` layout."""
    with atomic_writer(path) as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(DIAGNOSES_ICD_COLUMNS)
        for a in records:
            for seq_num, code in enumerate(a.codes, start=1):
                writer.writerow([a.subject_id, a.hadm_id, seq_num, code, a.icd_version])


def write_mimic_demo(discharge: Path, diagnoses_icd: Path, n: int, seed: int) -> list[Admission]:
    """Write both tables for ``n`` admissions; return the admissions (with their letters)."""
    records = admissions(n, seed)
    write_discharge_csv(discharge, records)
    write_diagnoses_icd_csv(diagnoses_icd, records)
    return records
