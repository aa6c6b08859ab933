"""The demo: synthetic radiology sentences and reports in MedEval's formats (and one Open-i XML
report and a small MIMIC-CXR-format tree with CheXpert labels), written by the project.

Sentences: chest, foot and ankle, each normal or abnormal and ambiguous or not, ambiguous ones
with a rewrite. Reports: a few findings per report with the codes they imply and an impression.
Deterministic: the same ``seed`` writes the same bytes. No split column (the loader draws 7:1:2).
Every report's findings differ from every other's (the MIMIC-CXR ones open with the views).
"""

from __future__ import annotations

import csv
import io
import random
from pathlib import Path

from clineval.benchmarks.medeval.mimic_cxr import CHEXPERT_CODES
from clineval.io import write_text

# (sentence, abnormal, ambiguous, rewrite)
_SENTENCES: dict[str, list[tuple[str, str, str, str]]] = {
    "chest": [
        ("The heart size is normal.", "normal", "unambiguous", ""),
        ("There is no pleural effusion.", "normal", "unambiguous", ""),
        ("No pneumothorax is seen.", "normal", "unambiguous", ""),
        ("The lungs are clear without focal consolidation.", "normal", "unambiguous", ""),
        ("Mediastinal contours are within normal limits.", "normal", "unambiguous", ""),
        ("The heart and mediastinum are unremarkable.", "normal", "ambiguous",
         "The heart and mediastinum are normal."),
        ("Lungs are unremarkable.", "normal", "ambiguous", "The lungs are normal."),
        ("Osseous structures are unremarkable.", "normal", "ambiguous", "The bones are normal."),
        ("The lung volumes are low normal.", "normal", "ambiguous",
         "The lung volumes are at the lower limit of normal."),
        ("There is a large right pleural effusion.", "abnormal", "unambiguous", ""),
        ("Moderate cardiomegaly is present.", "abnormal", "unambiguous", ""),
        ("Patchy opacity in the left lower lobe is consistent with pneumonia.", "abnormal",
         "unambiguous", ""),
        ("A small left apical pneumothorax is seen.", "abnormal", "unambiguous", ""),
        ("Pulmonary edema has increased since the prior study.", "abnormal", "unambiguous", ""),
        ("Cardiomegaly without acute abnormality identified no effusion", "abnormal", "ambiguous",
         "Cardiomegaly is present. No acute abnormality or effusion is identified."),
        ("Scarring in the lingula otherwise unremarkable.", "abnormal", "ambiguous",
         "There is scarring in the lingula; the rest of the lungs is normal."),
        ("Stable opacity may represent atelectasis or not.", "abnormal", "ambiguous",
         "There is a stable opacity, possibly atelectasis."),
        ("Degenerative change of the spine otherwise unremarkable.", "abnormal", "ambiguous",
         "There are degenerative changes of the spine; the other bones are normal."),
    ],
    "foot": [
        ("No fracture or dislocation of the left foot.", "normal", "unambiguous", ""),
        ("Joint spaces of the foot are preserved.", "normal", "unambiguous", ""),
        ("There is no soft tissue swelling.", "normal", "unambiguous", ""),
        ("No radiopaque foreign body is seen.", "normal", "unambiguous", ""),
        ("Alignment of the metatarsals is normal.", "normal", "unambiguous", ""),
        ("The foot is unremarkable.", "normal", "ambiguous", "The foot is normal."),
        ("Soft tissues are unremarkable.", "normal", "ambiguous", "The soft tissues are normal."),
        ("Bones of the right foot are unremarkable for age.", "normal", "ambiguous",
         "The bones of the right foot are normal for the patient's age."),
        ("There is a hallux valgus deformity of the right foot.", "abnormal", "unambiguous", ""),
        ("Acute fracture of the fifth metatarsal base.", "abnormal", "unambiguous", ""),
        ("Erosions at the first metatarsophalangeal joint suggest gout.", "abnormal",
         "unambiguous", ""),
        ("Hammer toe deformity of the second digit.", "abnormal", "unambiguous", ""),
        ("Soft tissue swelling over the medial forefoot.", "abnormal", "unambiguous", ""),
        ("Healing fracture otherwise unremarkable foot", "abnormal", "ambiguous",
         "There is a healing fracture; the rest of the foot is normal."),
        ("Mild degenerative change no fracture seen", "abnormal", "ambiguous",
         "There is mild degenerative change. No fracture is seen."),
        ("Pes planus may be positional.", "abnormal", "ambiguous",
         "The arch is flattened (pes planus), possibly because of positioning."),
    ],
    "ankle": [
        ("The ankle mortise is intact.", "normal", "unambiguous", ""),
        ("No acute fracture of the ankle.", "normal", "unambiguous", ""),
        ("There is no ankle joint effusion.", "normal", "unambiguous", ""),
        ("The talar dome is intact.", "normal", "unambiguous", ""),
        ("Ankle alignment is normal.", "normal", "unambiguous", ""),
        ("The ankle is unremarkable.", "normal", "ambiguous", "The ankle is normal."),
        ("Soft tissues about the ankle are unremarkable.", "normal", "ambiguous",
         "The soft tissues around the ankle are normal."),
        ("Unremarkable views of the left ankle.", "normal", "ambiguous",
         "The views of the left ankle are normal."),
        ("Nondisplaced fracture of the distal fibula.", "abnormal", "unambiguous", ""),
        ("Large plantar calcaneal spur.", "abnormal", "unambiguous", ""),
        ("Lateral soft tissue swelling of the ankle.", "abnormal", "unambiguous", ""),
        ("Orthopedic hardware in the distal tibia.", "abnormal", "unambiguous", ""),
        ("Osteoarthritis of the tibiotalar joint.", "abnormal", "unambiguous", ""),
        ("Old fracture well healed otherwise unremarkable", "abnormal", "ambiguous",
         "There is a well-healed old fracture; the ankle is otherwise normal."),
        ("Small effusion cannot exclude ligament injury", "abnormal", "ambiguous",
         "There is a small joint effusion; a ligament injury is possible."),
        ("Spur at the calcaneus no acute findings", "abnormal", "ambiguous",
         "There is a calcaneal spur. There are no acute findings."),
    ],
}
# Per domain: positive findings (text, codes, impression phrase), negative findings (text, codes)
# and the impression of a report without positive findings.
_Positive = tuple[str, tuple[str, ...], str]
_Negative = tuple[str, tuple[str, ...]]
_FINDINGS: dict[str, tuple[list[_Positive], list[_Negative], str]] = {
    "chest": (
        [("Moderate cardiomegaly is present.", ("Cardiomegaly",), "cardiomegaly"),
         ("There is a large right pleural effusion.", ("Pleural Effusion",),
          "right pleural effusion"),
         ("Patchy opacity in the left lower lobe is consistent with pneumonia.",
          ("Lung Opacity", "Pneumonia"), "left lower lobe pneumonia"),
         ("A small left apical pneumothorax is seen.", ("Pneumothorax",),
          "small left pneumothorax"),
         ("Pulmonary edema has increased since the prior study.", ("Edema",),
          "increased pulmonary edema"),
         ("A right internal jugular catheter ends in the superior vena cava.",
          ("Support Devices",), "catheter in good position")],
        [("No pneumothorax.", ("Pneumothorax",)), ("No pleural effusion.", ("Pleural Effusion",)),
         ("No focal consolidation.", ("Consolidation",)),
         ("Heart size is normal.", ("Cardiomegaly",))],
        "No acute cardiopulmonary process.",
    ),
    "foot": (
        [("There is a hallux valgus deformity.", ("Hallux Valgus",), "hallux valgus"),
         ("Acute fracture of the fifth metatarsal base.", ("Fracture",),
          "fifth metatarsal fracture"),
         ("Erosions at the first metatarsophalangeal joint.", ("Erosion",),
          "erosive change at the first MTP joint"),
         ("Hammer toe deformity of the second digit.", ("Hammer Toe",), "hammer toe"),
         ("Soft tissue swelling of the forefoot.", ("Swelling",), "forefoot swelling"),
         ("Degenerative arthritis of the midfoot.", ("Arthritis",), "midfoot arthritis")],
        [("No fracture or dislocation.", ("Fracture", "Dislocation")),
         ("No soft tissue gas.", ("Gas",))],
        "No acute osseous abnormality of the foot.",
    ),
    "ankle": (
        [("Nondisplaced fracture of the distal fibula.", ("Fracture",), "distal fibula fracture"),
         ("Lateral soft tissue swelling.", ("Swelling",), "lateral swelling"),
         ("Orthopedic hardware in the distal tibia.", ("Hardware",), "hardware in place"),
         ("Osteoarthritis of the tibiotalar joint.", ("Arthritis",), "tibiotalar arthritis"),
         ("Subluxation of the talus.", ("Subluxation",), "talar subluxation")],
        [("No fracture or dislocation.", ("Fracture", "Dislocation"))],
        "No acute abnormality of the ankle.",
    ),
}
REPORTS_PER_DOMAIN = 10
MIMIC_STUDIES = 6
#: The official split file's value of the demo's first studies (the last one is left out).
MIMIC_SPLITS = ("train", "train", "train", "validate", "test")


