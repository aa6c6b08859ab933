"""Problem Summary: BioNLP 2023 shared task 1A (Gao et al.), PhysioNet v2.0.0, credentialed.

``BioNLP2023-1A-Test.csv`` has the columns ``File ID``, ``Subjectives``, ``Objectives``,
``Assessment``, ``Summary``; ``BioNLP2023-1A-Train.csv`` names two of them ``Subjective
Sections`` and ``Objective Sections``. Both are read. The model sees the Subjective and
Assessment sections (CLUE leaves the Objective out); the reference is the problem list
``Summary`` with its ";" separators written as ", " as the CLUE evaluation does (the raw text is
kept in meta). Exemplars come from the train file, or are held out of the test file.
"""

from __future__ import annotations

import csv
from pathlib import Path

from clineval.benchmarks.base.exemplars import pick, slug, split_with_exemplars
from clineval.benchmarks.clue.loaders import Record
from clineval.io import DataError, open_text

TASK = "problem_summary"
WHERE = ("PhysioNet 'BioNLP Workshop 2023 Shared Task 1A: Problem List Summarization' v2.0.0 "
         "(credentialed): https://physionet.org/content/bionlp-workshop-2023-task-1a/2.0.0/")
SUBJECTIVE = ("Subjectives", "Subjective Sections")
REQUIRED = ("File ID", "Assessment", "Summary")


def _reference(summary: str) -> str:
    return summary.replace(";", ", ").strip()


def read_problem_summary(path: Path, split: str, skip_unlabelled: bool = False) -> list[Record]:
    """One example per row; ids ``problem_summary-<File ID without .txt>``.

    An empty Summary is an error, or, with ``skip_unlabelled`` (exemplar pools), a skipped row.
    """
    with open_text(path) as handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames or []
        subjective = next((c for c in SUBJECTIVE if c in header), None)
        missing = [c for c in REQUIRED if c not in header] + ([] if subjective else [SUBJECTIVE[0]])
        if missing:
            raise DataError(path, 1, missing[0], f"missing column(s): {', '.join(missing)}")
        examples, seen = [], set()
        for row, raw in enumerate(reader, start=2):
            if any(raw.get(c) is None for c in (*REQUIRED, subjective)):
                raise DataError(path, row, None, "row has fewer fields than the header")
            name = raw["File ID"].strip()
            if not name:
                raise DataError(path, row, "File ID", "empty")
            if name in seen:
                raise DataError(path, row, "File ID", f"duplicate {name!r}")
            seen.add(name)
            if not raw["Summary"].strip():
                if skip_unlabelled:
                    continue
                raise DataError(path, row, "Summary", "empty problem list")
            if not (raw[subjective].strip() or raw["Assessment"].strip()):
                raise DataError(path, row, "Assessment", "both input sections are empty")
            examples.append({
                "id": f"problem_summary-{slug(name.removesuffix('.txt'))}",
                "dataset": "problem_summary",
                "fields": {"subjective": raw[subjective].strip(),
                           "assessment": raw["Assessment"].strip()},
                "reference": _reference(raw["Summary"]),
                "choices": None,
                "meta": {"source": path.name, "split": split, "row": row, "file_id": name,
                         "summary_raw": raw["Summary"]},
            })
    if not examples:
        raise DataError(path, None, None, "no labelled rows")
    return examples


def load_problem_summary(
    test: Path | str | None,
    train: Path | str | None = None,
    *,
    n_exemplars: int = 3,
    seed: int = 0,
) -> tuple[list[Record], list[Record]]:
    """Test examples; exemplars from ``train`` when given, else held out of the test file."""
    return split_with_exemplars(
        TASK, WHERE,
        (test, "the task 1A test file BioNLP2023-1A-Test.csv"),
        (train, "the task 1A train file BioNLP2023-1A-Train.csv (exemplars)"),
        lambda path: read_problem_summary(path, "test"),
        lambda path, k, seed: pick(read_problem_summary(path, "train", skip_unlabelled=True),
                                   k, seed),
        n_exemplars, seed,
    )
