"""The code systems as they appear in model answers: token patterns (either case: ``i10`` and
``b01ac06`` are codes too) and canonical forms."""

from __future__ import annotations

import re

from clineval.metrics.code_mapping import CodeSystem
from clineval.metrics.ontologies import atc, icd10cm, icd10pcs, loinc

ICD10CM = CodeSystem(
    "ICD-10-CM", re.compile(r"\b[A-Z]\d[0-9A-Z](?:\.?[0-9A-Z]{1,4})?\b", re.I),
    icd10cm.canonical
)
ICD10PCS = CodeSystem(
    "ICD-10-PCS", re.compile(r"\b(?=[0-9A-HJ-NP-Z]*\d)[0-9A-HJ-NP-Z]{7}\b", re.I),
    icd10pcs.canonical
)
LOINC = CodeSystem("LOINC", re.compile(r"\b\d{1,7}-\d\b"), loinc.canonical)
ATC = CodeSystem("ATC", re.compile(r"\b[A-Z]\d{2}(?:[A-Z]{1,2}(?:\d{2})?)?\b", re.I),
                 atc.canonical)
