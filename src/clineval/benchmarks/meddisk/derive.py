"""A knowledge base -> evaluated examples (test diseases x aspects) and demonstration diseases.

Example id ``<disease id>/<aspect key>``; each example carries the disease name, the aspect's
key, abbreviation, type, label and verb in the task's language, and the KB value
(``reference``). A pair whose value is not annotated is skipped and counted. Demonstrations are
``role: demo`` diseases: ``count`` of them picked by seeded rank (``data.seed``), the same ones
for every aspect; their records hold every selected aspect's value (None: not annotated).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from clineval.benchmarks.base.exemplars import pick
from clineval.benchmarks.base.settings import read
from clineval.benchmarks.meddisk.aspects import Aspect, registry, selected
from clineval.benchmarks.meddisk.kb import Disease, load_kb
from clineval.benchmarks.meddisk.settings import Data
from clineval.errors import DataError
from clineval.io import Record

log = logging.getLogger("clineval")


def example(disease: Disease, aspect: Aspect, lang: str, value: Any) -> Record:
    return {
        "id": f"{disease.id}/{aspect.key}", "disease_id": disease.id,
        "disease": disease.names[lang], "aspect": aspect.key, "abbr": aspect.abbr,
        "type": aspect.type, "label": aspect.label(lang), "verb": aspect.verb(lang),
        "lang": lang, "reference": value, "synthetic": disease.synthetic,
    }


def examples_of(diseases: Sequence[Disease], aspects: dict[str, Aspect], lang: str,
                path: Path) -> tuple[list[Record], int]:
    """The evaluated examples of ``diseases`` and how many pairs were not annotated."""
    examples, skipped = [], 0
    for disease in diseases:
        if lang not in disease.names:
            raise DataError(path, f"disease {disease.id!r}", "name",
                            f"no {lang} name (the task's language)")
        for aspect in aspects.values():
            value = disease.value(aspect.key, lang)
            if value is None:
                skipped += 1
                continue
            examples.append(example(disease, aspect, lang, value))
    return examples, skipped


def derive(data: Record, path: Path, n_demos: int) -> tuple[list[Record], list[Record]]:
    """Examples of the test diseases (``data.limit`` of them by seeded pick, null: all) and
    ``n_demos`` demonstration diseases."""
    typed = read(Data, data, "data")
    lang, seed = typed.lang, typed.seed
    aspects = selected(data, lang)
    diseases = load_kb(path, registry(data))
    by_id = [{"id": d.id, "disease": d} for d in diseases]
    tests = [r for r in by_id if r["disease"].role == "test"]
    if typed.limit is not None:
        tests = sorted(pick(tests, typed.limit, seed), key=lambda r: r["id"])
    demos = pick([r for r in by_id if r["disease"].role == "demo"], n_demos, seed)
    if len(demos) < n_demos:
        raise DataError(path, None, "role", f"{n_demos} demonstration disease(s) needed "
                        f"(role: demo), {len(demos)} found")
    examples, skipped = examples_of([r["disease"] for r in tests], aspects, lang, path)
    if skipped:
        log.warning("MedDisK %s: %d (disease, aspect) pair(s) not annotated in %s, skipped",
                    lang, skipped, path)
    exemplars = []
    for record in demos:
        disease: Disease = record["disease"]
        if lang not in disease.names:
            raise DataError(path, f"disease {disease.id!r}", "name", f"no {lang} name")
        exemplars.append({
            "id": disease.id, "disease": disease.names[lang], "lang": lang,
            "values": {k: disease.value(k, lang) for k in aspects},
        })
    return examples, exemplars
