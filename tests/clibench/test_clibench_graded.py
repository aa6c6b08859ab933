"""CliBench's careful reading against a hand-graded set of real model outputs (issue 34).

``tests/fixtures/clibench_graded/`` (README.md there) holds real SmolLM2-135M outputs on the four
CliBench demo tasks in several settings (``outputs.jsonl``) and, per task and answer item, the
grade a careful grader following the paper gives it (``grades.jsonl``): whether the item is a
decision, and which candidate codes of the demo dictionaries it names (none: no decision, or a
decision that no candidate title names). Each item's nearest candidate and similarity are stored
(the mapping inputs), so the check needs no encoder; one test recomputes them.

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

from clineval.benchmarks.clibench import decisions, scoring
from clineval.io import read_jsonl
from clineval.metrics.code_mapping import Item, split_items

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "clibench_graded"
#: Issue 34 asks for 98 % on at least 40 outputs. Measured: 152 of 164 distinct items of 57
#: outputs (92.7 %); every disagreement is pinned below with its reason, and
#: ``test_issue_34_target`` (a strict xfail) says the 98 % is not reached.
ISSUE_AGREEMENT = 0.98
MINIMUM_AGREEMENT = 0.92
MINIMUM_OUTPUTS = 40
#: Outputs of each task at least (the set is spread across the four tasks).
MINIMUM_PER_TASK = 10
TASKS = {"diagnoses", "procedures", "labs", "prescriptions"}
#: (output key, item text) -> why the harness's reading differs from the grade.
_HYPOGLYCEMIA = ("hypoglycemia read as its opposite, 'Type 2 diabetes mellitus with "
                 "hyperglycemia' (E11.65), at 0.570: no candidate names hypoglycemia")
_SULFONAMIDES = ("the sulfonamide antibiotics of the allergy line (ATC J01E, not in the names "
                 "file) read as the loop diuretics' 'Sulfonamides, plain' (C03CA) at 0.851: the "
                 "words match, the meaning not")
DISAGREEMENTS: dict[tuple[str, str], str] = {
    ("demo-before/labs/zero_shot/hadm-20000396", "Serum ALP 10.5 mg/dL"):
        "the abbreviation ALP: its nearest title is Alkaline Phosphatase, at 0.469, below the "
        "floor",
    ("demo-before/labs/zero_shot/hadm-20002044", "ALP 1.25 mg/L"):
        "the abbreviation ALP: the encoder puts Sodium nearest (0.393, below the floor)",
    ("demo-before/labs/zero_shot/hadm-20002044", "ALT"):
        "the bare abbreviation ALT: its title is nearest, at 0.400, below the floor",
    ("demo-256/labs/zero_shot/hadm-20001321", "ALP 12.5 mg/dL"):
        "the abbreviation ALP: Alkaline Phosphatase nearest at 0.360, below the floor",
    ("demo-before/prescriptions/zero_shot/hadm-20000396",
     "The appropriate medications to prescribe first for this patient are Sulfa (Sulfonamide "
     "Antibiotics) and Sulfonamide Sodium (Sertraline)."):
        "a sentence naming sertraline among other words: no title is near the whole sentence",
    ("demo/prescriptions/zero_shot/hadm-20000290", "Sulfonamides"): _SULFONAMIDES,
    ("demo-256/prescriptions/zero_shot/hadm-20000290", "Sulfonamides"): _SULFONAMIDES,
    ("modes-384/prescriptions/cot/hadm-20000290", "Sulfonamides"): _SULFONAMIDES,
    ("demo-256/diagnoses/zero_shot/hadm-20000074", "Hypoglycemia"): _HYPOGLYCEMIA,
    ("seed1-650/diagnoses/zero_shot/hadm-20000074", "Hypoglycemia"): _HYPOGLYCEMIA,
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
    None: 0.7866, 0.2: 0.7988, 0.3: 0.8354, 0.35: 0.8476, 0.4: 0.872, 0.45: 0.8963,
    0.5: 0.9268, 0.55: 0.9207, 0.6: 0.8963, 0.65: 0.8598, 0.7: 0.8598,
}
#: The paper's literal reading (every item mapped to its nearest code, no rule, no floor).
LITERAL_AGREEMENT = 0.2866


def _outputs() -> list[dict[str, Any]]:
    return read_jsonl(HERE / "outputs.jsonl", ("key", "task", "mode", "output", "example",
                                                "messages", "items"))


def _grades() -> dict[tuple[str, str], dict[str, Any]]:
    return {(g["task"], g["text"]): g for g in read_jsonl(HERE / "grades.jsonl", (
        "task", "text", "decision", "codes", "reason"))}


def careful_items(record: dict[str, Any], floor: float | None) -> list[tuple[Item, dict]]:
    """The record's items under the careful reading with ``floor``: the stored literal mapping
    (nearest codes and similarity), then the decision rules and the floor."""
    settings = scoring.settings({"threshold": floor})
    scorer = scoring.Scorer(record["task"], settings, {}, reasoning=record["mode"] == "cot")
    items = [Item(i["text"], tuple(i["nearest"]), i["how"], i["similarity"])
             for i in record["items"]]
    seen = decisions.shown(record["task"], record["example"], record["messages"])
    text = scoring.answer_text(record["output"], record["mode"] == "cot")
    return scorer.careful(items, text, seen)


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def distinct(texts: list[str]) -> dict[str, list[str]]:
    """The distinct items of one output: the first text of each group of items that differ only
    in their numbers -> the group's texts."""
    groups: dict[str, list[str]] = {}
    for text in texts:
        groups.setdefault(_NUMBER.sub("#", text), []).append(text)
    return {texts[0]: texts for texts in groups.values()}


