"""Synthetic level-1 sources in the official formats: MedNLI JSONL, MeQSum xlsx, task 1A CSV.

Content is the project's own clinical templates with seeded slot values; every record draws from
its own stream (dataset, seed, split, index), so train and test records differ.
"""

from __future__ import annotations

import csv
import io
import json
import random
import re
import zipfile
from datetime import datetime
from pathlib import Path

import pandas as pd

from clineval.benchmarks.clue.loaders_meqsum import COLUMNS as MEQSUM_COLUMNS
from clineval.io import atomic_writer
from clineval.mimic.synthetic_content import CHRONIC, PROBLEMS

# premise template, then hypotheses: entailment, neutral, contradiction
_NLI = (
    ("Patient has a history of {cond} diagnosed {years} years ago and takes {med} daily.",
     "The patient has {cond}.", "The patient's {cond} is well controlled.",
     "The patient has never been diagnosed with {cond}."),
    ("On arrival to the ED, vitals were HR {hr}, BP {sbp}/{dbp}, SpO2 {spo2}% on room air.",
     "The patient had vital signs measured in the ED.", "The patient was admitted to the ICU.",
     "No vital signs were obtained in the ED."),
    ("She reports {days} days of {symptom} that is worse at night.",
     "She has had {symptom} for several days.", "Her {symptom} is caused by an infection.",
     "She denies any {symptom}."),
    ("CT of the abdomen showed {finding}.", "The patient had abdominal imaging.",
     "The patient will need surgery.", "Abdominal imaging was normal."),
    ("He was started on {abx} for a presumed {infection}.", "He is receiving an antibiotic.",
     "He has a fever.", "He was not given any antimicrobial therapy."),
    ("Labs were notable for a creatinine of {cr}, up from a baseline of 0.9.",
     "The patient has an elevated creatinine.", "The patient is dehydrated.",
     "The patient's kidney function is at baseline."),
    ("The patient is a {age} year old {sex} who smokes {packs} packs of cigarettes per day.",
     "The patient uses tobacco.", "The patient has COPD.", "The patient has never smoked."),
    ("Troponin was negative x2 and ECG showed normal sinus rhythm.",
     "The ECG showed a normal rhythm.", "The patient's chest pain is musculoskeletal.",
     "The patient had an acute myocardial infarction."),
)
_SLOTS = {
    "cond": ("hypertension", "type 2 diabetes", "hypothyroidism", "atrial fibrillation", "asthma"),
    "med": ("lisinopril", "metformin", "levothyroxine", "apixaban", "an albuterol inhaler"),
    "symptom": ("cough", "abdominal pain", "headache", "shortness of breath", "leg swelling"),
    "finding": ("a 2 cm gallstone without cholecystitis", "sigmoid diverticulitis",
                "an enlarged fatty liver", "a 4 mm left renal stone"),
    "abx": ("ceftriaxone", "vancomycin and cefepime", "ciprofloxacin", "cefazolin"),
    "infection": ("pneumonia", "urinary tract infection", "cellulitis", "line infection"),
    "sex": ("man", "woman"),
}


def _nli_values(rng: random.Random) -> dict[str, str]:
    values = {k: rng.choice(v) for k, v in _SLOTS.items()}
    values |= {
        "years": str(rng.randint(2, 25)), "hr": str(rng.randint(58, 128)),
        "sbp": str(rng.randint(88, 178)), "dbp": str(rng.randint(48, 102)),
        "spo2": str(rng.randint(86, 99)), "days": str(rng.randint(2, 14)),
        "cr": f"{rng.uniform(1.4, 4.2):.1f}", "age": str(rng.randint(24, 92)),
        "packs": rng.choice(("one", "two", "half a")),
    }
    return values


#: Draws per premise before the writer gives up on finding one not written yet.
_TRIES = 200


