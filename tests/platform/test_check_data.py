"""`clineval check-data` and the workflow's data check at start; failed steps' short messages.

A bad official file stops `clineval check-data` and `snakemake all_tables` before any job with
one line per problem (file, row, field, what was expected), no traceback; a failing step's
one-line message is among the last lines of Snakemake's console output.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from medcalc_files import medcalc_csv

from clineval.cli import main
from clineval.workflow.run.job_errors import short_messages

REPO = Path(__file__).resolve().parents[2]
# the demo's constant baseline on MedCalc-Bench, zero-shot, Table 2: the smallest official grid
GRID = ("grid.select.models=[constant] grid.select.tasks=[medcalc] grid.select.modes=[zero_shot] "
        "grid.select.tables=[medcalc_table2] tasks.medcalc.data.source=official")


def check_data(capsys, *overrides: str) -> tuple[int, list[str]]:
    code = main(["check-data", "--conf", str(REPO / "conf"), *GRID.split(), *overrides])
    return code, capsys.readouterr().err.strip().splitlines()


def test_check_data_passes_a_good_file(tmp_path, capsys):
    code, lines = check_data(capsys, f"tasks.medcalc.data.path={medcalc_csv(tmp_path)}")
    assert code == 0
    assert lines[-1] == "1 task(s) with official sources checked: no problem(s)"


def test_check_data_names_the_bad_field_and_exits_non_zero(tmp_path, capsys):
    path = medcalc_csv(tmp_path, answer="about 12")
    code, lines = check_data(capsys, f"tasks.medcalc.data.path={path}")
    assert code == 1
    assert lines[-2] == "1 task(s) with official sources checked: 1 problem(s)"
    assert lines[-1].startswith(f"clineval: data error: medcalc: {path}, row ")
    assert lines[-1].endswith("field 'Ground Truth Answer': expected a number, got 'about 12'")


def test_check_data_reports_a_missing_file(tmp_path, capsys):
    code, lines = check_data(capsys, f"tasks.medcalc.data.path={tmp_path / 'absent.csv'}")
    assert code == 1
    assert lines[-1].startswith("clineval: data error: medcalc: ")
    assert "tasks.medcalc.data.path" in lines[-1] and "absent.csv" in lines[-1]


def test_check_data_passes_over_demo_tasks(capsys):
    code = main(["check-data", "--conf", str(REPO / "conf"), "grid.select.tasks=[medcalc]"])
    assert code == 0
    assert "1 demo task(s) not checked" in capsys.readouterr().err


@pytest.mark.skipif(not os.environ.get("CLINEVAL_DATA_DIR"),
                    reason="set CLINEVAL_DATA_DIR to the directory of the real public files")


def test_the_real_public_files_pass(capsys):
    data = Path(os.environ["CLINEVAL_DATA_DIR"])
    code = main(["check-data", "--conf", str(REPO / "conf"), "grid=real_public",
                 f"tasks.medcalc.data.path={data / 'medcalc-bench-v1.0/test_data.csv'}",
                 "tasks.clue_meqsum.data.path="
                 f"{data / 'meqsum/MeQSum_ACL2019_BenAbacha_Demner-Fushman.xlsx'}",
                 f"tasks.medeval_summarization.data.openi="
                 f"{data / 'openi-iu-xray/indiana_reports.csv'}"])
    assert code == 0
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "3 task(s) with official sources checked: no problem(s)")


def test_short_messages_read_snakemake_log_and_job_logs(tmp_path):
    job_log = tmp_path / "derive.log"
    job_log.write_text("INFO clineval: reading\nTraceback (most recent call last):\n  ...\n"
                       "clineval: error: x.csv, row 3, field 'a': expected an integer, got 'b'\n")
    quiet_log = tmp_path / "quiet.log"
    quiet_log.write_text("no clineval error here\n")
    run_log = tmp_path / "run.log"
    run_log.write_text(
        "Error in rule derive_data:\n    message: None\n    jobid: 3\n"
        f"    log: {job_log} (check log file(s) for error details)\n"
        "Error in rule score_medcalc:\n"
        f"    log: {quiet_log} (check log file(s) for error details)\n")
    expected = [f"clineval: derive_data failed: x.csv, row 3, field 'a': expected an integer, "
                f"got 'b' (log: {job_log})"]
    assert short_messages(str(run_log)) == expected
    assert short_messages([run_log]) == expected  # onerror's `log` is a list in Snakemake 9
    assert short_messages(None) == []