def misses(floor: float | None) -> tuple[int, dict[tuple[str, str], tuple]]:
    """How many distinct items were compared, and those whose harness codes differ from the
    grade: (key, first text of the item) -> (harness codes, graded codes)."""
    grades = _grades()
    found, count = {}, 0
    for record in _outputs():
        kept = {item.text: item.codes for item, _ in careful_items(record, floor)}
        for first, texts in distinct(list(kept)).items():
            count += 1
            wrong = [(sorted(kept[t]), sorted(grades[(record["task"], t)]["codes"]))
                     for t in texts
                     if set(kept[t]) != set(grades[(record["task"], t)]["codes"])]
            if wrong:
                found[(record["key"], first)] = wrong[0]
    return count, found


def test_fixture_is_complete_and_well_formed() -> None:
    records = _outputs()
    grades = _grades()
    assert len(records) >= MINIMUM_OUTPUTS
    assert {r["task"] for r in records} == TASKS
    for task in TASKS:
        assert sum(r["task"] == task for r in records) >= MINIMUM_PER_TASK, task
    assert len({r["key"] for r in records}) == len(records)
    for record in records:
        text = scoring.answer_text(record["output"], record["mode"] == "cot")
        # the stored items are the scorer's items of the output
        assert [i["text"] for i in record["items"]] == split_items(text), record["key"]
        for item in record["items"]:
            grade = grades.get((record["task"], item["text"]))
            assert grade is not None, f"{record['key']}: no grade for {item['text']!r}"
    for (task, text), grade in grades.items():
        assert grade["decision"] or not grade["codes"], (task, text)
        assert grade["reason"] or (grade["decision"] and grade["codes"]), (
            f"{task} {text!r}: say why it maps to no code")


def test_the_careful_reading_agrees_with_the_grades() -> None:
    floor = scoring.DEFAULTS["threshold"]
    count, found = misses(floor)
    agreement = 1 - len(found) / count
    assert sorted(found) == sorted(DISAGREEMENTS), found
    assert agreement >= MINIMUM_AGREEMENT, f"{agreement:.1%}: {found}"


@pytest.mark.xfail(strict=True, reason="issue 34's 98 % is not reached: the disagreements "
                   "pinned in DISAGREEMENTS are the encoder's (abbreviations, words that match "
                   "without the meaning), which no rule of the careful reading can tell")
def test_issue_34_target() -> None:
    count, found = misses(scoring.DEFAULTS["threshold"])
    assert 1 - len(found) / count >= ISSUE_AGREEMENT


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


def test_agreement_by_floor_is_the_measured_table() -> None:
    measured = {}
    for floor in FLOORS:
        count, found = misses(floor)
        measured[floor] = round(1 - len(found) / count, 4)
    assert measured == FLOORS


@pytest.mark.slow
def test_the_stored_nearest_mapping_is_the_encoders(tmp_path) -> None:
    """The stored mapping inputs are what the matcher gives on the demo dictionaries."""
    from clineval.benchmarks.clibench import kinds, pools
    from clineval.metrics.code_mapping import Mapper
    from clineval.mimic.synthetic_mimic4 import Layout, write_mimic4

    write_mimic4(Layout(tmp_path), 4, 0)
    records = _outputs()
    for kind in {r["task"] for r in records}:
        settings = scoring.settings({})
        files = tuple(sorted(scoring.scoring_files(kind, {"source": "demo"}, tmp_path).items()))
        mapper = Mapper(kinds.system(kind, settings),
                        pools.candidates(kind, files, settings["encoder"], False), None, "paper")
        mine = [r for r in records if r["task"] == kind]
        texts = [scoring.answer_text(r["output"], r["mode"] == "cot") for r in mine]
        for record, items in zip(mine, mapper.map_all(texts), strict=True):
            assert [(i.text, list(i.codes), i.how) for i in items] == [
                (i["text"], i["nearest"], i["how"]) for i in record["items"]], record["key"]
            assert [i.similarity for i in items] == pytest.approx(
                [i["similarity"] for i in record["items"]], abs=1e-6), record["key"]
