"""Candidate code titles per task (what free-text answer items are matched to), built once per
process and per set of files."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from clineval.metrics.code_mapping import Candidates
from clineval.metrics.ontologies import atc, icd10cm, icd10pcs, loinc
from clineval.mimic.dictionaries import read_d_icd, read_d_labitems


def diagnosis_titles(d_icd_diagnoses: Path | None) -> dict[str, str]:
    """ICD-10-CM code -> title: MIMIC's ``d_icd_diagnoses`` codes the ontology knows (the
    paper's pool), else every billable code of the ontology."""
    if d_icd_diagnoses is None:
        return icd10cm.titles()
    titles = {}
    for code, title in read_d_icd(d_icd_diagnoses, 10).items():
        found = icd10cm.canonical(code)
        if found is not None:
            titles[found] = title
    return titles


def procedure_titles(d_icd_procedures: Path | None) -> dict[str, str]:
    if d_icd_procedures is None:
        return {}
    return {c: t for c, t in read_d_icd(d_icd_procedures, 10).items() if icd10pcs.canonical(c)}


def lab_candidates(hierarchy: Path | None, itemid_map: Path | None, d_labitems: Path | None,
                   itemids: bool = False) -> tuple[list[str], list[tuple[str, ...]]]:
    """LOINC terms by their LOINC text, and MIMIC lab items by ``label for fluid (category)``
    mapped to their LOINC number (``itemids``: the items themselves, the public code's pool)."""
    titles: list[str] = []
    codes: list[tuple[str, ...]] = []
    if itemids:
        items = read_d_labitems(d_labitems) if d_labitems is not None else {}
        return ([item.title for _, item in sorted(items.items())],
                [(str(itemid),) for itemid in sorted(items)])
    if hierarchy is not None:
        for code, text in sorted(loinc.read_hierarchy(hierarchy).titles.items()):
            if loinc.canonical(code) and text:
                titles.append(text)
                codes.append((code,))
    if itemid_map is not None and d_labitems is not None:
        mapping = loinc.read_itemid_map(itemid_map).loinc
        for itemid, item in sorted(read_d_labitems(d_labitems).items()):
            if str(itemid) in mapping:
                titles.append(item.title)
                codes.append((mapping[str(itemid)],))
    return titles, codes


@cache
def candidates(kind: str, files: tuple[tuple[str, Path | None], ...], encoder: str,
               itemids: bool = False) -> Candidates:
    """The task's candidates from its files (role -> path), cached per process."""
    paths = dict(files)
    if kind == "diagnoses":
        return Candidates.from_titles(diagnosis_titles(paths.get("d_icd_diagnoses")), encoder)
    if kind == "procedures":
        return Candidates.from_titles(procedure_titles(paths.get("d_icd_procedures")), encoder)
    if kind == "labs":
        titles, codes = lab_candidates(paths.get("loinc_hierarchy"), paths.get("lab_loinc_map"),
                                       paths.get("d_labitems"), itemids)
        return Candidates(titles, codes, encoder)
    if kind == "prescriptions":
        titles = atc.read_titles(paths["atc_titles"]) if paths.get("atc_titles") else {}
        return Candidates.from_titles(titles, encoder)
    raise ValueError(f"unknown CliBench task {kind!r}")
