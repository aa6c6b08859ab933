"""MedCalc-Bench's non-model baselines: the oracle (upper bound) and a constant (lower bound)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from clineval.benchmarks.medcalc.calculators import Conventions, compute_row
from clineval.benchmarks.medcalc.calculators.base import MissingEntity, UnknownCalculator
from clineval.benchmarks.medcalc.extract import output_type_for
from clineval.benchmarks.medcalc.loader import parse_entities


def oracle(conventions: Conventions | None = None) -> Callable[[dict[str, Any]], str]:
    """Run the project's calculator (under ``conventions``) on the gold 'Relevant Entities';
    answer as the paper's JSON."""

    def answer(example: dict[str, Any]) -> str:
        try:
            result = compute_row(example["calculator_id"],
                                 parse_entities(example["relevant_entities"]), conventions)
        except UnknownCalculator:
            return "The oracle has no calculator for this row yet."
        except (MissingEntity, ValueError) as err:
            return f"The oracle could not compute this row: {err}"
        return json.dumps({"step_by_step_thinking": result.explanation, "answer": result.answer},
                          ensure_ascii=False)  # the characters as written, no \u escapes

    return answer


def constant(answers: dict[str, str]) -> Callable[[dict[str, Any]], str]:
    """The same answer for every row of an output type (decimal, integer, date, weeks_days)."""

    def answer(example: dict[str, Any]) -> str:
        kind = output_type_for(example["calculator_id"], example["output_type"])
        return json.dumps({"answer": answers[kind]}, ensure_ascii=False)

    return answer


def get(name: str, settings: dict[str, Any]) -> Callable[[dict[str, Any]], str]:
    if name == "oracle":
        rules = settings.get("oracle") or {}
        return oracle(Conventions.from_settings(rules.get("conventions"),
                                                rules.get("convention_overrides")))
    if name == "constant":
        return constant(settings["constant"])
    raise KeyError(f"unknown MedCalc-Bench baseline {name!r}; known: oracle, constant")
