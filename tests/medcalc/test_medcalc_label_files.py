"""Label files (v1.x and corrected layouts), N/A rows, gestational age in days, later versions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clineval.benchmarks.medcalc import synthetic
from clineval.benchmarks.medcalc.benchmark import BENCHMARK
from clineval.benchmarks.medcalc.labels import apply_label_file, gestational_label
from clineval.benchmarks.medcalc.loader import read_test_csv
from clineval.benchmarks.medcalc.verify import verify
from clineval.cli import main
from clineval.errors import ConfigError
from clineval.io import DataError

IDS = [6, 13, 39, 49, 69]  # physical, date, lab, dosage (with a clinical variant), weeks/days


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    return synthetic.generate_rows(IDS, 3, seed=7)


@pytest.fixture
def data(tmp_path: Path, rows) -> Path:
    path = tmp_path / "test_data.csv"
    synthetic.write_csv(rows, path)
    return path


def _corrected(tmp_path: Path, rows, not_applicable=(), drop=(), wrong=()) -> Path:
    labelled = synthetic.corrected_labels(rows, not_applicable)
    for label in labelled:
        if int(label["Unique ID"]) in wrong:
            label["Ground Truth Answer"] = str(int(label["Ground Truth Answer"]) + 1)
    path = tmp_path / "labels.csv"
    synthetic.write_rows([r for r in labelled if int(r["Unique ID"]) not in drop], path)
    return path


def _row(rows, calculator: int, k: int = 0) -> int:
    return int([r for r in rows if r["Calculator ID"] == str(calculator)][k]["Row Number"])


def test_corrected_layout_with_days_and_na_rows(tmp_path, rows, data):
    ga, bmi = _row(rows, 69), _row(rows, 6)
    labels = _corrected(tmp_path, rows, not_applicable={bmi}, drop={_row(rows, 13)})
    result = verify(data, labels=labels)
    summary = result.summary()
    assert summary["rows"] == len(rows) - 2  # one N/A row apart, one row not in the file
    assert summary["agree"] == summary["rows"]  # days compare exactly with (weeks, days)
    assert summary["n/a_rows"] == 1
    assert summary["per_calculator"]["6"] == {"name": "Body Mass Index (BMI)", "rows": 2,
                                              "agree": 2, "n/a": 1}
    assert summary["per_calculator"]["13"]["rows"] == 2
    assert next(c.row for c in result.checks if c.calculator_id == 69) == ga


def test_a_day_off_is_a_disagreement(tmp_path, rows, data):
    ga = _row(rows, 69, 1)
    result = verify(data, labels=_corrected(tmp_path, rows, wrong={ga}))
    assert [c.row for c in result.disagreements()] == [ga]


def test_v1x_layout_labels(tmp_path, rows, data):
    edited = [dict(r) for r in rows]
    target = _row(rows, 6, 2)
    for row in edited:
        if int(row["Row Number"]) == target:
            row["Ground Truth Answer"], row["Lower Limit"], row["Upper Limit"] = "1", "0.9", "1.1"
    path = tmp_path / "v1x.csv"
    synthetic.write_csv(edited, path)
    result = verify(data, labels=path)
    assert len(result.checks) == len(rows)
    assert [c.row for c in result.disagreements()] == [target]


def test_gestational_labels_convert_without_loss():
    assert gestational_label("249") == "('35 weeks', '4 days')"
    assert gestational_label("6") == "('0 weeks', '6 days')"
    assert gestational_label("('35 weeks', '4 days')") == "('35 weeks', '4 days')"
    with pytest.raises(DataError, match="gestational age"):
        gestational_label("soon")


def test_missing_rows_are_dropped_or_keep_the_dataset_label(tmp_path, rows, data):
    dropped = _row(rows, 49)
    labels = _corrected(tmp_path, rows, drop={dropped})
    examples = read_test_csv(data)
    kept, stats = apply_label_file(examples, labels, "dataset")
    assert len(kept) == len(rows) and stats["missing"] == 1 and stats["layout"] == "corrected"
    assert next(e for e in kept if e["row_number"] == dropped)["label_source"].startswith(
        "dataset")
    only, _ = apply_label_file(examples, labels, "drop")
    assert dropped not in {e["row_number"] for e in only} and len(only) == len(rows) - 1
    with pytest.raises(ValueError, match="missing-labels"):
        apply_label_file(examples, labels, "ignore")


@pytest.mark.parametrize(("edit", "message"), [
    (lambda r: r.pop("Unique ID"), "row id column"),
    (lambda r: r.update({"Unique ID": "x"}), "field 'Unique ID': expected an integer"),
    (lambda r: r.update({"Unique ID": "9999"}), "row 9999 is not a row of the data"),
    (lambda r: r.update({"Ground Truth Answer": ""}), "empty label"),
])
def test_bad_label_files_name_file_row_and_field(tmp_path, rows, data, edit, message):
    labelled = synthetic.corrected_labels(rows)
    edit(labelled[1])
    if "Unique ID" not in labelled[1]:
        labelled = [{k: v for k, v in r.items() if k != "Unique ID"} for r in labelled]
    path = tmp_path / "bad.csv"
    synthetic.write_rows(labelled, path)
    with pytest.raises(DataError, match=message) as err:
        verify(data, labels=path)
    assert str(path) in str(err.value)


def test_later_layout_loads_as_a_version(tmp_path, rows):
    path = tmp_path / "v1.2.csv"
    synthetic.write_csv(synthetic.later_layout(rows), path)
    with pytest.raises(DataError, match="Category"):
        read_test_csv(path)  # v1.0 is read strictly
    examples = read_test_csv(path, "1.2")
    assert {e["category"] for e in examples} == {"lab", "date", "dosage", "physical"}
    assert verify(path, version="verified").agree == len(rows)
    with pytest.raises(ValueError, match="unknown MedCalc-Bench version"):
        read_test_csv(path, "2.0")


def test_cli_verify_json(tmp_path, rows, data, capsys):
    labels = _corrected(tmp_path, rows, not_applicable={_row(rows, 13)})
    args = ["medcalc", "verify", "--data", str(data), "--labels", str(labels), "--json"]
    assert main([*args, "--conventions", "clinical", "--convention", "13=official"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["rows"], out["n/a_rows"], out["conventions"]) == (
        len(rows) - 1, 1, "clinical (official for 13)")
    assert set(out["per_calculator"]) == {str(i) for i in IDS}
    assert main([*args, "--convention", "13"]) == 2
    assert "--convention" in capsys.readouterr().err


def _task(**scoring) -> dict:
    return {"version": "1.0", "data": {"source": "official", "version": "1.0"},
            "scoring": {"extractions": ["official", "robust"], "labels": "dataset",
                        "conventions": "official", "convention_overrides": {}, **scoring}}


def _table_notes(task: dict, summary: dict) -> list[str]:
    cell = {"model": "m", "mode": "zero_shot", "display_name": "M", "size": "7B",
            "smoke": False, "summary": summary}
    spec = {"title": "T", "modes": ["zero_shot"], "extractions": ["official", "robust"]}
    return BENCHMARK.table(spec, [cell], {"medcalc": task}).notes


def test_scoring_against_a_label_file(tmp_path, rows, data):
    bmi, due = _row(rows, 6), _row(rows, 13)
    labels = _corrected(tmp_path, rows, not_applicable={bmi}, drop={due})
    examples = read_test_csv(data)
    outputs = {e["id"]: BENCHMARK.baseline("oracle", {}, examples)(e) for e in examples}
    outputs[str(bmi)] = '{"answer": "N/A"}'
    generations = [{"id": k, "output": v} for k, v in outputs.items()]
    for missing, n in (("drop", len(rows) - 1), ("dataset", len(rows))):
        task = _task(labels="file", label_file=str(labels), missing_labels=missing)
        scored, summary = BENCHMARK.score(task, examples, generations)
        assert summary["n"] == n
        assert summary["robust"]["overall"]["correct"] == n  # the oracle + one abstention
        assert summary["official"]["overall"]["correct"] == n
        assert summary["labels"]["not_applicable"] == 1 and summary["labels"]["missing"] == 1
        assert summary["labels"]["layout"] == "corrected"
        assert next(r for r in scored if r["row_number"] == bmi)["robust"]["status"] == (
            "abstained")
        notes = " ".join(_table_notes(task, summary))
        assert f"labels.csv (corrected layout), {n} rows scored (1 N/A" in notes
        assert "Calculator conventions (oracle baseline, recomputed labels): official." in notes
    assert BENCHMARK.scoring_inputs(task, "medcalc", Path("data")) == {"labels": labels}
    assert BENCHMARK.scoring_inputs(_task(), "medcalc", Path("data")) == {}
    with pytest.raises(ConfigError, match="label_file"):
        BENCHMARK.score(_task(labels="file", label_file=None), examples, generations)


def test_conventions_reach_the_oracle_and_recomputed_labels(tmp_path):
    path = tmp_path / "dates.csv"
    synthetic.write_csv(synthetic.generate_rows([13, 68], 4, seed=3), path)
    examples = read_test_csv(path)
    clinical = _task(labels="recomputed", conventions="clinical")
    oracle = BENCHMARK.baseline("oracle", {"scoring": {"baselines": {"oracle": {
        "conventions": "clinical", "convention_overrides": {}}}}}, examples)
    generations = [{"id": e["id"], "output": oracle(e)} for e in examples]
    _, summary = BENCHMARK.score(clinical, examples, generations)
    assert summary["robust"]["overall"]["correct"] == len(examples)
    assert summary["labels"]["conventions"] == "clinical"
    official = BENCHMARK.baseline("oracle", {}, examples)
    generations = [{"id": e["id"], "output": official(e)} for e in examples]
    _, summary = BENCHMARK.score(clinical, examples, generations)
    assert summary["robust"]["overall"]["correct"] < len(examples)  # the date rules differ
    notes = " ".join(_table_notes(clinical, summary))
    assert "with the clinical conventions" in notes
    with pytest.raises(ConfigError, match=r"scoring\.conventions='bedside': unknown value"):
        BENCHMARK.score(_task(conventions="bedside"), examples, generations)


def test_cli_scores_outputs_against_a_label_file(tmp_path, rows, data, capsys):
    ga, bmi = _row(rows, 69), _row(rows, 6)
    labels = _corrected(tmp_path, rows, not_applicable={bmi})
    days = int(next(r for r in synthetic.corrected_labels(rows)
                    if int(r["Unique ID"]) == ga)["Ground Truth Answer"])
    outputs = [
        (ga, json.dumps({"answer": f"{days // 7} weeks and {days % 7} days"})),  # right
        (bmi, '{"answer": "cannot be determined"}'),  # N/A row: right
        (_row(rows, 6, 1), '{"answer": "N/A"}'),  # abstaining on a computable row: wrong
    ]
    preds = tmp_path / "p.jsonl"
    preds.write_text("".join(json.dumps({"row_number": n, "output": o}) + "\n"
                             for n, o in outputs), encoding="utf-8")
    assert main(["score", "medcalc", "--data", str(data), "--labels", str(labels),
                 "--predictions", str(preds), "--extraction", "robust", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [r["correct"] for r in result["rows"]] == [1, 1, 0]
    assert [r["status"] for r in result["rows"]] == ["ok", "abstained", "abstained"]


def test_day_count_answers_against_day_labels(tmp_path, rows, data):
    from clineval.benchmarks.medcalc.scoring import score_row

    labels = _corrected(tmp_path, rows)
    dataset = [e for e in read_test_csv(data) if e["calculator_id"] == 69]
    joined, _ = apply_label_file(read_test_csv(data), labels, "drop")
    joined = [e for e in joined if e["calculator_id"] == 69]
    assert len(joined) == 3
    by_row = {int(r["Unique ID"]): int(r["Ground Truth Answer"])
              for r in synthetic.corrected_labels(rows) if r["Calculator Name"].startswith(
                  "Estimated Gestational")}
    for example in joined:
        days = by_row[example["row_number"]]
        assert example["label_days"] is True
        for answer, verdict in ((f"{days}", 1), (f"{days} days", 1), (f"{days + 1}", 0),
                                (f"{days // 7} weeks, {days % 7} days", 1)):
            row = score_row(example, json.dumps({"answer": answer}), ("official", "robust"))
            assert row["robust"]["correct"] == verdict, answer
            if answer.split()[0].isdigit() and "weeks" not in answer:
                assert row["official"]["correct"] == verdict, answer
    original = score_row(dataset[0], json.dumps({"answer": str(by_row[dataset[0]["row_number"]])}),
                         ("official", "robust"))
    assert original["robust"]["status"] == "unparseable"  # v1.0 labels: a bare number is no age
