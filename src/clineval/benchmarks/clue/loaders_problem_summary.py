"""Problem Summary: BioNLP 2023 shared task 1A (Gao et al.), PhysioNet v2.0.0, credentialed.

``BioNLP2023-1A-Test.csv`` has the columns ``File ID``, ``Subjectives``, ``Objectives``,
``Assessment``, ``Summary``; ``BioNLP2023-1A-Train.csv`` names two of them ``Subjective
Sections`` and ``Objective Sections``. Both are read. The model sees the Subjective and
Assessment sections (CLUE leaves the Objective out); the reference is the problem list
``Summary`` with its ";" separators written as ", " as the CLUE evaluation does (the raw text is
kept in meta). Exemplars come from the train file, or are held out of the test file.
"""

from __future__ import annotations

from pathlib import Path

from clineval.benchmarks.base.exemplars import pick, slug, split_with_exemplars
from clineval.errors import DataError
from clineval.io import Record
from clineval.validate import Unique, read_csv

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
    examples, seen = [], Unique()
    for row in read_csv(path, REQUIRED, alternatives=(SUBJECTIVE,)):
        subjective = next(c for c in SUBJECTIVE if c in row.values)
        name = row.text("File ID")
        seen.add(row, "File ID", name)
        if not row.text("Summary", required=False):
            if skip_unlabelled:
                continue
            raise row.error("Summary", "empty problem list: expected the row's problems")
        if not (row.text(subjective, required=False) or row.text("Assessment", required=False)):
            raise row.error("Assessment", f"expected text in {subjective} or Assessment, "
                                          "got both empty")
        examples.append({
            "id": f"problem_summary-{slug(name.removesuffix('.txt'))}",
            "dataset": "problem_summary",
            "fields": {"subjective": row.text(subjective, required=False),
                       "assessment": row.text("Assessment", required=False)},
            "reference": _reference(row.values["Summary"]),
            "choices": None,
            "meta": {"source": path.name, "split": split, "row": row.row, "file_id": name,
                     "summary_raw": row.values["Summary"]},
        })
    if not examples:
        raise DataError(path, None, None, "expected labelled rows, got none")
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
