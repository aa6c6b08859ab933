"""Every run the MedCalc-Bench authors released (``$CLINEVAL_DATA_DIR/released/medcalc-bench/``,
whose README gives their commits and formats) rescored through the workflow's steps (the plan,
the data step, the requests, the recorded backend's ``medcalc_official`` layout, the scoring
step and the Table 2 step; ``tests/released.py``) and compared with each file's own official
verdicts (``Result``). These files are for checking only: nothing is tuned on them.

Only the rows whose note and label are v1.0's are rescored: the whole GPT-4o mini and GPT-3.5
one-shot files, rows 1-112 of the direct-answer files and every row of the others (README).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from released import released, shared
from workflow_run import grid_folder, snakemake

from clineval.cli import main

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


@pytest.mark.slow
def test_gpt4o_mini_through_snakemake(tmp_path, capsys):
    """The complete released run through Snakemake on the v1.0 test set: Table 2's row is the
    repository's 20.63, and ``clineval medcalc agreement`` finds every Result."""
    file = released(RUNS["gpt4o_mini_direct"][0])
    grid = " ".join([
        "grid=medcalc_paper grid.select.models=[gpt4o_mini] grid.select.modes=[zero_shot]",
        "grid.select.tables=[medcalc_table2]",
        f"tasks.medcalc.data.path={shared('medcalc-bench-v1.0/test_data.csv')}",
        f"+model@models.gpt4o_mini=recorded models.gpt4o_mini.recorded.path={file}",
        "models.gpt4o_mini.recorded.layout=medcalc_official",
        "models.gpt4o_mini.recorded.mode=zero_shot models.gpt4o_mini.display_name=GPT-4o_mini"])
    work = tmp_path / "work"
    done = snakemake(work, "all_tables", overrides=grid)
    assert done.returncode == 0, done.stderr[-3000:]
    results = grid_folder(work, "medcalc_paper")
    table = (results / "tables/medcalc_table2.md").read_text(encoding="utf-8")
    assert "| GPT-4o_mini § | n/a | official | 16.51 ± 0.02 | 34.17 ± 0.03 | 23.33 ± 0.05 | " \
           "10.00 ± 0.05 | 13.33 ± 0.02 | 13.75 ± 0.04 | 31.67 ± 0.06 | 20.63 ± 0.01 |" in table
    cell = Path("gpt4o_mini/medcalc/zero_shot.jsonl")
    assert main(["medcalc", "agreement", "--generations", str(results / "generations" / cell),
                 "--scores", str(results / "scores" / cell), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert (found["rows"], found["agree"], found["disagreements"]) == (1047, 1047, [])
