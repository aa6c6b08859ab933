"""The evaluation sample: balanced over the output space, topped up per service and care unit.

Step 1: per label value (sorted), the ``k`` admissions of highest seeded rank that carry it
(labels: the chapter of the first-listed diagnosis; the PCS sections, LOINC level-3 nodes or
ATC anatomical groups of the targets). Steps 2 and 3: per service, then per care unit (sorted),
add admissions by rank until ``min_per_stratum`` selected admissions have it (or none is left).
Ranks are :func:`clineval.benchmarks.base.exemplars.rank` of ``hadm-<id>`` and the seed, so the
same seed selects the same admissions on every machine and in any file order.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from clineval.benchmarks.base.exemplars import rank
from clineval.benchmarks.base.settings import read
from clineval.metrics.ontologies import atc, icd10cm, icd10pcs, loinc

#: The paper's K per label value (spec §8) and minimum per service / care unit.
PAPER_K = {"diagnoses": 47, "procedures": 40, "labs": 45, "prescriptions": 55}
PAPER_MIN_PER_STRATUM = 20


def labels(kind: str, gold: Mapping[int, list[str]], hierarchy: Path | None
           ) -> dict[int, set[str]]:
    """The label values of each admission's targets."""
    if kind == "diagnoses":
        return {h: icd10cm.at(codes[0], "chapter") for h, codes in gold.items()}
    if kind == "procedures":
        return {h: {v for c in codes for v in icd10pcs.at(c, "section")}
                for h, codes in gold.items()}
    if kind == "labs":
        if hierarchy is None:
            return {h: set() for h in gold}
        tree = loinc.read_hierarchy(hierarchy)
        return {h: {v for c in codes for v in tree.at(c, 2)} for h, codes in gold.items()}
    return {h: {c[:1] for c in codes if atc.canonical(c)} for h, codes in gold.items()}


def _by_rank(hadms: list[int], seed: int) -> list[int]:
    return sorted(hadms, key=lambda h: rank(f"hadm-{h}", seed))


def select(branch: list[int], label_of: Mapping[int, set[str]],
           services: Mapping[int, list[str]], units: Mapping[int, list[str]],
           sample: Mapping[str, Any] | None, kind: str) -> list[int]:
    """The evaluated admissions, in seeded rank order (``sample``: ``data.sample``)."""
    from clineval.benchmarks.clibench.settings import Sample

    settings = read(Sample, sample, "data.sample")
    seed, k = settings.seed, settings.k or PAPER_K[kind]
    minimum = (PAPER_MIN_PER_STRATUM if settings.min_per_stratum is None
               else settings.min_per_stratum)
    ordered = _by_rank(list(branch), seed)
    chosen: dict[int, None] = {}
    values = sorted({v for h in ordered for v in label_of.get(h, set())})
    for value in values:
        for hadm in [h for h in ordered if value in label_of.get(h, set())][:k]:
            chosen[hadm] = None
    for strata in (services, units):
        for value in sorted({v for h in ordered for v in strata.get(h, [])}):
            have = sum(value in strata.get(h, []) for h in chosen)
            for hadm in [h for h in ordered if value in strata.get(h, []) and h not in chosen]:
                if have >= minimum:
                    break
                chosen[hadm] = None
                have += 1
    result = _by_rank(list(chosen), seed)
    return result[: settings.limit] if settings.limit is not None else result


def simple_race(race: str) -> str:
    """The race groups of the paper's fairness figure."""
    text = race.upper()
    for prefix, group in (("ASIA", "ASIAN"), ("BLACK", "BLACK"), ("HISPANIC", "HISPANIC/LATINO"),
                          ("WHITE", "WHITE")):
        if text.startswith(prefix):
            return group
    if text in ("UNKNOWN", "UNABLE TO OBTAIN", "PATIENT DECLINED TO ANSWER", ""):
        return "UNKNOWN"
    return "OTHER"
