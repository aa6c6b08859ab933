"""Every run the MedCalc-Bench authors released (``$CLINEVAL_DATA_DIR/released/medcalc-bench/``,
whose README gives their commits and formats) rescored through the workflow's steps (the plan,
the data step, the requests, the recorded backend's ``medcalc_official`` layout, the scoring
step and the Table 2 step; ``tests/released.py``) and compared with each file's own official
verdicts (``Result``). These files are for checking only: nothing is tuned on them.

Only the rows whose note and label are v1.0's are rescored: the whole GPT-4o mini and GPT-3.5
one-shot files, rows 1-112 of the direct-answer files and every row of the others (README).
"""

from __future__ import annotations

import functools
import json
from collections import Counter

import pytest
from released import file_rows, released, rescore, shared

from clineval.benchmarks.medcalc.loader import CATEGORY_SPELLINGS, read_test_csv
from clineval.errors import DataError

V1_ROWS = range(1, 113)  # the direct-answer files' rows that are v1.0's (README)
#: name -> (file, mode, rows rescored (None: all 1,047), official one-shot exemplars)
RUNS = {
    "gpt4o_mini_direct": ("OpenAI_gpt-4o-mini_direct_answer.jsonl", "zero_shot", None, False),
    "gpt35_one_shot": ("OpenAI_gpt-3.5-turbo_one_shot.jsonl", "one_shot", range(1, 115), True),
    "gpt4_one_shot": ("OpenAI_gpt-4_one_shot.37347e2.jsonl", "one_shot", range(1, 58), True),
    "gpt4_zero_shot": ("OpenAI_gpt-4_zero_shot.37347e2.jsonl", "cot", range(1, 7), False),
    "gpt4_direct": ("OpenAI_gpt-4_direct_answer.37347e2.jsonl", "zero_shot", V1_ROWS, False),
    "gpt35_direct_a": ("OpenAI_gpt-3.5-turbo_direct_answer.37347e2.jsonl", "zero_shot", V1_ROWS,
                       False),
    "gpt35_direct_b": ("OpenAI_gpt-3.5-turbo_direct_answer.c928f99.jsonl", "zero_shot", V1_ROWS,
                       False),
    # code-augmented: clineval has no such mode; its rows are rendered zero-shot only for the
    # note check, and its answers are the ones the official code took from the final turn
    "gpt4_code": ("code_exec_gpt_4.14d1ab1.jsonl", "zero_shot", range(1, 354), False),
}
#: name -> (rows, correct (the file's Result and clineval's official verdict alike), rows whose
#: LLM Answer the official extraction does not give back (every one judged Incorrect by both),
#: rows whose robust verdict is not the Result)
MEASURED = {
    "gpt4o_mini_direct": (1047, 216, 47, []),
    "gpt35_one_shot": (114, 50, 0, []),
    "gpt4_one_shot": (57, 17, 0, []),
    "gpt4_zero_shot": (6, 0, 0, []),
    "gpt4_direct": (112, 53, 21, []),
    "gpt35_direct_a": (112, 49, 0, []),
    "gpt35_direct_b": (112, 49, 0, []),
    # "(4.31, 2.70)": the official extraction keeps 2.7 (Incorrect), the robust one 4.31
    "gpt4_code": (353, 182, 33, ["147"]),
}
#: The one aggregate the authors committed for these runs: run B (c928f99,
#: .history/evaluation/overall_stats_20240626131317.json), over its 182 rows.
RUN_B_PUBLISHED = {"lab": 0.12658, "risk": 0.325, "physical": 0.68254, "overall": 0.36264}


@pytest.fixture(scope="module")
def rescored(tmp_path_factory):
    """Each run rescored once per module."""
    done = {}

    def get(name: str):
        if name not in done:
            file, mode, rows, exemplars = RUNS[name]
            done[name] = rescore(tmp_path_factory.mktemp(name), released(file), mode,
                                 rows=rows, exemplars=exemplars)
        return done[name]
    return get


@functools.cache
def categories() -> dict[str, str]:
    """Example id -> v1.0 category (clineval's loader)."""
    examples = read_test_csv(shared("medcalc-bench-v1.0/test_data.csv"))
    return {e["id"]: e["category"] for e in examples}


