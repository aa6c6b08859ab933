"""Write a CLUE dataset's synthetic demo sources in its official format, deterministic by seed.

``write_demo(dataset, out_dir, seed, size)`` returns the written paths keyed by the argument
names of the dataset's ``load_*`` function, so ``load(**paths)`` reads them back. ``size`` counts
the main records (MedNLI premises x3 pairs, MeQSum rows, task 1A test rows, LongHealth patients,
MIMIC admissions); None takes the small default.
"""

from __future__ import annotations

from pathlib import Path

from clineval.benchmarks.clue.synthetic_level1 import (
    write_mednli,
    write_meqsum,
    write_problem_summary,
)
from clineval.benchmarks.clue.synthetic_longhealth import write_longhealth
from clineval.benchmarks.clue.synthetic_medisum import write_medisumqa
from clineval.mimic.synthetic import write_mimic_demo

DEFAULT_SIZES = {
    "mednli": 8,
    "meqsum": 16,  # one row per question template (synthetic_level1.write_meqsum)
    "problem_summary": 20,
    "longhealth": 3,
    "medisumqa": 16,
    "medisumcode": 16,
}


def write_demo(dataset: str, out_dir: Path, seed: int = 0, size: int | None = None
               ) -> dict[str, Path]:
    """Demo files for ``dataset`` (a key of ``DEFAULT_SIZES``) under ``out_dir``."""
    if dataset not in DEFAULT_SIZES:
        raise ValueError(f"unknown CLUE dataset {dataset!r}; known: {sorted(DEFAULT_SIZES)}")
    n = DEFAULT_SIZES[dataset] if size is None else size
    if n < 1:
        raise ValueError(f"size must be >= 1, got {n}")
    if dataset == "mednli":
        paths = {"test": out_dir / "mli_test_v1.jsonl", "train": out_dir / "mli_train_v1.jsonl"}
        test = write_mednli(paths["test"], n, seed, "test")
        write_mednli(paths["train"], max(2, n // 2), seed, "train", avoid=frozenset(test))
    elif dataset == "meqsum":
        paths = {"path": out_dir / "MeQSum_ACL2019_BenAbacha_Demner-Fushman.xlsx"}
        write_meqsum(paths["path"], n, seed)
    elif dataset == "problem_summary":
        paths = {"test": out_dir / "BioNLP2023-1A-Test.csv",
                 "train": out_dir / "BioNLP2023-1A-Train.csv"}
        write_problem_summary(paths["test"], n, seed, "test")
        write_problem_summary(paths["train"], max(3, n // 2), seed, "train")
    elif dataset == "longhealth":
        paths = {"path": out_dir / "benchmark_v5.json"}
        write_longhealth(paths["path"], max(2, n), seed)
    else:
        paths = {"discharge": out_dir / "discharge.csv",
                 "diagnoses_icd": out_dir / "diagnoses_icd.csv"}
        records = write_mimic_demo(paths["discharge"], paths["diagnoses_icd"], n, seed)
        if dataset == "medisumqa":
            paths = {"qa": out_dir / "medisumqa.json", "discharge": paths["discharge"]}
            write_medisumqa(paths["qa"], records, seed)
    return paths