def _csv(header: tuple[str, ...], rows: list[dict[str, str]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(header), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def write_sentences(path: Path) -> None:
    rows = [
        {"id": f"{domain}-s{index:02d}", "domain": domain, "modality": "xray", "split": "",
         "sentence": sentence, "abnormal": abnormal, "ambiguous": ambiguous, "rewrite": rewrite}
        for domain, items in _SENTENCES.items()
        for index, (sentence, abnormal, ambiguous, rewrite) in enumerate(items, start=1)
    ]
    header = ("id", "domain", "modality", "split", "sentence", "abnormal", "ambiguous", "rewrite")
    write_text(path, _csv(header, rows))


def _report(domain: str, rng: random.Random) -> tuple[str, str, dict[str, str]]:
    """Findings text, impression and the codes given explicitly (positive / negative)."""
    positives, negatives, normal = _FINDINGS[domain]
    chosen = rng.sample(positives, rng.randint(0, 2))
    named = {c for _, codes, _ in chosen for c in codes}
    denied = [n for n in negatives if not set(n[1]) & named]
    said = rng.sample(denied, min(len(denied), rng.randint(1, 2)))
    sentences = [t for t, _, _ in chosen] + [t for t, _ in said]
    rng.shuffle(sentences)
    codes = {c: "negative" for _, cs in said for c in cs}
    codes |= {c: "positive" for c in named}
    if domain == "chest":
        codes["No Finding"] = "negative" if chosen else "positive"
    impression = (
        "; ".join(p for _, _, p in chosen).capitalize() + "." if chosen else normal
    )
    return " ".join(sentences), impression, codes


def _unique_report(domain: str, rng: random.Random, used: set[str]) -> tuple[str, str,
                                                                            dict[str, str]]:
    """A report whose findings no earlier report has: identical prompts would get one cached
    answer for two examples (the oracle's answers differ)."""
    while True:
        findings, impression, codes = _report(domain, rng)
        if findings not in used:
            used.add(findings)
            return findings, impression, codes


def write_reports(path: Path, seed: int) -> None:
    rng = random.Random(f"medeval-reports:{seed}")
    rows = []
    used: set[str] = set()
    for domain in _FINDINGS:
        for index in range(1, REPORTS_PER_DOMAIN + 1):
            findings, impression, codes = _unique_report(domain, rng, used)
            rows.append({
                "id": f"{domain}-r{index:02d}", "domain": domain, "modality": "xray", "split": "",
                "findings": findings, "impression": impression,
                "codes": "; ".join(f"{c}={v}" for c, v in sorted(codes.items())),
            })
    header = ("id", "domain", "modality", "split", "findings", "impression", "codes")
    write_text(path, _csv(header, rows))


def write_openi_xml(path: Path) -> None:
    """One report in the Open-i XML layout (``ecgen-radiology/<n>.xml``)."""
    write_text(path, """<?xml version="1.0" encoding="utf-8"?>
<eCitation>
  <meta type="rr"/>
  <uId id="CXR9001"/>
  <MedlineCitation Owner="Indiana University" Status="supplied by publisher">
    <Article PubModel="Electronic">
      <ArticleTitle>Indiana University Chest X-ray Collection</ArticleTitle>
      <Abstract>
        <AbstractText Label="COMPARISON">None.</AbstractText>
        <AbstractText Label="INDICATION">Cough.</AbstractText>
        <AbstractText Label="FINDINGS">The heart size is normal. There is patchy opacity in the
 right lower lobe. No pleural effusion or pneumothorax.</AbstractText>
        <AbstractText Label="IMPRESSION">Right lower lobe opacity, possibly pneumonia.
</AbstractText>
      </Abstract>
    </Article>
  </MedlineCitation>
  <MeSH><major>Opacity/lung/lower lobe/right</major></MeSH>
</eCitation>
""")


def write_mimic_cxr(study_list: Path, chexpert: Path, split: Path, seed: int) -> None:
    """A ``files/pXX/pXXXXXXXX/sXXXXXXXX.txt`` tree beside ``study_list``, CheXpert labels
    (positive 1.0, negative 0.0, one uncertain -1.0, the rest blank) and the official split
    file's layout (one row per image, two images a study; the last study has no row, so it
    takes the seeded fallback)."""
    rng = random.Random(f"medeval-mimic:{seed}")
    base = study_list.parent
    listed, labelled, images = [], [], []
    used: set[str] = set()
    for index in range(MIMIC_STUDIES):
        subject, study = f"1{index:07d}", f"5{index:07d}"
        rel = f"files/p{subject[:2]}/p{subject}/s{study}.txt"
        findings, impression, codes = _unique_report("chest", rng, used)
        findings = f"PA and lateral views of the chest. {findings}"  # unlike reports.csv's
        text = ("                                 FINAL REPORT\n"
                " EXAMINATION:  CHEST (PA AND LAT)\n \n INDICATION:  Shortness of breath.\n \n"
                f" COMPARISON:  None.\n \n FINDINGS:\n \n {findings}\n \n"
                f" IMPRESSION:\n \n {impression}\n")
        write_text(base / rel, text)
        listed.append({"subject_id": subject, "study_id": study, "path": rel})
        values = {"positive": "1.0", "negative": "0.0"}
        row = {"subject_id": subject, "study_id": study}
        row |= {c: values[codes[c]] if c in codes else "" for c in CHEXPERT_CODES}
        if index == 0:
            row["Lung Lesion"] = "-1.0"
        labelled.append(row)
        if index < len(MIMIC_SPLITS):
            images += [{"dicom_id": f"{study}-{view}", "study_id": study, "subject_id": subject,
                        "split": MIMIC_SPLITS[index]} for view in ("pa", "lat")]
    write_text(study_list, _csv(("subject_id", "study_id", "path"), listed))
    write_text(chexpert, _csv(("subject_id", "study_id", *CHEXPERT_CODES), labelled))
    write_text(split, _csv(("dicom_id", "study_id", "subject_id", "split"), images))
