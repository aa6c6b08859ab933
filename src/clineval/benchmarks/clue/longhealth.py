"""LongHealth (Adams et al., 2024): the benchmark JSON and CLUE's three tasks built from it.

The JSON maps a patient id ("patient_01") to ``texts`` (id -> document), ``name``, ``birthday``,
``diagnosis`` and 20 ``questions``, each with ``No``, ``question``, ``answer_a`` .. ``answer_e``,
``correct`` (the text of the correct option) and ``answer_location`` (text id -> ``start`` and
``end`` lists, relative positions in that text).

Tasks, as LongHealth defines them and CLUE runs them:
1. the patient's own documents (those holding the answer and the rest), shuffled; options A-E.
2. the answer documents plus ``n_distractors`` documents drawn from other patients, shuffled;
   options A-F, F saying the documents do not answer the question.
3. the ``n_distractors`` documents from other patients only; options A-F, the answer is F.
Tasks 2 and 3 offer the same options, so the options never tell which task a prompt is. Every
(task, patient, question, repeat) draws from its own seeded stream; the official runs use 5
repeats (different shuffles and draws), the ``repeats`` setting. Documents are relabelled
"Document 1".. in prompt order (a source id would reveal a distractor); ``meta.documents`` maps
each label to its source text, its role and its character span in ``fields.documents``.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

from clineval.benchmarks.base.exemplars import slug
from clineval.benchmarks.base.sources import require
from clineval.benchmarks.clue.loaders import setting
from clineval.io import DataError, Record, read_json

LETTERS = ("A", "B", "C", "D", "E")
NOT_ANSWERABLE = "The provided documents do not contain the information needed to answer this."
WHERE = "github.com/kbressem/LongHealth (public), file data/benchmark_v5.json"
TASKS = (1, 2, 3)


def _patient_tag(key: str) -> str:
    match = re.fullmatch(r"patient_?(\d+)", key)
    return f"p{int(match.group(1)):02d}" if match else slug(key)


def _check_question(path: Path, where: str, question: Any, texts: dict[str, str]) -> str:
    """Validate one question; return the letter of its correct option."""
    if not isinstance(question, dict):
        raise DataError(path, where, None, "question is not an object")
    for field in ("question", "correct", *(f"answer_{x.lower()}" for x in LETTERS)):
        if not isinstance(question.get(field), str) or not question[field].strip():
            raise DataError(path, where, field, "missing or empty")
    locations = question.get("answer_location")
    if not isinstance(locations, dict) or not locations:
        raise DataError(path, where, "answer_location", "missing or empty")
    for text_id, span in locations.items():
        if text_id not in texts:
            raise DataError(path, where, "answer_location", f"unknown text {text_id!r}")
        if not isinstance(span, dict) or not isinstance(span.get("start"), list) \
                or not isinstance(span.get("end"), list):
            raise DataError(path, where, "answer_location", f"{text_id}: needs start/end lists")
    correct = question["correct"].strip()
    options = {x: question[f"answer_{x.lower()}"].strip() for x in LETTERS}
    exact = [x for x, text in options.items() if text == correct]
    loose = [x for x, text in options.items() if correct in text]
    letters = exact or loose
    if len(letters) != 1:
        raise DataError(path, where, "correct",
                        f"matches {len(letters)} options, expected exactly one: {correct!r}")
    return letters[0]


def read_benchmark(path: Path) -> dict[str, Any]:
    """The benchmark JSON, validated; at least two patients (tasks 2-3 need other patients)."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise DataError(path, None, None, "expected an object keyed by patient id")
    patients = {k: v for k, v in data.items() if isinstance(v, dict) and "texts" in v}
    if len(patients) < 2:
        raise DataError(path, None, None, f"{len(patients)} patient(s); tasks need at least two")
    for key, patient in patients.items():
        texts = patient["texts"]
        if not isinstance(texts, dict) or not texts or not all(
                isinstance(t, str) and t.strip() for t in texts.values()):
            raise DataError(path, key, "texts", "expected a non-empty object of non-empty texts")
        questions = patient.get("questions")
        if not isinstance(questions, list) or not questions:
            raise DataError(path, key, "questions", "missing or empty")
        for index, question in enumerate(questions, start=1):
            _check_question(path, f"{key} question {index}", question, texts)
    return patients


