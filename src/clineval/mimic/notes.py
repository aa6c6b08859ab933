"""MIMIC-IV-Note 2.2 ``note/discharge.csv(.gz)``: columns, a validating reader, note sections.

A discharge summary is plain text with section headings on their own line ("Chief Complaint:",
"Brief Hospital Course:", ..., "Discharge Instructions:", "Followup Instructions:"). Many end
with a letter to the patient under "Discharge Instructions:"; CLUE finds those by the sentence
"You were admitted to the hospital".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from clineval.validate import read_csv

DISCHARGE_COLUMNS = (
    "note_id",
    "subject_id",
    "hadm_id",
    "note_type",
    "note_seq",
    "charttime",
    "storetime",
    "text",
)
LETTER_MARKER = "You were admitted to the hospital"
_LETTER_START = re.compile(r"^[ \t]*Discharge Instructions:[ \t]*$", re.I | re.M)
#: The heading that follows the patient letter and ends it.
_AFTER_LETTER = re.compile(r"^[ \t]*Follow[- ]?up Instructions:[ \t]*$", re.I | re.M)


@dataclass(frozen=True)
class DischargeNote:
    note_id: str
    subject_id: int
    hadm_id: int
    note_type: str
    note_seq: int
    charttime: str
    storetime: str
    text: str
    row: int  #: row in the source file (header = 1)


def read_discharge(path: Path) -> Iterator[DischargeNote]:
    """Stream the notes of a discharge table; bad ids, numbers or empty text are errors."""
    for row in read_csv(path, DISCHARGE_COLUMNS):
        row.text("text")  # a note with no text is an error; the text is kept as written
        yield DischargeNote(
            note_id=row.text("note_id"),
            subject_id=row.integer("subject_id"),
            hadm_id=row.integer("hadm_id"),
            note_type=row.text("note_type", required=False),
            note_seq=row.integer("note_seq"),
            charttime=row.values["charttime"],
            storetime=row.values["storetime"],
            text=row.values["text"],
            row=row.row,
        )


def has_patient_letter(text: str) -> bool:
    """Whether the note carries a patient letter (CLUE's criterion: its opening sentence)."""
    return LETTER_MARKER in text


def split_patient_letter(text: str) -> tuple[str, str] | None:
    """``(summary without the letter, letter)``, or None when the note has no letter section.

    The letter is the "Discharge Instructions:" section: from its heading to the
    "Followup Instructions:" heading (kept) or the end of the note.
    """
    start = _LETTER_START.search(text)
    if start is None:
        return None
    end = _AFTER_LETTER.search(text, start.end())
    stop = end.start() if end else len(text)
    letter = text[start.end():stop].strip()
    if not letter:
        return None
    remaining = text[:start.start()].rstrip() + "\n\n" + text[stop:].lstrip("\n")
    return remaining.rstrip() + "\n", letter
