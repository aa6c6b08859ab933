"""The question file: JSON Lines, one question per line, as MedQA and most MCQA sets ship them.

    {"id": "q1", "question": "...", "options": {"A": "...", "B": "..."}, "answer": "B"}

``options`` is an object of letter -> text (or a list, lettered A, B, ... in order); ``answer``
is the correct option's letter; ``id`` is optional (default: ``q<line>``).
"""

from __future__ import annotations

import string
from pathlib import Path
from typing import Any

from clineval.errors import DataError
from clineval.io import Record, read_jsonl, write_jsonl

LETTERS = string.ascii_uppercase


def _options(path: Path, line: int, raw: Any) -> dict[str, str]:
    if isinstance(raw, list):
        raw = dict(zip(LETTERS, raw, strict=False))
    if not isinstance(raw, dict) or len(raw) < 2:
        raise DataError(path, line, "options", "expected an object of letter -> text with at "
                        f"least two options, found {raw!r}")
    for letter, text in raw.items():
        if letter not in LETTERS or not isinstance(text, str) or not text.strip():
            raise DataError(path, line, "options", f"option {letter!r}: expected a capital "
                            "letter and a non-empty text")
    return {letter: raw[letter].strip() for letter in sorted(raw)}


def read_questions(path: Path) -> list[Record]:
    """The file's questions as examples (``id``, ``question``, ``options``, ``answer``)."""
    examples: list[Record] = []
    seen: set[str] = set()
    for line, record in enumerate(read_jsonl(path, ("question", "options", "answer")), start=1):
        options = _options(path, line, record["options"])
        question = record["question"]
        if not isinstance(question, str) or not question.strip():
            raise DataError(path, line, "question", "expected a non-empty text")
        if record["answer"] not in options:
            raise DataError(path, line, "answer", f"{record['answer']!r} is not one of the "
                            f"options' letters {', '.join(options)}")
        example_id = str(record.get("id", f"q{line}"))
        if example_id in seen:
            raise DataError(path, line, "id", f"{example_id!r} appears twice")
        seen.add(example_id)
        examples.append({"id": example_id, "question": question.strip(), "options": options,
                         "answer": record["answer"]})
    if not examples:
        raise DataError(path, None, None, "no questions")
    return examples


def write_questions(questions: list[Record], path: Path) -> None:
    """Write questions in the file's format (atomically)."""
    write_jsonl(path, questions)
