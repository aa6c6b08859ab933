"""Deterministic synthetic MedCalc-Bench rows in the official CSV format, and one-shot exemplars.

Each row is a template patient note for one implemented calculator: plausible values in varied
units and phrasings, a few distractors (an earlier visit's value, an unrelated finding), the
dataset's question, Relevant Entities as a Python dict literal, and a ground truth, limits and
explanation from the project's calculators. Every row draws from its own seeded stream
(seed, calculator, index); exemplars draw from a separate stream and open with sentences that
rows never use, so an exemplar note is never an evaluated note.
"""

from __future__ import annotations

import ast
import csv
import logging
import random
from collections.abc import Collection, Sequence
from pathlib import Path

from clineval.benchmarks.medcalc.calculators import (
    CALCULATORS,
    CalcResult,
    Calculator,
    UnknownCalculator,
    compute_row,
)
from clineval.benchmarks.medcalc.demo import SAMPLERS, Case
from clineval.benchmarks.medcalc.labels import NOT_APPLICABLE, limits
from clineval.benchmarks.medcalc.loader import COLUMNS
from clineval.io import atomic_writer, write_json

log = logging.getLogger(__name__)

# Rows and exemplars open with disjoint verbs, so their notes can never coincide.
_ROW_OPENERS = (
    "{a} {age}-year-old {noun} presents {reason}.",
    "{a} {age}-year-old {noun} is seen {reason}.",
    "{a} {age}-year-old {noun} is evaluated {reason}.",
)
_EXEMPLAR_OPENERS = (
    "{a} {age}-year-old {noun} is assessed {reason}.",
    "{a} {age}-year-old {noun} is examined {reason}.",
)


def _note(rng: random.Random, case: Case, openers: Sequence[str]) -> str:
    person = case.person
    opener = rng.choice(openers).format(
        a=person.article, age=person.age, noun=person.noun, reason=case.reason)
    body = list(case.facts)
    for distractor in case.distractors:
        body.insert(rng.randint(0, len(body)), distractor)
    return " ".join([opener, *body])


def _calculators(calculator_ids: Sequence[int] | None) -> list[Calculator]:
    ids = sorted(SAMPLERS) if calculator_ids is None else list(dict.fromkeys(calculator_ids))
    missing = [i for i in ids if i not in SAMPLERS or i not in CALCULATORS]
    if missing:
        raise UnknownCalculator(f"no synthetic generator for calculator(s) {missing}")
    return [CALCULATORS[i] for i in ids]


def _csv_output_type(calculator: Calculator) -> str:
    """The dataset labels gestational age (weeks, days) as 'integer'."""
    return "integer" if calculator.output_type == "weeks_days" else calculator.output_type


def generate_rows(
    calculator_ids: Sequence[int] | None, per_calculator: int, seed: int
) -> list[dict[str, str]]:
    """``per_calculator`` synthetic rows for each calculator (all implemented when None)."""
    if per_calculator < 0:
        raise ValueError(f"per_calculator must be >= 0, got {per_calculator}")
    rows = []
    for calculator in _calculators(calculator_ids):
        for k in range(1, per_calculator + 1):
            rng = random.Random(f"medcalc-synthetic/rows/{seed}/{calculator.id}/{k}")
            case = SAMPLERS[calculator.id](rng)
            result = compute_row(calculator.id, case.entities)
            lower, upper = limits(calculator, result)
            rows.append({
                "Row Number": str(len(rows) + 1),
                "Calculator ID": str(calculator.id),
                "Calculator Name": calculator.name,
                "Category": calculator.category,
                "Output Type": _csv_output_type(calculator),
                "Note ID": f"synthetic-{calculator.id}-{k}",
                "Note Type": "Template",
                "Patient Note": _note(rng, case, _ROW_OPENERS),
                "Question": calculator.question,
                "Relevant Entities": repr(case.entities),
                "Ground Truth Answer": result.answer,
                "Lower Limit": lower,
                "Upper Limit": upper,
                "Ground Truth Explanation": result.explanation,
            })
    return rows


def write_csv(rows: Sequence[dict[str, str]], path: Path) -> None:
    """Write ``rows`` with exactly :data:`COLUMNS`, atomically (temp file, then os.replace)."""
    with atomic_writer(Path(path)) as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, extrasaction="raise")
        writer.writeheader()
        writer.writerows(rows)


