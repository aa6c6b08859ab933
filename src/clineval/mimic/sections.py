"""Sections of MIMIC-IV-Note discharge summaries and radiology reports.

A section starts at a line that begins with one of the known top-level headings (``Chief
Complaint:``, ``Discharge Diagnosis:``, ...; case and spacing free) and runs to the next such
line, whatever blank lines or sub-headings (``Secondary:``) it holds. Keeping a section therefore
keeps all its paragraphs, and dropping one drops all of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: Top-level headings of MIMIC-IV discharge summaries, as section names (lower case).
DISCHARGE_HEADINGS = (
    "name", "unit no", "admission date", "discharge date", "date of birth", "sex", "service",
    "allergies", "attending", "chief complaint", "major surgical or invasive procedure",
    "history of present illness", "past medical history", "social history", "family history",
    "physical exam", "pertinent results", "brief hospital course", "medications on admission",
    "discharge medications", "discharge disposition", "facility", "discharge diagnosis",
    "discharge diagnoses", "discharge condition", "discharge instructions",
    "followup instructions",
)
#: Sections known when the admission's decisions are made (the paper's medical record at
#: admission): the others describe the stay or the discharge.
ADMISSION_SECTIONS = (
    "allergies", "chief complaint", "history of present illness", "past medical history",
    "social history", "family history", "physical exam", "medications on admission",
)
RADIOLOGY_HEADINGS = ("examination", "indication", "history", "technique", "comparison",
                      "findings", "impression", "recommendation(s)", "recommendations")
RADIOLOGY_KEPT = ("indication", "history", "findings")
#: Inside a kept physical exam: where the discharge exam starts (dropped to the section end).
_DISCHARGE_EXAM = re.compile(r"^[ \t]*(?:on\s+)?discharge\s+(?:physical\s+)?exam", re.I | re.M)


def _heading_pattern(headings: Iterable[str]) -> re.Pattern[str]:
    names = sorted(headings, key=len, reverse=True)
    alternatives = "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in names)
    return re.compile(rf"^[ \t]*({alternatives})[ \t]*:", re.I | re.M)


_DISCHARGE = _heading_pattern(DISCHARGE_HEADINGS)
_RADIOLOGY = _heading_pattern(RADIOLOGY_HEADINGS)


def split_sections(text: str, pattern: re.Pattern[str] = _DISCHARGE) -> list[tuple[str, str]]:
    """``(name, text)`` per section in order; text before the first heading is named ``""``.
    The name is the heading in lower case with single spaces."""
    sections = []
    matches = list(pattern.finditer(text))
    if not matches or matches[0].start() > 0:
        head = text[: matches[0].start() if matches else len(text)]
        if head.strip():
            sections.append(("", head))
    for match, following in zip(matches, [*matches[1:], None], strict=True):
        end = following.start() if following else len(text)
        name = re.sub(r"\s+", " ", match.group(1).lower())
        sections.append((name, text[match.start():end]))
    return sections


def admission_record(text: str, kept: Iterable[str] = ADMISSION_SECTIONS) -> str:
    """The discharge summary reduced to the sections in ``kept`` (whole sections), with the
    discharge part of a kept physical exam removed."""
    keep = {k.lower() for k in kept}
    parts = []
    for name, body in split_sections(text):
        if name not in keep:
            continue
        if name == "physical exam":
            cut = _DISCHARGE_EXAM.search(body)
            body = body[: cut.start()] if cut else body
        parts.append(body.strip())
    return "\n\n".join(p for p in parts if p)


def paragraph_record(text: str) -> str:
    """The public CliBench code's cleaning (``compat``): paragraphs (split on blank lines) up to
    the first one mentioning discharge instructions, less those naming a post-decision section
    or a redacted header. Later paragraphs of a multi-paragraph section are kept."""
    dropped = ("name: ___", "unit no: ___", "admission date: ___", "discharge date: ___",
               "date of birth: ___", "sex: ___", "major surgical or invasive procedure",
               "discharge medications", "discharge disposition", "discharge diagnosis",
               "discharge instructions", "followup instructions", "discharge physical examination",
               "discharge labs", "labs on discharge", "discharge condition")
    kept = []
    for paragraph in re.split(r"\n\s*\n", text):
        lower = paragraph.lower()
        if "discharge instructions" in lower:
            break
        if not any(marker in lower for marker in dropped):
            kept.append(paragraph)
    return "\n\n".join(kept).strip()


def radiology_findings(text: str, kept: Iterable[str] = RADIOLOGY_KEPT) -> str:
    """A radiology report reduced to its indication/history and findings sections (the whole
    report when it has none of them)."""
    keep = {k.lower() for k in kept}
    parts = [body.strip() for name, body in split_sections(text, _RADIOLOGY) if name in keep]
    return "\n".join(p for p in parts if p) or text.strip()