def _arrange(docs: list[tuple[str, str, str]]) -> tuple[str, list[Record]]:
    """Join (source, role, text) documents, each headed by its label; record spans."""
    parts, spans, offset = [], [], 0
    for number, (source, role, text) in enumerate(docs, start=1):
        label = f"Document {number}"
        block = f"--- {label} ---\n{text.strip()}"
        if parts:
            offset += 2  # the blank line between documents
        spans.append({"label": label, "source": source, "role": role,
                      "start": offset, "end": offset + len(block)})
        parts.append(block)
        offset += len(block)
    return "\n\n".join(parts), spans


def _options(question: dict[str, Any], with_f: bool) -> tuple[str, list[str]]:
    lines = [f"{x}: {question[f'answer_{x.lower()}'].strip()}" for x in LETTERS]
    letters = list(LETTERS)
    if with_f:
        lines.append(f"F: {NOT_ANSWERABLE}")
        letters.append("F")
    return "\n".join(lines), letters


def build_task(
    patients: dict[str, Any],
    task: int,
    *,
    seed: int = 0,
    n_distractors: int = 10,
    repeats: int = 1,
    source: str = "benchmark",
) -> list[Record]:
    """Every question of every patient as a ``longhealth_task<task>`` example, ``repeats`` times."""
    if task not in TASKS:
        raise ValueError(f"LongHealth task must be one of {TASKS}, got {task}")
    if repeats < 1 or n_distractors < 1:
        raise ValueError("repeats and n_distractors must be >= 1")
    examples = []
    for key in sorted(patients):
        texts = patients[key]["texts"]
        others = [(f"{k}/{t}", text) for k in sorted(patients) if k != key
                  for t, text in patients[k]["texts"].items()]
        for index, question in enumerate(patients[key]["questions"], start=1):
            number = question.get("No", index)
            letter = _check_question(Path(source), f"{key} question {index}", question, texts)
            answer_ids = sorted(question["answer_location"])
            for repeat in range(repeats):
                rng = random.Random(f"longhealth/{seed}/t{task}/{key}/{number}/{repeat}")
                docs: list[tuple[str, str, str]] = []
                if task in (1, 2):
                    docs += [(f"{key}/{t}", "answer", texts[t]) for t in answer_ids]
                if task == 1:
                    docs += [(f"{key}/{t}", "context", texts[t])
                             for t in sorted(texts) if t not in answer_ids]
                else:
                    drawn = rng.sample(others, min(n_distractors, len(others)))
                    docs += [(src, "distractor", text) for src, text in drawn]
                rng.shuffle(docs)
                documents, spans = _arrange(docs)
                options, letters = _options(question, with_f=task != 1)
                examples.append({
                    "id": f"longhealth-t{task}-{_patient_tag(key)}-q{int(number):02d}-r{repeat}",
                    "dataset": f"longhealth_task{task}",
                    "fields": {"documents": documents, "question": question["question"].strip(),
                               "options": options},
                    "reference": "F" if task == 3 else letter,
                    "choices": letters,
                    "meta": {
                        "source": source, "patient": key, "question_no": number,
                        "repeat": repeat, "seed": seed, "answer_letter": letter,
                        "answer_location": question["answer_location"],
                        "documents": spans,
                    },
                })
    return examples


def load_longhealth(
    path: Path | str | None,
    task: int,
    *,
    seed: int = 0,
    n_distractors: int = 10,
    repeats: int = 1,
) -> tuple[list[Record], list[Record]]:
    """Examples of one task; no exemplars (CLUE runs LongHealth zero-shot: inputs are long)."""
    name = f"longhealth_task{task}"
    json_path = require(path, name, "the LongHealth benchmark JSON (benchmark_v5.json)", WHERE,
                        setting(name, "path"))
    patients = read_benchmark(json_path)
    return build_task(patients, task, seed=seed, n_distractors=n_distractors, repeats=repeats,
                      source=json_path.name), []