# The corrected-labels layout of Ye et al. 2025 (gestational age as days, N/A rows).
CORRECTED_COLUMNS = ("Unique ID", "Calculator Name", "Question", "Patient Note",
                     "Ground Truth Answer", "Lower Limit", "Upper Limit")
# How the later layout (v1.1, v1.2, Verified) spells the categories the v1.0 file abbreviates.
LATER_CATEGORIES = {"lab": "lab test"}


def corrected_labels(
    rows: Sequence[dict[str, str]], not_applicable: Collection[int] = ()
) -> list[dict[str, str]]:
    """``rows`` (official layout) as a corrected-labels file: ``Unique ID``, gestational age in
    days, limits 0.95×/1.05× every number, ``N/A`` for the row numbers in ``not_applicable``."""
    labelled = []
    for row in rows:
        answer, lower, upper = (row[c] for c in ("Ground Truth Answer", "Lower Limit",
                                                 "Upper Limit"))
        if int(row["Row Number"]) in not_applicable:
            answer = lower = upper = NOT_APPLICABLE
        elif int(row["Calculator ID"]) == 69:
            weeks, days = (int(part.split()[0]) for part in ast.literal_eval(answer))
            answer = lower = upper = str(7 * weeks + days)
        elif row["Output Type"] == "integer":
            lower, upper = repr(0.95 * int(answer)), repr(1.05 * int(answer))
        labelled.append({"Unique ID": row["Row Number"], "Calculator Name": row["Calculator Name"],
                         "Question": row["Question"], "Patient Note": row["Patient Note"],
                         "Ground Truth Answer": answer, "Lower Limit": lower,
                         "Upper Limit": upper})
    return labelled


def later_layout(rows: Sequence[dict[str, str]]) -> list[dict[str, str]]:
    """``rows`` as the v1.2 / Verified file writes them: categories spelled out, gestational
    age typed "date"."""
    return [{**row,
             "Category": LATER_CATEGORIES.get(row["Category"], row["Category"]),
             "Output Type": "date" if row["Calculator ID"] == "69" else row["Output Type"]}
            for row in rows]


def write_rows(rows: Sequence[dict[str, str]], path: Path) -> None:
    """Write rows of any one layout (the columns of the first row), atomically."""
    with atomic_writer(Path(path)) as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), extrasaction="raise")
        writer.writeheader()
        writer.writerows(rows)


def _exemplar_answer(calculator: Calculator, result: CalcResult) -> object:
    """The answer as the official exemplar JSON writes it (number, date string or list)."""
    if calculator.output_type == "decimal":
        return float(result.answer)
    if calculator.output_type == "integer":
        return int(result.answer)
    if isinstance(result.value, tuple):
        weeks, days = result.value
        return [f"{weeks} weeks", f"{days} days"]
    return result.answer


def generate_exemplars(calculator_ids: Sequence[int] | None, seed: int) -> dict[int, dict]:
    """The project's one-shot exemplar per calculator, in the official exemplar JSON shape."""
    exemplars: dict[int, dict] = {}
    for calculator in _calculators(calculator_ids):
        rng = random.Random(f"medcalc-synthetic/exemplars/{seed}/{calculator.id}")
        case = SAMPLERS[calculator.id](rng)
        result = compute_row(calculator.id, case.entities)
        exemplars[calculator.id] = {
            "Patient Note": _note(rng, case, _EXEMPLAR_OPENERS),
            "Response": {
                "step_by_step_thinking": result.explanation,
                "answer": _exemplar_answer(calculator, result),
            },
        }
    return exemplars


def write_demo_files(
    csv_path: Path,
    exemplars_path: Path | None,
    calculator_ids: Sequence[int] | None,
    per_calculator: int,
    seed: int,
) -> None:
    """Write a synthetic test set (and exemplars) of any size (``clineval medcalc demo``)."""
    rows = generate_rows(calculator_ids, per_calculator, seed)
    write_csv(rows, csv_path)
    log.info("wrote %d rows to %s", len(rows), csv_path)
    if exemplars_path is not None:
        exemplars = generate_exemplars(calculator_ids, seed + 1000)
        write_json(exemplars_path, {str(k): v for k, v in exemplars.items()})
        log.info("wrote %d exemplars to %s", len(exemplars), exemplars_path)
