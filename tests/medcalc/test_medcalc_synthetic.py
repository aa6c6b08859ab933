"""Synthetic MedCalc-Bench rows and exemplars: determinism, CSV format, self-consistency."""

from __future__ import annotations

import ast
import csv
import re

import pytest

from clineval.benchmarks.medcalc import synthetic
from clineval.benchmarks.medcalc.calculators import CALCULATORS, UnknownCalculator, compute_row

ALL_IDS = sorted(CALCULATORS)


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    return synthetic.generate_rows(None, 6, seed=0)


def test_same_seed_same_rows_and_different_seed_different_rows(rows):
    assert synthetic.generate_rows(None, 6, seed=0) == rows
    other = synthetic.generate_rows(None, 6, seed=1)
    assert other != rows
    assert {r["Patient Note"] for r in other}.isdisjoint({r["Patient Note"] for r in rows})


def test_rows_for_a_subset_match_the_full_run(rows):
    subset = synthetic.generate_rows([39, 6], 6, seed=0)
    full = {r["Note ID"]: r["Patient Note"] for r in rows}
    assert [r["Note ID"] for r in subset][:1] == ["synthetic-39-1"]
    assert all(full[r["Note ID"]] == r["Patient Note"] for r in subset)


def test_row_shape(rows):
    assert len(rows) == 6 * len(ALL_IDS)
    assert [r["Row Number"] for r in rows] == [str(i) for i in range(1, len(rows) + 1)]
    for row in rows:
        assert tuple(row) == synthetic.COLUMNS
        assert all(isinstance(v, str) and v for v in row.values())
        calculator = CALCULATORS[int(row["Calculator ID"])]
        assert row["Calculator Name"] == calculator.name
        assert row["Question"] == calculator.question
        assert row["Note Type"] == "Template"
        assert re.fullmatch(rf"synthetic-{calculator.id}-[1-6]", row["Note ID"])
    assert len({r["Patient Note"] for r in rows}) == len(rows)


def test_ground_truth_is_the_calculator_on_its_own_entities(rows):
    for row in rows:
        entities = ast.literal_eval(row["Relevant Entities"])
        assert isinstance(entities, dict)
        result = compute_row(int(row["Calculator ID"]), entities)
        assert row["Ground Truth Answer"] == result.answer
        assert row["Ground Truth Explanation"] == result.explanation


def test_limits_follow_the_dataset(rows):
    for row in rows:
        answer = row["Ground Truth Answer"]
        if row["Output Type"] == "decimal":
            low, high = sorted((0.95 * float(answer), 1.05 * float(answer)))
            assert float(row["Lower Limit"]) == pytest.approx(low)
            assert float(row["Upper Limit"]) == pytest.approx(high)
        else:
            assert row["Lower Limit"] == row["Upper Limit"] == answer


def test_every_output_type_is_generated(rows):
    kinds = {CALCULATORS[int(r["Calculator ID"])].output_type for r in rows}
    assert kinds == {"decimal", "integer", "date", "weeks_days"}
    # the CSV keeps the dataset's labels: gestational age is 'integer' there
    assert {r["Output Type"] for r in rows} == {"decimal", "integer", "date"}
    assert any(re.fullmatch(r"\('\d+ weeks', '\d days'\)", r["Ground Truth Answer"])
               for r in rows)


def test_notes_state_the_entity_values(rows):
    for row in rows:
        note = row["Patient Note"].replace(",", "")
        for value in ast.literal_eval(row["Relevant Entities"]).values():
            if isinstance(value, list) and value[1] == "in":  # written as feet and inches
                feet, inches = divmod(int(value[0]), 12)
                assert re.search(rf"\b{feet}\D+{inches}\b", note), row["Patient Note"]
            elif isinstance(value, list):
                number = value[-2]  # [value, unit], or [drug, value, unit] for steroids
                shown = str(int(number)) if float(number).is_integer() else str(number)
                assert shown in note, (shown, row["Patient Note"])
            elif isinstance(value, str) and re.fullmatch(r"\d\d/\d\d/\d{4}", value):
                assert value in note


def test_csv_round_trip(rows, tmp_path):
    path = tmp_path / "nested" / "test_data.csv"
    synthetic.write_csv(rows, path)
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames or ()) == synthetic.COLUMNS
        assert list(reader) == rows
    assert [p.name for p in path.parent.iterdir()] == ["test_data.csv"]  # no temp file left


def test_write_csv_rejects_unknown_columns_and_keeps_old_file(rows, tmp_path):
    path = tmp_path / "test_data.csv"
    synthetic.write_csv(rows[:2], path)
    before = path.read_bytes()
    with pytest.raises(ValueError):
        synthetic.write_csv([{**rows[0], "extra": "x"}], path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["test_data.csv"]


def test_exemplars_shape_and_disjoint_from_rows(rows):
    exemplars = synthetic.generate_exemplars(None, seed=0)
    assert sorted(exemplars) == ALL_IDS
    assert synthetic.generate_exemplars(None, seed=0) == exemplars
    notes = {r["Patient Note"] for seed in (0, 1, 2)
             for r in synthetic.generate_rows(None, 20, seed)}
    for calculator_id, exemplar in exemplars.items():
        assert set(exemplar) == {"Patient Note", "Response"}
        assert set(exemplar["Response"]) == {"step_by_step_thinking", "answer"}
        assert exemplar["Patient Note"] not in notes
        kind = CALCULATORS[calculator_id].output_type
        expected = {"decimal": float, "integer": int, "date": str, "weeks_days": list}[kind]
        assert isinstance(exemplar["Response"]["answer"], expected)
    assert synthetic.generate_exemplars([6], seed=1)[6] != exemplars[6]


def test_unknown_calculator_and_bad_count():
    with pytest.raises(UnknownCalculator):
        synthetic.generate_rows([999], 1, seed=0)
    with pytest.raises(UnknownCalculator):
        synthetic.generate_exemplars([999], seed=0)
    with pytest.raises(ValueError):
        synthetic.generate_rows(None, -1, seed=0)
    assert synthetic.generate_rows([6], 0, seed=0) == []
