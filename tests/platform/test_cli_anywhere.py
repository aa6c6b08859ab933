"""Every ``clineval`` command works from any directory, and a grid with nothing to build stops
before any job with the setting to fix (``clineval plan`` and the workflow's start)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from workflow_run import timeout_s

from clineval.benchmarks.meddisk.synthetic import write_demo_kb
from clineval.cli import main
from clineval.config.locate import PROJECT_CONF, find_conf
from clineval.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]
CLINEVAL = Path(sys.executable).parent / "clineval"


@pytest.fixture
def elsewhere(tmp_path, monkeypatch) -> Path:
    """A working directory outside the checkout, with no conf/."""
    work = tmp_path / "elsewhere"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.delenv("CLINEVAL_CONF", raising=False)
    return work


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    return path


def test_the_checkout_conf_is_found_from_anywhere(elsewhere, monkeypatch):
    assert PROJECT_CONF == REPO / "conf"
    assert find_conf() == REPO / "conf"
    own = elsewhere / "conf"
    own.mkdir()
    (own / "config.yaml").write_text("defaults: []\n", encoding="utf-8")
    assert find_conf() == own, "a conf/ in the working directory wins"
    monkeypatch.setenv("CLINEVAL_CONF", str(REPO / "conf"))
    assert find_conf() == REPO / "conf", "$CLINEVAL_CONF wins over ./conf"
    with pytest.raises(ConfigError, match=r"no config\.yaml in --conf"):
        find_conf(elsewhere / "missing")


def test_plan_from_another_directory(elsewhere, capsys):
    assert main(["plan", "grid.select.tasks=[medcalc]"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out and all("/medcalc/" in line for line in out)


@pytest.mark.skipif(not CLINEVAL.exists(), reason="the clineval script is not installed")
def test_the_installed_script_plans_from_a_temporary_directory(elsewhere):
    env = {k: v for k, v in os.environ.items() if k != "CLINEVAL_CONF"}
    done = subprocess.run([str(CLINEVAL), "plan", "grid.select.tasks=[medcalc]"], cwd=elsewhere,
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "cells, tables: medcalc_table2" in done.stderr


def test_score_medeval_from_another_directory_with_relative_paths(elsewhere, capsys):
    Path("r.csv").write_text("id,domain,split,findings,impression,codes\n"
                             "r1,foot,test,Hallux valgus.,Right hallux valgus.,\n",
                             encoding="utf-8")
    _jsonl(Path("p.jsonl"), [{"id": "r1", "output": "Right hallux valgus."}])
    assert main(["score", "medeval", "--task", "medeval_summarization", "--data", "r.csv",
                 "--predictions", "p.jsonl", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert summary["groups"]["miscellaneous"]["rouge_1"] == pytest.approx(100.0)


def test_score_meddisk_from_another_directory_with_relative_paths(elsewhere, capsys):
    write_demo_kb(Path("kb.jsonl"))
    _jsonl(Path("pred.jsonl"), [{"disease": "D006", "aspect": "primary_symptoms",
                                 "output": "多饮、多尿、体重下降"}])
    assert main(["score", "meddisk", "--kb", "kb.jsonl", "--predictions", "pred.jsonl",
                 "--task", "meddisk_zh", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["task"] == "meddisk_zh" and result["summary"]["n"] == 1


def test_dvc_params_writes_beside_the_config_not_the_working_directory(elsewhere, tmp_path):
    conf = tmp_path / "project" / "conf"
    shutil.copytree(REPO / "conf", conf)
    assert main(["dvc", "params", "--conf", str(conf)]) == 0
    assert (conf.parent / "params.yaml").is_file()
    assert not (elsewhere / "params.yaml").exists()


def test_answers_reads_the_results_folder_it_is_given(elsewhere, capsys):
    assert main(["answers", "grid.select.tasks=[medcalc]", "--results",
                 str(elsewhere / "results")]) == 0
    assert "not scored yet" in capsys.readouterr().out


# --- a grid with nothing to build --------------------------------------------------------------


def test_a_grid_whose_tasks_have_no_data_stops_naming_the_setting(elsewhere, monkeypatch,
                                                                   capsys):
    monkeypatch.delenv("CLINEVAL_MEDCALC_CSV", raising=False)
    assert main(["plan", "grid=medcalc_paper"]) == 2
    err = capsys.readouterr().err
    assert "plans no cells" in err and "tasks.medcalc.data.path" in err


def test_a_selection_that_matches_no_cell_stops(elsewhere, capsys):
    assert main(["plan", "grid.select.tasks=[medcalc]", "grid.select.modes=[zero_shot]",
                 "tasks.medcalc.modes=[cot]"]) == 2
    err = capsys.readouterr().err
    assert "plans no cells" in err and "grid.select.modes=['zero_shot']" in err


def test_a_selected_table_without_cells_stops(elsewhere, capsys):
    assert main(["plan", "grid.select.tables=[medcalc_table2,clue_table3]",
                 "tables.clue_table3.modes=[cot]"]) == 2
    err = capsys.readouterr().err
    assert "clue_table3" in err and "tables.clue_table3.modes=['cot']" in err


def test_a_table_group_without_data_warns_at_plan_time(elsewhere, tmp_path, caplog, capsys):
    openi = tmp_path / "indiana_reports.csv"
    openi.write_text("uid,MeSH,Problems,image,indication,comparison,findings,impression\n"
                     "1,normal,normal,Xray Chest PA and Lateral,,,Clear lungs.,Normal chest.\n",
                     encoding="utf-8")
    base = ["grid=real_public", "grid.select.tasks=[medeval_summarization]",
            f"tasks.medeval_summarization.data.openi={openi}"]
    caplog.set_level("WARNING", logger="clineval")
    assert main(["plan", *base]) == 0
    assert not [r for r in caplog.records if "has no data" in r.getMessage()]
    caplog.clear()
    assert main(["plan", *base, "tables.medeval_table5.groups=[miscellaneous]"]) == 0
    [warning] = [r.getMessage() for r in caplog.records if "has no data" in r.getMessage()]
    assert "'miscellaneous'" in warning and "Open-i" in warning
    assert "tables.medeval_table5.groups=[chest]" in warning


@pytest.mark.slow
def test_snakemake_stops_at_parse_on_a_grid_with_no_cells(elsewhere):
    env = {k: v for k, v in os.environ.items() if k != "CLINEVAL_MEDCALC_CSV"}
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--directory",
         str(elsewhere), "-n", "all_tables", "--config", "overrides=grid=medcalc_paper"],
        capture_output=True, text=True, env=env, timeout=timeout_s())
    assert done.returncode != 0
    assert "plans no cells" in done.stderr and "tasks.medcalc.data.path" in done.stderr
    assert not (elsewhere / "results" / "tables").exists()


# --- dvc pull's remote -------------------------------------------------------------------------


def test_dvc_remote_names_a_missing_store_and_what_to_run(tmp_path):
    from clineval.workflow.commands.dvc_remote import Remote, diagnose

    missing = tmp_path / "clineval-dvc-remote"
    status, message = diagnose([Remote("local", str(missing), True)])
    assert status == 1 and str(missing) in message and "does not exist" in message
    assert "dvc remote modify --local local url" in message
    missing.mkdir()
    status, message = diagnose([Remote("local", str(missing), True)])
    assert status == 1 and "empty" in message
    (missing / "files" / "md5" / "ab").mkdir(parents=True)
    (missing / "files" / "md5" / "ab" / "cdef").write_text("x")
    assert diagnose([Remote("local", str(missing), True)]) == (
        0, f"default remote 'local': {missing} (1 files)")
    status, message = diagnose([Remote("other", "s3://bucket/x", False)])
    assert status == 1 and "no default DVC remote (remotes: other)" in message
    assert "dvc remote add -d" in message


@pytest.mark.skipif(shutil.which("dvc") is None and not (Path(sys.executable).parent / "dvc")
                    .exists(), reason="dvc is not installed")
def test_dvc_remote_of_a_fresh_clone_from_another_directory(elsewhere, tmp_path, capsys,
                                                          monkeypatch):
    clone = tmp_path / "clone"
    done = subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], capture_output=True,
                          text=True, timeout=300)
    if done.returncode != 0:
        pytest.skip(f"cannot clone the checkout: {done.stderr}")
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    assert main(["dvc", "remote", "--conf", str(clone / "conf")]) == 1
    err = capsys.readouterr().err
    assert "clineval-dvc-remote, which does not exist" in err


def test_audit_runs_in_the_runs_directory_from_anywhere(elsewhere, tmp_path, capsys,
                                                        monkeypatch):
    """Records name files relative to the run's working directory: -C audits as if there."""
    run = tmp_path / "run"
    (run / "results").mkdir(parents=True)
    assert main(["audit", "-C", str(run), "--json", "medcalc_table2"]) == 1
    from_elsewhere = json.loads(capsys.readouterr().out)
    monkeypatch.chdir(run)
    assert main(["audit", "--json", "medcalc_table2"]) == 1
    assert json.loads(capsys.readouterr().out) == from_elsewhere
    assert "medcalc_table2" in json.dumps(from_elsewhere)
    assert main(["audit", "-C", str(tmp_path / "none"), "medcalc_table2"]) == 2
    assert "no such directory" in capsys.readouterr().err


def test_audit_takes_overrides_as_arguments_like_plan(elsewhere, capsys):
    """Overrides (``key=value``) and the tables to audit mix as arguments; a table the
    overridden grid does not build is named with those it does."""
    assert main(["audit", "grid.select.tables=[medcalc_table2]", "clue_table3",
                 "--results", str(elsewhere / "results"), "--data", str(elsewhere / "data")]) == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(
        "clue_table3 not in this grid; tables: medcalc_table2; figures: medcalc_bars, "
        "medcalc_modes")
