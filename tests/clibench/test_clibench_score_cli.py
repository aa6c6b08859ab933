"""``clineval score clibench``: the issue's JSON, explicit codes of every system, the levels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clineval.cli import main


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def run(capsys, tmp_path: Path, task: str, gold: list[dict], pred: list[dict], *extra: str):
    g = write(tmp_path / "gold.jsonl", gold)
    p = write(tmp_path / "pred.jsonl", pred)
    assert main(["score", "clibench", "--task", task, "--gold", str(g), "--predictions", str(p),
                 "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_diagnoses_json_and_levels(capsys, tmp_path):
    gold = [{"id": "a", "codes": ["I10", "E1165", "S72001A"]}, {"id": "b", "codes": ["J189"]}]
    pred = [{"id": "a", "output": "1. Hypertension (ICD-10-CM: I10)\n2. E11.9 type 2 diabetes\n"
                                  "- S72.001A hip fracture"},
            {"id": "b", "output": "Here are the diagnoses:\n- J18.1 lobar pneumonia"}]
    out = run(capsys, tmp_path, "diagnoses", gold, pred)
    assert set(out) == {"levels", "average", "rows"}
    assert [lv["name"] for lv in out["levels"]] == ["chapter", "block", "category",
                                                    "subcategory", "code"]
    assert out["rows"] == [{"id": "a", "codes": ["I10", "E11.9", "S72.001A"]},
                           {"id": "b", "codes": ["J18.1"]}]
    code = out["levels"][4]
    assert (code["precision"], code["recall"]) == (2 / 4, 2 / 4)
    category = out["levels"][2]  # I10, E11, S72 | J18 all match
    assert category["precision"] == 1.0 and category["recall"] == 1.0
    sub = out["levels"][3]  # I10, E11.9 vs E11.6, S72.0 | J18.1 vs J18.9
    assert sub["precision"] == pytest.approx(2 / 4)
    f1s = [lv["f1"] for lv in out["levels"]]
    assert out["average"]["f1"] == pytest.approx(sum(f1s) / 5, abs=1e-12)


def test_explicit_codes_of_each_system(capsys, tmp_path):
    pcs = run(capsys, tmp_path, "procedures", [{"id": "x", "codes": ["0DJ08ZZ", "5A1935Z"]}],
              [{"id": "x", "output": "- 0DJ08ZZ upper endoscopy\n- 5A1955Z ventilation"}])
    assert pcs["rows"][0]["codes"] == ["0DJ08ZZ", "5A1955Z"]
    assert [lv["f1"] for lv in pcs["levels"]] == [1.0, 1.0, 1.0, 0.5]
    rx = run(capsys, tmp_path, "prescriptions", [{"id": "x", "codes": ["A10BA02", "C10AA05"]}],
             [{"id": "x", "output": "metformin A10BA02\natorvastatin (C10AA07)"}])
    # paper levels: prefixes of 1, 3, 4 and 5 characters
    assert [lv["f1"] for lv in rx["levels"]] == [1.0, 1.0, 1.0, 1.0]
    rx_code = run(capsys, tmp_path, "prescriptions",
                  [{"id": "x", "codes": ["A10BA02", "A02BC02"]}],
                  [{"id": "x", "output": "A10BA02"}], "--atc-levels", "code")
    assert [lv["recall"] for lv in rx_code["levels"]] == [1.0, 0.5, 0.5, 0.5]


def test_labs_need_the_hierarchy_and_check_digits(capsys, tmp_path):
    tree = tmp_path / "tree.csv"
    tree.write_text("PATH_TO_ROOT,SEQUENCE,IMMEDIATE_PARENT,CODE,CODE_TEXT\n"
                    ",1,,LP1,root\nLP1,1,LP1,LP2,Laboratory\nLP1.LP2,1,LP2,LP3,Chemistry\n"
                    "LP1.LP2.LP3,1,LP3,2345-7,Glucose\nLP1.LP2.LP3,2,LP3,2160-0,Creatinine\n")
    out = run(capsys, tmp_path, "labs", [{"id": "x", "codes": ["2345-7"]}],
              [{"id": "x", "output": "2160-0 creatinine\n2345-6 not a valid check digit"}],
              "--loinc-hierarchy", str(tree))
    assert out["rows"][0]["codes"][0] == "2160-0"
    assert "2345-6" not in out["rows"][0]["codes"]
    assert out["levels"][0]["f1"] == 1.0 and out["levels"][3]["recall"] == 0.0


def test_empty_answer_is_zero_predictions_unless_dropped(capsys, tmp_path):
    gold = [{"id": "a", "codes": ["I10"]}, {"id": "b", "codes": ["J189"]}]
    pred = [{"id": "a", "output": "I10"}, {"id": "b", "output": ""}]
    zero = run(capsys, tmp_path, "diagnoses", gold, pred)
    drop = run(capsys, tmp_path, "diagnoses", gold, pred, "--empty", "drop")
    assert zero["levels"][4]["recall"] == 0.5 and drop["levels"][4]["recall"] == 1.0


def test_bad_rows_name_file_line_and_field(capsys, tmp_path):
    g = write(tmp_path / "gold.jsonl", [{"id": "a", "codes": "I10"}])
    p = write(tmp_path / "pred.jsonl", [{"id": "a", "output": "I10"}])
    status = main(["score", "clibench", "--task", "diagnoses", "--gold", str(g),
                   "--predictions", str(p)])
    assert status != 0
    assert "gold.jsonl, row 1, field 'codes': expected a list" in capsys.readouterr().err


def test_unknown_gold_codes_are_errors(capsys, tmp_path):
    g = write(tmp_path / "gold.jsonl", [{"id": "a", "codes": ["I10", "U099"]}])
    p = write(tmp_path / "pred.jsonl", [{"id": "a", "output": "I10"}])
    status = main(["score", "clibench", "--task", "diagnoses", "--gold", str(g),
                   "--predictions", str(p)])
    assert status != 0
    assert "row 1, field 'codes': not valid ICD-10-CM code(s): U099" in capsys.readouterr().err


def test_rows_keep_the_given_ids_in_gold_order(capsys, tmp_path):
    gold = [{"id": 2, "codes": ["I10"]}, {"id": 1, "codes": ["J189"]}]
    pred = [{"id": 1, "output": "J18.9"}, {"id": 2, "output": "I10"}]
    out = run(capsys, tmp_path, "diagnoses", gold, pred)
    assert out["rows"] == [{"id": 2, "codes": ["I10"]}, {"id": 1, "codes": ["J18.9"]}]
    assert out["average"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}


def test_labs_itemid_compat_reads_itemids_as_codes(capsys, tmp_path):
    tree = tmp_path / "tree.csv"
    tree.write_text("PATH_TO_ROOT,SEQUENCE,IMMEDIATE_PARENT,CODE,CODE_TEXT\n,1,,LP1,root\n")
    items = tmp_path / "d_labitems.csv"
    items.write_text("itemid,label,fluid,category\n50931,Glucose,Blood,Chemistry\n"
                     "50912,Creatinine,Blood,Chemistry\n")
    out = run(capsys, tmp_path, "labs", [{"id": "x", "codes": ["50931", "50912"]}],
              [{"id": "x", "output": "Glucose for Blood (Chemistry)"}],
              "--loinc-hierarchy", str(tree), "--titles", str(items), "--lab-codes", "itemid",
              "--loinc-leaf", "parent")
    assert out["rows"][0]["codes"] == ["50931"]
    # no itemid is in the hierarchy: each is its own node at every level (the code's fallback)
    assert [lv["recall"] for lv in out["levels"]] == [0.5, 0.5, 0.5, 0.5]


def test_lab_abbreviations_are_written_out_unless_kept(capsys, tmp_path):
    tree = tmp_path / "tree.csv"
    tree.write_text("PATH_TO_ROOT,SEQUENCE,IMMEDIATE_PARENT,CODE,CODE_TEXT\n"
                    ",1,,LP1,root\nLP1,1,LP1,LP2,Laboratory\nLP1.LP2,1,LP2,LP3,Chemistry\n"
                    "LP1.LP2.LP3,1,LP3,6768-6,Alkaline Phosphatase\n"
                    "LP1.LP2.LP3,2,LP3,2951-2,Sodium\n")
    args = ([{"id": "x", "codes": ["6768-6"]}], [{"id": "x", "output": "ALP"}],
            "--loinc-hierarchy", str(tree))
    assert run(capsys, tmp_path, "labs", *args)["rows"][0]["codes"] == ["6768-6"]
    kept = run(capsys, tmp_path, "labs", *args, "--keep-abbreviations")
    assert kept["rows"][0]["codes"] == []
