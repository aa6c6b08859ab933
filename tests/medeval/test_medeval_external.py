"""``clineval score medeval``: per-row extraction and the task's metrics from a CSV and outputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sacrebleu
import yaml

from clineval.benchmarks.medeval import formats, synthetic
from clineval.benchmarks.medeval.codes import render_codes
from clineval.cli import main

CONF = Path(__file__).resolve().parents[2] / "conf"


def _run(capsys, *argv: str) -> dict:
    assert main(["score", "medeval", *argv, "--conf", str(CONF), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_sentence_task_scores_every_row_of_a_file_without_splits(tmp_path, capsys):
    data = tmp_path / "s.csv"
    data.write_text("id,domain,split,sentence,abnormal,ambiguous,rewrite\n"
                    "a,chest,,Heart is enlarged.,abnormal,,\n"
                    "b,chest,,Lungs are clear.,normal,,\n"
                    "c,ankle,,Fibula fracture.,abnormal,,\n"
                    "d,ankle,,No effusion.,normal,,\n", encoding="utf-8")
    outputs = [{"id": "a", "output": "Label: Abnormal."}, {"id": "b", "output": "abnormal"},
               {"id": "c", "output": "I think it is abnormal"}, {"id": "d", "output": "unsure"}]
    result = _run(capsys, "--task", "medeval_abnormality", "--data", str(data),
                  "--predictions", str(_jsonl(tmp_path / "p.jsonl", outputs)))
    rows = {r["id"]: r for r in result["rows"]}
    assert [rows[i]["prediction"] for i in "abcd"] == ["abnormal", "abnormal", "abnormal", None]
    assert rows["d"]["qualified"] is False
    summary = result["summary"]
    assert summary["groups"]["chest"]["accuracy"] == 0.5
    assert summary["groups"]["miscellaneous"]["accuracy"] == 0.5
    assert summary["overall"]["qualified_rate"] == 0.75
    assert summary["overall"]["f1"] == pytest.approx(2 * 2 / (2 * 2 + 1 + 0))


def test_codes_task_per_code_accuracy_and_emr(tmp_path, capsys):
    reports = tmp_path / "r.csv"
    synthetic.write_reports(reports, seed=0)
    code_sets = yaml.safe_load((CONF / "task/medeval/code_sets.yaml").read_text())
    records = formats.read_reports(reports, code_sets)
    outputs = []
    for index, record in enumerate(records):
        values = dict(record["codes"])
        if index % 2:  # every other report: one code wrong
            first = next(iter(values))
            values[first] = "unknown" if values[first] != "unknown" else "positive"
        outputs.append({"id": record["id"], "output": render_codes(values)})
    result = _run(capsys, "--task", "medeval_codes", "--data", str(reports),
                  "--predictions", str(_jsonl(tmp_path / "p.jsonl", outputs)))
    for domain in ("chest", "foot", "ankle"):
        part = result["summary"]["domains"][domain]
        n_codes = len(code_sets[domain]["codes"])
        assert part["n"] == 10 and part["qualified_rate"] == 1.0
        assert part["emr"] == pytest.approx(0.5)
        assert part["avg_accuracy"] == pytest.approx(1 - 0.5 / n_codes)


def test_summarization_rouge_and_bleu(tmp_path, capsys):
    reports = tmp_path / "r.csv"
    reports.write_text("id,domain,split,findings,impression,codes\n"
                       "r1,foot,test,Hallux valgus of the right foot.,Right hallux valgus.,\n"
                       "r2,foot,test,No fracture. Joints are normal.,No acute osseous "
                       "abnormality.,\n"
                       "r3,foot,train,Gout.,Gout.,\n", encoding="utf-8")
    outputs = [{"id": "r1", "output": "Summary: Right hallux valgus."},
               {"id": "r2", "output": "No fracture."}]
    result = _run(capsys, "--task", "medeval_summarization", "--data", str(reports),
                  "--predictions", str(_jsonl(tmp_path / "p.jsonl", outputs)))
    part = result["summary"]["groups"]["miscellaneous"]
    assert part["n"] == 2  # the file gives splits: its test rows
    # r1 identical (100); r2 "no fracture" vs 4 reference tokens: P 1/2, R 1/4, F1 1/3
    assert part["rouge_1"] == pytest.approx((100.0 + 100 / 3) / 2)
    assert part["rouge_sum"] == pytest.approx(part["rouge_1"] + part["rouge_2"] + part["rouge_l"])
    expected = sacrebleu.corpus_bleu(["Right hallux valgus.", "No fracture."],
                                     [["Right hallux valgus.", "No acute osseous abnormality."]])
    assert part["bleu4"] == pytest.approx(expected.score)


def test_unknown_prediction_id_names_file_line_and_field(tmp_path, capsys):
    data = tmp_path / "s.csv"
    data.write_text("id,domain,split,sentence,abnormal,ambiguous,rewrite\n"
                    "a,chest,,x,normal,,\n", encoding="utf-8")
    predictions = _jsonl(tmp_path / "p.jsonl", [{"id": "zz", "output": "normal"}])
    assert main(["score", "medeval", "--task", "medeval_abnormality", "--data", str(data),
                 "--predictions", str(predictions), "--conf", str(CONF)]) != 0
    assert "p.jsonl, row 1, field 'id'" in capsys.readouterr().err


def test_rewriting_judges_train_on_the_files_train_split(tmp_path, capsys):
    data = tmp_path / "s.csv"
    synthetic.write_sentences(data)
    rows = formats.read_sentences(data)
    ambiguous = [r for r in rows if r["ambiguous"] == "ambiguous"]
    outputs = [{"id": r["id"], "output": f"Rewrite: {r['sentence']}"} for r in ambiguous]
    result = _run(capsys, "--task", "medeval_rewriting", "--data", str(data),
                  "--predictions", str(_jsonl(tmp_path / "p.jsonl", outputs)))
    summary = result["summary"]
    assert summary["n"] == len(ambiguous)  # no split column: every row is scored
    for group in ("chest", "miscellaneous"):
        # the input as the rewrite: unqualified (docs/medeval.md, Copied text and readings);
        # the paper's literal reading judges it as written: the judges see no change
        part, literal = summary["groups"][group], summary["literal"]["groups"][group]
        assert part["dacc_am"] == 0.0 and part["bleu4"] == 0.0
        assert part["dacc_ab"] == part["acc_ab_original"]
        assert literal["dacc_am"] == 0.0 and literal["dacc_ab"] == 0.0
        assert 0 < literal["bleu4"] < 100
        assert summary["classifiers"]["groups"][group]["ambiguous"]["n_train"] > 0
    assert {row["unqualified"] for row in result["rows"]} == {"echo"}
