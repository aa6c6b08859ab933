"""CLUE example records for tests, in the shape the loaders produce."""

from __future__ import annotations


def clue_example(dataset: str, i: int, fields: dict, reference, choices=None) -> dict:
    return {
        "id": f"{dataset}-{i}",
        "dataset": dataset,
        "fields": fields,
        "reference": reference,
        "choices": choices,
        "meta": {},
    }