def write_mednli(path: Path, n_premises: int, seed: int, split: str,
                 avoid: frozenset[str] = frozenset()) -> set[str]:
    """``n_premises`` premises x 3 hypotheses (one per label), MedNLI's JSONL fields. Every
    premise is new (so every pair is distinct), none of ``avoid`` (another split's premises);
    returns the premises written."""
    seen = set(avoid)
    written: set[str] = set()
    with atomic_writer(path) as handle:
        for k in range(n_premises):
            rng = random.Random(f"clue-mednli/{seed}/{split}/{k}")
            for _ in range(_TRIES):
                template = _NLI[(k + rng.randrange(len(_NLI))) % len(_NLI)]
                values = _nli_values(rng)
                premise = template[0].format(**values)
                if premise not in seen:
                    break
            else:
                raise ValueError(f"MedNLI demo: no new premise for pair {k} of {split} after "
                                 f"{_TRIES} draws; ask for fewer premises")
            seen.add(premise)
            written.add(premise)
            for label, hypothesis in zip(("entailment", "neutral", "contradiction"),
                                         template[1:], strict=True):
                handle.write(json.dumps({
                    "gold_label": label,
                    "pairID": f"synthetic-{split}-{k}-{label[0]}",
                    "sentence1": premise,
                    "sentence2": hypothesis.format(**values),
                }) + "\n")
    return written


# (subject, message, summary) with {drug} / {cond} slots. Each row of the demo file has a
# template of its own, so no held-out exemplar is a template of an evaluated question (a model
# that copies an exemplar's pattern with the slot changed would otherwise score as a summary).
_MEQSUM = (
    ("{drug} side effects", "I have been taking {drug} for 3 weeks and now I get dizzy every "
     "time I stand up. is this from the medicine? my doctor is on vacation.",
     "Can {drug} cause dizziness?"),
    ("question", "my mother was diagnosed with {cond} last month. what is the life expectancy "
     "and is there any new treatment? she is 74. thank you so much", "What is the prognosis and "
     "what are the latest treatments for {cond}?"),
    ("{cond}", "Hello, is {cond} hereditary? my father and uncle both have it and i am worried "
     "for my kids.", "Is {cond} hereditary?"),
    ("where to buy {drug}", "I need to know who makes {drug}. My pharmacy says it is on "
     "backorder and I only have 4 pills left.", "Who manufactures {drug}?"),
    ("diet", "what foods should I avoid with {cond}? I read different things online and "
     "nobody gives me a straight answer", "What foods should be avoided with {cond}?"),
    ("{drug} and alcohol", "Is it safe to drink a glass of wine while on {drug}? we have a "
     "wedding this weekend", "Can I drink alcohol while taking {drug}?"),
    ("test results", "my doctor said I might have {cond} and ordered tests. what tests are "
     "used to diagnose it and how long do results take?", "How is {cond} diagnosed?"),
    ("{drug} dose", "how much {drug} can i take in one day? the bottle says one tablet but my "
     "back still hurts after it", "What is the maximum daily dose of {drug}?"),
    ("pregnant", "I just found out i am pregnant and i take {drug} every morning. do i need to "
     "stop it? i dont want to hurt the baby", "Is {drug} safe during pregnancy?"),
    ("sports", "My son has {cond} and wants to play football at school this year. is it safe "
     "for him or should he rest?", "Can people with {cond} exercise safely?"),
    ("cure?", "Is there any cure for {cond}? I have been reading about it for months and the "
     "doctors only talk about managing it.", "Is there a cure for {cond}?"),
    ("forgot my pill", "I forgot to take my {drug} yesterday. should I take two today or just "
     "skip it and go on as usual?", "What should be done after a missed dose of {drug}?"),
    ("first signs", "what are the first signs of {cond}? my sister has it and i have been "
     "feeling tired and achy for weeks", "What are the early symptoms of {cond}?"),
    ("stopping {drug}", "Can I stop {drug} on my own? I feel fine now and I do not like "
     "taking pills every day.", "Is it safe to stop taking {drug} suddenly?"),
    ("which doctor", "which kind of doctor treats {cond}? my family doctor is not sure and i "
     "dont know who to call", "What kind of specialist treats {cond}?"),
    ("{drug} with food", "Should {drug} be taken with food or on an empty stomach? the label "
     "got wet and i cant read it anymore", "Should {drug} be taken with food?"),
)
_DRUGS = ("metoprolol", "gabapentin", "sertraline", "amlodipine", "prednisone", "warfarin",
          "levothyroxine", "omeprazole")
_CONDS = ("celiac disease", "hemochromatosis", "multiple sclerosis", "polycystic kidney disease",
          "sarcoidosis", "Crohn's disease", "glaucoma")


