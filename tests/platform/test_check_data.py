"""`clineval check-data` and the workflow's data check at start; failed steps' short messages.

A bad official file stops `clineval check-data` and `snakemake all_tables` before any job with
one line per problem (file, row, field, what was expected), no traceback; a failing step's
one-line message is among the last lines of Snakemake's console output.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest
from workflow_run import snakemake, timeout_s

from clineval.benchmarks.medcalc.synthetic import write_demo_files
from clineval.cli import main
from clineval.workflow.run.job_errors import short_messages

REPO = Path(__file__).resolve().parents[2]
# the demo's constant baseline on MedCalc-Bench, zero-shot, Table 2: the smallest official grid
GRID = ("grid.select.models=[constant] grid.select.tasks=[medcalc] grid.select.modes=[zero_shot] "
        "grid.select.tables=[medcalc_table2] tasks.medcalc.data.source=official")


def medcalc_csv(tmp_path: Path, answer: str | None = None) -> Path:
    """A MedCalc-Bench v1.0-format file (the project's synthetic rows); ``answer`` replaces the
    ground truth of its first decimal row."""
    path = tmp_path / "test_data.csv"
    write_demo_files(path, None, [2, 3], 2, 0)
    if answer is not None:
        with path.open(encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle))
        column = rows[0].index("Ground Truth Answer")
        first = next(i for i, r in enumerate(rows[1:], 1)
                     if r[rows[0].index("Output Type")] == "decimal")
        rows[first][column] = answer
        with path.open("w", encoding="utf-8", newline="") as handle:
            csv.writer(handle).writerows(rows)
    return path


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


@pytest.mark.slow
def test_snakemake_stops_before_any_job_with_the_short_message(tmp_path):
    path = medcalc_csv(tmp_path, answer="twelve")
    work = tmp_path / "work"
    done = snakemake(work, "all_tables", overrides=f"{GRID} tasks.medcalc.data.path={path}")
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"clineval: data error: medcalc: {path}, row "), done.stderr[-2000:]
    assert "field 'Ground Truth Answer': expected a number, got 'twelve'" in last
    assert "Traceback" not in done.stderr
    assert not (work / "results" / "logs").exists()  # no job ran


@pytest.mark.slow
def test_without_the_check_the_data_job_fails_with_the_same_message_last(tmp_path):
    """``--config check_data=false`` leaves the file to the data job; its one-line error is
    among the console's last lines, with the log that holds the rest."""
    path = medcalc_csv(tmp_path, answer="twelve")
    work = tmp_path / "work"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--directory",
         str(work), "--cores", "1", "all_data", "--config", "check_data=false",
         f"overrides={GRID} tasks.medcalc.data.path={path}"],
        capture_output=True, text=True, env=env, timeout=timeout_s())
    assert done.returncode != 0
    tail = done.stderr.strip().splitlines()[-6:]
    assert any(line.startswith(f"clineval: derive_data failed: {path}, row ")
               and "field 'Ground Truth Answer': expected a number, got 'twelve'" in line
               and "medcalc.derive.log" in line for line in tail), tail


@pytest.mark.slow
def test_a_failing_step_ends_the_console_output_with_its_message(tmp_path):
    # a broken official exemplar file fails in the demo's derive job (the data check reads
    # the sources of official tasks only)
    broken = tmp_path / "exemplars.json"
    broken.write_text("{not json", encoding="utf-8")
    grid = GRID.replace("tasks.medcalc.data.source=official",
                        "tasks.medcalc.exemplars.source=official "
                        f"tasks.medcalc.exemplars.official_path={broken}")
    done = snakemake(tmp_path / "work", "all_tables", overrides=grid)
    assert done.returncode != 0
    tail = done.stderr.strip().splitlines()[-6:]
    assert any(line.startswith(f"clineval: derive_demo_medcalc failed: {broken}, ")
               and "medcalc.derive.log" in line for line in tail), tail


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
