"""CliBench's hand-graded set (tests/fixtures/clibench_graded/) read with its grades, the demo
dictionaries its items were mapped to, and a scorer on them: for its unit and workflow tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graded import graded

from clineval.benchmarks.clibench import scoring
from clineval.metrics.code_mapping import Item
from clineval.mimic.synthetic_mimic4 import Layout, write_mimic4

FIXTURE = "clibench_graded"


def _outputs() -> list[dict[str, Any]]:
    """The outputs with their grades: ``grade`` the codes the grader maps the output to,
    ``graded`` the grade of each of its distinct item texts (``text``, ``decision``, ``codes``,
    ``reason``)."""
    found = []
    for record in graded(FIXTURE):
        assert {"key", "task", "mode", "output", "example", "messages", "items"} <= set(record)
        record["graded"] = record.pop("item_grades")
        found.append(record)
    return found


def demo_dictionaries(folder: Path) -> Path:
    """The demo dictionaries (what the set's items were mapped to), written into ``folder``."""
    write_mimic4(Layout(folder), 4, 0)
    return folder


def scorer_of(record: dict[str, Any], demo: Path, floor: float | None) -> scoring.Scorer:
    kind = record["task"]
    return scoring.Scorer(kind, scoring.settings({"threshold": floor}),
                          scoring.scoring_files(kind, {"source": "demo"}, demo),
                          reasoning=record["mode"] == "cot")


def _item(stored: dict[str, Any]) -> Item:
    return Item(stored["text"], tuple(stored["nearest"]), stored["how"], stored["similarity"])


def stored_items(record: dict[str, Any]) -> tuple[list[Item], dict[str, Item]]:
    """The record's items as the literal reading maps them, and the written-out items'
    mappings (item text -> the mapping of its ``read_as`` text)."""
    return ([_item(i) for i in record["items"]],
            {i["text"]: _item(i["read_as"]) for i in record["items"] if "read_as" in i})