def write_meqsum(path: Path, n: int, seed: int) -> None:
    """``n`` rows in sheet "QS" with the columns File, CHQ, Summary; each row a template of
    its own (in a seeded order), so ``n`` is at most the number of templates."""
    if n > len(_MEQSUM):
        raise ValueError(f"the MeQSum demo has {len(_MEQSUM)} question templates, one per row "
                         f"(so that no exemplar is a template of an evaluated question): size "
                         f"must be at most {len(_MEQSUM)}, not {n}")
    order = list(range(len(_MEQSUM)))
    random.Random(f"clue-meqsum/{seed}/templates").shuffle(order)
    rows = []
    for k in range(n):
        rng = random.Random(f"clue-meqsum/{seed}/{k}")
        subject, message, summary = _MEQSUM[order[k]]
        values = {"drug": rng.choice(_DRUGS), "cond": rng.choice(_CONDS)}
        chq = f"SUBJECT: {subject.format(**values)}\nMESSAGE: {message.format(**values)}"
        rows.append({"File": f"synthetic-{k + 1}.txt", "CHQ": chq,
                     "Summary": summary.format(**values)})
    workbook = io.BytesIO()
    with pd.ExcelWriter(workbook, engine="openpyxl") as writer:
        pd.DataFrame(rows, columns=list(MEQSUM_COLUMNS)).to_excel(
            writer, sheet_name="QS", index=False)
    with atomic_writer(path, binary=True) as handle:
        handle.write(_fixed_times(workbook.getvalue()))


#: The time written into the demo workbook (its properties and its zip entries), so that the same
#: rows give the same bytes on every build.
_WORKBOOK_TIME = datetime(2000, 1, 1)


def _fixed_times(xlsx: bytes) -> bytes:
    """The workbook with its creation and modification times and every zip entry's date
    :data:`_WORKBOOK_TIME` (openpyxl writes the time of saving)."""
    stamp = _WORKBOOK_TIME.strftime("%Y-%m-%dT%H:%M:%SZ")
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(xlsx)) as source, \
            zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for entry in source.infolist():
            data = source.read(entry)
            if entry.filename == "docProps/core.xml":
                data = re.sub(rb"(<dcterms:(?:created|modified)\b[^>]*>)[^<]*",
                              rb"\g<1>" + stamp.encode(), data)
            fixed = zipfile.ZipInfo(entry.filename, _WORKBOOK_TIME.timetuple()[:6])
            fixed.compress_type = zipfile.ZIP_DEFLATED
            target.writestr(fixed, data)
    return out.getvalue()


def write_problem_summary(path: Path, n: int, seed: int, split: str) -> None:
    """Task 1A rows; the test file names its columns Subjectives/Objectives, train ... Sections."""
    subjective, objective = (("Subjectives", "Objectives") if split == "test"
                             else ("Subjective Sections", "Objective Sections"))
    columns = ("File ID", subjective, objective, "Assessment", "Summary")
    with atomic_writer(path) as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        for k in range(n):
            rng = random.Random(f"clue-problem-summary/{seed}/{split}/{k}")
            problem = rng.choice(PROBLEMS)
            chronic = rng.sample(CHRONIC, 2)
            age, sex = rng.randint(35, 90), rng.choice(("M", "F"))
            problems = [p.strip() for p in problem.diagnosis.split(";")]
            problems += [c.history.split(" (")[0] for c in chronic[:1]]
            first_result = problem.results.split(".")[0]
            histories = ", ".join(c.history for c in chronic)
            writer.writerow({
                "File ID": f"{900000 + 97 * k + rng.randrange(97)}.txt",
                subjective: f"{problem.complaint.capitalize()}\n- {problem.course.splitlines()[0]}"
                            "\nNo Known Drug Allergies\nReview of systems is unchanged from "
                            "admission except as noted below",
                objective: f"Tmax: {rng.uniform(36.5, 38.9):.1f} C\nHR: {rng.randint(60, 118)} "
                           f"bpm\nBP: {rng.randint(90, 160)}/{rng.randint(50, 95)} mmHg\n"
                           f"{problem.results}",
                "Assessment": f"{age} y/o {sex} with {histories} admitted with "
                              f"{problem.complaint}. {first_result}.",
                "Summary": "; ".join(problems),
            })
