"""CliBench's careful reading against a hand-graded set of real model outputs (issue 34).

``tests/fixtures/clibench_graded/`` (README.md there) holds real SmolLM2-135M outputs on the four
CliBench demo tasks in several settings (``outputs.jsonl``) and, per output and its answer
items, the grade a careful grader following the paper gives it (``grades.jsonl``, each item's
grade in the output grade's ``context``): whether the item is a
decision, and which candidate codes of the demo dictionaries it names (none: no decision, or a
decision that no candidate title names). Each item's nearest candidate and similarity are stored
(the mapping inputs; for a lab item the careful reading writes out, ``read_as``: the written-out
text's), so the check needs no encoder; one test recomputes them. The demo dictionaries are
written once (the careful reading reads the candidates' titles: abbreviations, opposites).

An item agrees when the codes the harness keeps for it under the careful reading (the rules of
:mod:`clineval.benchmarks.clibench.decisions` and the similarity floor) are the grade's codes.
Agreement is counted once per distinct item of an output: a repeated line is one decision, and
so are items that differ only in their numbers ("C-RBC: 9.5", "C-RBC: 10.5": one test ordered
with made-up values); such a group agrees when each of its items does.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from clibench_graded_set import _outputs, demo_dictionaries, scorer_of, stored_items

from clineval.benchmarks.clibench import decisions, scoring
from clineval.metrics.code_mapping import Item, split_items


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    """The demo dictionaries (what the set's items were mapped to)."""
    return demo_dictionaries(tmp_path_factory.mktemp("clibench-demo"))


#: Issue 34 asks for 98 % on at least 40 outputs. Measured: 161 of 164 distinct items of 57
#: outputs (98.2 %); the three disagreements are pinned below with their reasons.
ISSUE_AGREEMENT = 0.98
#: What the pinned set must keep (the issue's target, reached).
MINIMUM_AGREEMENT = ISSUE_AGREEMENT
MINIMUM_OUTPUTS = 40
#: Outputs of each task at least (the set is spread across the four tasks).
MINIMUM_PER_TASK = 10
TASKS = {"diagnoses", "procedures", "labs", "prescriptions"}
#: (output key, item text) -> why the harness's reading differs from the grade: each the
#: encoder's match of a title that shares the item's words, not its meaning.
DISAGREEMENTS: dict[tuple[str, str], str] = {
    ("demo-before/prescriptions/zero_shot/hadm-20000396",
     "The appropriate medications to prescribe first for this patient are Sulfa (Sulfonamide "
     "Antibiotics) and Sulfonamide Sodium (Sertraline)."):
        "a sentence naming sertraline among other words: no title is near the whole sentence",
    ("demo-256/diagnoses/zero_shot/hadm-20001572", "Infectious Disease"):
        "'infectious disease' read as 'Pneumonia, unspecified organism' (J18.9) at 0.607: one "
        "infection among many, not what the item names",
    ("modes-384/labs/cot/hadm-20001115", "White blood cell differential: 2.5 x 10^22/L"):
        "a white cell differential read as the white cell count (6690-2) at 0.668: the words "
        "match, the test not",
}
#: Agreement with the grades by similarity floor (docs/clibench.md, "Copied text, the
#: similarity floor and readings"); None: no floor. The default floor, 0.5, is the best.
FLOORS: dict[float | None, float] = {
    None: 0.8232, 0.2: 0.8354, 0.3: 0.872, 0.35: 0.8841, 0.4: 0.9146, 0.45: 0.9451,
    0.5: 0.9817, 0.55: 0.9756, 0.6: 0.9573, 0.65: 0.9207, 0.7: 0.9207,
}
#: The paper's literal reading (every item mapped to its nearest code, no rule, no floor).
LITERAL_AGREEMENT = 0.2866


def _grades() -> dict[tuple[str, str], dict[str, Any]]:
    """The grade of each item text of a task; the same text in two outputs has one grade."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for record in _outputs():
        for grade in record["graded"]:
            key = (record["task"], grade["text"])
            assert found.setdefault(key, grade) == grade, f"{key}: graded two ways"
    return found


def careful_items(record: dict[str, Any], demo: Path, floor: float | None
                  ) -> list[tuple[Item, dict]]:
    """The record's items under the careful reading with ``floor``: the stored literal mapping
    (nearest codes and similarity) and the written-out items' mappings, then the decision
    rules, the floor and the opposites check."""
    items, read = stored_items(record)
    seen = decisions.shown(record["task"], record["example"], record["messages"])
    text = scoring.answer_text(record["output"], record["mode"] == "cot")
    return scorer_of(record, demo, floor).careful(items, text, seen, read)


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def distinct(texts: list[str]) -> dict[str, list[str]]:
    """The distinct items of one output: the first text of each group of items that differ only
    in their numbers -> the group's texts."""
    groups: dict[str, list[str]] = {}
    for text in texts:
        groups.setdefault(_NUMBER.sub("#", text), []).append(text)
    return {texts[0]: texts for texts in groups.values()}


def misses(demo: Path, floor: float | None) -> tuple[int, dict[tuple[str, str], tuple]]:
    """How many distinct items were compared, and those whose harness codes differ from the
    grade: (key, first text of the item) -> (harness codes, graded codes)."""
    grades = _grades()
    found, count = {}, 0
    for record in _outputs():
        kept = {item.text: item.codes for item, _ in careful_items(record, demo, floor)}
        for first, texts in distinct(list(kept)).items():
            count += 1
            wrong = [(sorted(kept[t]), sorted(grades[(record["task"], t)]["codes"]))
                     for t in texts
                     if set(kept[t]) != set(grades[(record["task"], t)]["codes"])]
            if wrong:
                found[(record["key"], first)] = wrong[0]
    return count, found


def test_fixture_is_complete_and_well_formed(demo: Path) -> None:
    records = _outputs()
    grades = _grades()
    assert len(records) >= MINIMUM_OUTPUTS
    assert {r["task"] for r in records} == TASKS
    for task in TASKS:
        assert sum(r["task"] == task for r in records) >= MINIMUM_PER_TASK, task
    assert len({r["key"] for r in records}) == len(records)
    for record in records:
        text = scoring.answer_text(record["output"], record["mode"] == "cot")
        # the stored items are the scorer's items of the output, and the written-out texts
        # its expansions
        assert [i["text"] for i in record["items"]] == split_items(text), record["key"]
        items, read = stored_items(record)
        assert {t: i.text for t, i in read.items()} == scorer_of(record, demo, 0.5).expansions(
            items), record["key"]
        texts = list(dict.fromkeys(item["text"] for item in record["items"]))
        assert [g["text"] for g in record["graded"]] == texts, f"{record['key']}: one grade each"
        codes = list(dict.fromkeys(c for g in record["graded"] for c in g["codes"]))
        assert record["grade"] == codes, record["key"]
    for (task, text), grade in grades.items():
        assert grade["decision"] or not grade["codes"], (task, text)
        assert grade["reason"] or (grade["decision"] and grade["codes"]), (
            f"{task} {text!r}: say why it maps to no code")


def test_the_careful_reading_agrees_with_the_grades(demo: Path) -> None:
    floor = scoring.settings(None)["threshold"]
    count, found = misses(demo, floor)
    agreement = 1 - len(found) / count
    assert sorted(found) == sorted(DISAGREEMENTS), found
    assert agreement >= MINIMUM_AGREEMENT, f"{agreement:.1%}: {found}"


def test_issue_34_target(demo: Path) -> None:
    """Issue 34: at least 40 real outputs, the careful reading agreeing on 98 % of them."""
    count, found = misses(demo, scoring.settings(None)["threshold"])
    assert len(_outputs()) >= MINIMUM_OUTPUTS
    assert 1 - len(found) / count >= ISSUE_AGREEMENT, f"{len(found)} of {count}: {found}"


def test_the_literal_reading_agrees_far_less() -> None:
    grades = _grades()
    compared = wrong = 0
    for record in _outputs():
        nearest = {item["text"]: item["nearest"] for item in record["items"]}
        for texts in distinct(list(nearest)).values():
            compared += 1
            wrong += any(set(nearest[t]) != set(grades[(record["task"], t)]["codes"])
                         for t in texts)
    assert round(1 - wrong / compared, 4) == LITERAL_AGREEMENT


def test_agreement_by_floor_is_the_measured_table(demo: Path) -> None:
    measured = {}
    for floor in FLOORS:
        count, found = misses(demo, floor)
        measured[floor] = round(1 - len(found) / count, 4)
    assert measured == FLOORS
