"""Candidate code titles per task (what free-text answer items are matched to) and the codes of
the supplied ontology (what explicit codes are checked against), built once per process and per
set of files."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from clineval.metrics.code_mapping import Candidates
from clineval.metrics.ontologies import atc, icd10cm, icd10pcs, loinc
from clineval.mimic.dictionaries import read_d_icd, read_d_labitems

#: The role of the candidates' title embeddings among a task's scoring files.
EMBEDDINGS = "title_embeddings"


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


def lab_codes(hierarchy: Path | None, itemid_map: Path | None, d_labitems: Path | None,
              itemids: bool = False) -> frozenset[str] | None:
    """The lab codes the supplied files know: LOINC numbers of the hierarchy and of the itemid
    map (``itemids``: MIMIC's lab itemids); ``None`` without any such file."""
    if itemids:
        if d_labitems is None:
            return None
        return frozenset(str(itemid) for itemid in read_d_labitems(d_labitems))
    if hierarchy is None and itemid_map is None:
        return None
    known = set()
    if hierarchy is not None:
        known |= {code for code in loinc.read_hierarchy(hierarchy).paths if loinc.canonical(code)}
    if itemid_map is not None:
        known |= set(loinc.read_itemid_map(itemid_map).loinc.values())
    return frozenset(known)


@cache
def candidates(kind: str, files: tuple[tuple[str, Path | None], ...], encoder: str,
               itemids: bool = False) -> Candidates:
    """The task's candidates and ontology codes from its files (role -> path), cached per
    process. Without its file a task's explicit codes are checked by the code system alone
    (ICD-10-CM: always against the tabular). The role :data:`EMBEDDINGS` names the titles'
    stored embeddings (the workflow's derived file), else they come from the embedding cache."""
    paths = dict(files)
    vectors = paths.get(EMBEDDINGS)
    if kind == "diagnoses":
        return Candidates.from_titles(diagnosis_titles(paths.get("d_icd_diagnoses")), encoder,
                                      vectors_file=vectors)
    if kind == "procedures":
        given = paths.get("d_icd_procedures")
        titles = procedure_titles(given)
        return Candidates.from_titles(titles, encoder,
                                      frozenset(titles) if given is not None else None, vectors)
    if kind == "labs":
        args = (paths.get("loinc_hierarchy"), paths.get("lab_loinc_map"),
                paths.get("d_labitems"), itemids)
        titles, codes = lab_candidates(*args)
        return Candidates(titles, codes, encoder, lab_codes(*args), vectors)
    if kind == "prescriptions":
        given = paths.get("atc_titles")
        atc_titles = atc.read_titles(given) if given else {}
        return Candidates.from_titles(atc_titles, encoder,
                                      frozenset(atc_titles) if given else None, vectors)
    raise ValueError(f"unknown CliBench task {kind!r}")
