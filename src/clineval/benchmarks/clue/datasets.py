"""CLUE's datasets: each one's official files (the loader's file arguments, the task's ``data``
settings of the same names), its demo files and its other ``data`` options."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from clineval.benchmarks.clue import (
    loaders_medisum,
    loaders_mednli,
    loaders_meqsum,
    loaders_problem_summary,
    longhealth,
)


@dataclass(frozen=True)
class Source:
    """One official file: the loader argument it feeds, what it is, where to get it, and the
    least data-access tier its licence gives it (``credentialed``: PhysioNet's)."""

    description: str
    where: str
    required: bool = True
    tier: str = "public"


#: The tier of the files PhysioNet's data use agreements cover (MIMIC and the data derived
#: from it: MedNLI, Problem Summary, MeDiSumQA/Code).
PHYSIONET = "credentialed"
_LONGHEALTH = {
    "path": Source("the LongHealth benchmark JSON (benchmark_v5.json)", longhealth.WHERE)
}
#: Per dataset: the loader's file arguments (the task's ``data`` settings of the same names).
SOURCES: dict[str, dict[str, Source]] = {
    "mednli": {
        "test": Source("the MedNLI test split mli_test_v1.jsonl", loaders_mednli.WHERE,
                       tier=PHYSIONET),
        "train": Source("the MedNLI train or dev split (exemplars)", loaders_mednli.WHERE,
                        required=False, tier=PHYSIONET),
    },
    "meqsum": {
        "path": Source(
            "the MeQSum workbook MeQSum_ACL2019_BenAbacha_Demner-Fushman.xlsx", loaders_meqsum.WHERE
        )
    },
    "problem_summary": {
        "test": Source(
            "the task 1A test file BioNLP2023-1A-Test.csv", loaders_problem_summary.WHERE,
            tier=PHYSIONET,
        ),
        "train": Source(
            "the task 1A train file BioNLP2023-1A-Train.csv (exemplars)",
            loaders_problem_summary.WHERE,
            required=False,
            tier=PHYSIONET,
        ),
    },
    "longhealth_task1": _LONGHEALTH,
    "longhealth_task2": _LONGHEALTH,
    "longhealth_task3": _LONGHEALTH,
    "medisumqa": {
        "qa": Source("the MeDiSumQA question-answer file", loaders_medisum.QA_WHERE,
                     tier=PHYSIONET),
        "discharge": Source(
            "MIMIC-IV-Note discharge.csv(.gz) (when the QA file carries no summary text)",
            loaders_medisum.NOTE_WHERE,
            required=False,
            tier=PHYSIONET,
        ),
    },
    "medisumcode": {
        "code_json": Source(
            "a MeDiSumCode JSON (hadm_id, text, icd_codes)",
            "the CLUE authors' generation script run on your MIMIC-IV copy",
            required=False,
            tier=PHYSIONET,
        ),
        "discharge": Source("MIMIC-IV-Note discharge.csv(.gz)", loaders_medisum.NOTE_WHERE,
                            tier=PHYSIONET),
        "diagnoses_icd": Source("MIMIC-IV hosp/diagnoses_icd.csv(.gz)", loaders_medisum.HOSP_WHERE,
                                tier=PHYSIONET),
        "icd9_gem": Source(
            "the ICD-9 to ICD-10 GEM file 2018_I9gem.txt (with icd9: map)",
            loaders_medisum.GEM_WHERE,
            required=False,
        ),
    },
}
#: Per dataset: the demo file of each loader argument (as ``synthetic.write_demo`` names them).
DEMO_FILES: dict[str, dict[str, str]] = {
    "mednli": {"test": "mli_test_v1.jsonl", "train": "mli_train_v1.jsonl"},
    "meqsum": {"path": "MeQSum_ACL2019_BenAbacha_Demner-Fushman.xlsx"},
    "problem_summary": {"test": "BioNLP2023-1A-Test.csv", "train": "BioNLP2023-1A-Train.csv"},
    **{f"longhealth_task{i}": {"path": "benchmark_v5.json"} for i in (1, 2, 3)},
    "medisumqa": {"qa": "medisumqa.json", "discharge": "discharge.csv"},
    "medisumcode": {"discharge": "discharge.csv", "diagnoses_icd": "diagnoses_icd.csv"},
}
#: Per dataset: its other ``data`` settings and their defaults (the loader's keyword options).
OPTIONS: dict[str, dict[str, Any]] = {
    **{f"longhealth_task{i}": {"n_distractors": 10, "repeats": 1} for i in (1, 2, 3)},
    "medisumcode": {"n": 500, "icd9": "exclude"},
}