@pytest.mark.parametrize("name", list(RUNS))
def test_clineval_gives_every_official_verdict_of_the_run(rescored, name):
    """Through the recorded backend, the scoring step and the table: clineval's official
    verdict is the file's Result on every rescored row, and the table counts per category are
    the file's."""
    found, (rows, correct, unread, robust) = rescored(name), MEASURED[name]
    assert len(found.generations) == len(found.rows) == rows
    assert found.disagreements() == []
    assert found.disagreements("robust") == robust
    assert found.cell("overall") == (correct, rows)
    of = categories()
    theirs = Counter(of[key] for key, (verdict, _) in found.verdicts().items()
                     if verdict == "Correct")
    for category, count in Counter(of[g["id"]] for g in found.generations).items():
        assert found.cell(category) == (theirs[category], count), category
    # the answer run.py judged, extracted again from the recorded output; where run.py kept
    # an error message instead of an answer (e.g. "name 'N' is not defined": it evaluated
    # N/A), or the code-augmented final turn holds no value, both verdicts are Incorrect
    given = {str(r["Row Number"]): r["LLM Answer"] for r in file_rows(released(RUNS[name][0]))}
    other = [r for r in found.rows if r["official"]["extracted"] != given[r["id"]]]
    assert len(other) == unread
    verdicts = found.verdicts()
    assert {verdicts[r["id"]] for r in other} <= {("Incorrect", "Incorrect")}


def test_gpt4o_mini_rebuilds_the_repository_results_file(rescored):
    """The complete run: the table's row is the repository's results file, category by
    category (accuracy and its standard error, both as the file rounds them)."""
    found = rescored("gpt4o_mini_direct")
    published = json.loads(released("results_gpt-4o-mini_direct_answer.json").read_text())
    assert published["overall"]["average"] == 20.63
    for category, numbers in published.items():
        for extraction in ("official", "robust"):
            correct, n = found.cell(category, extraction)
            assert round(100 * correct / n, 2) == numbers["average"], (category, extraction)
        record = next(r for r in found.records if (r["category"], r["extraction"]) == (
            category, "official"))
        assert round(float(record["se"]), 2) == numbers["std"], category
    assert "| Released § | n/a | official | 16.51 ± 0.02 | 34.17 ± 0.03 | 23.33 ± 0.05 | " \
           "10.00 ± 0.05 | 13.33 ± 0.02 | 13.75 ± 0.04 | 31.67 ± 0.06 | 20.63 ± 0.01 |" \
        in found.table


def test_gpt4_one_shot_replies_are_extracted_again(rescored):
    """Rows 1-27 of the GPT-4 one-shot file kept the model's whole reply in LLM Explanation
    (run.py before 26 June 2024): the layout hands that reply to the scorer, whose official
    extraction gives back every LLM Answer run.py took from it. Rows 28-57 (the later run.py)
    kept only the thinking and the extracted answer."""
    found = rescored("gpt4_one_shot")
    rows = file_rows(released(RUNS["gpt4_one_shot"][0]))
    outputs = {g["id"]: g["output"] for g in found.generations}
    replies = [r for r in rows if outputs[str(r["Row Number"])] == r["LLM Explanation"]]
    assert [r["Row Number"] for r in replies] == list(range(1, 28))
    scored = {r["id"]: r for r in found.rows}
    assert [scored[str(r["Row Number"])]["official"]["extracted"] for r in replies] == [
        r["LLM Answer"] for r in replies]
    # the reply, not run.py's reading of it: row 21 answered "112 ml/min/1.73m²", of which
    # the official extraction (as run.py) keeps 1.73 and the robust one 112
    assert (scored["21"]["official"]["extracted"], scored["21"]["robust"]["extracted"]) == (
        "1.73", "112")
    assert all(json.loads(outputs[str(r["Row Number"])]) == {
        "step_by_step_thinking": r["LLM Explanation"], "answer": r["LLM Answer"]}
        for r in rows[27:])


def test_run_b_committed_aggregate(rescored, tmp_path):
    """Run B's committed per-category means are its file's Result means over all 182 rows;
    on the 112 rows that are v1.0's clineval gives every one of those verdicts (above), so the
    table's counts there are the published counts less those of the 70 draft rows. The draft
    rows answer other notes (their labels are not in the shared data): the workflow refuses
    to score them against v1.0."""
    rows = file_rows(released(RUNS["gpt35_direct_b"][0]))
    assert len(rows) == 182
    found = rescored("gpt35_direct_b")
    for category, published in RUN_B_PUBLISHED.items():
        within = [r for r in rows if category == "overall"
                  or CATEGORY_SPELLINGS.get(r["Category"], r["Category"]) == category]
        correct = [r for r in within if r["Result"] == "Correct"]
        assert round(len(correct) / len(within), 5) == published, category
        draft = [r for r in within if r["Row Number"] not in V1_ROWS]
        assert found.cell(category) == (len(correct) - sum(r["Result"] == "Correct"
                                                           for r in draft),
                                        len(within) - len(draft)), category
    assert sum(r["Result"] == "Correct" for r in rows) == 66
    with pytest.raises(DataError, match=r"line 113, field 'Patient Note': not the note that the "
                                        r"prompt of example '114' shows"):
        rescore(tmp_path, released(RUNS["gpt35_direct_b"][0]), "zero_shot",
                rows=[*V1_ROWS, 114])
