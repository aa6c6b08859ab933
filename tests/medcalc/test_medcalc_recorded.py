"""Outputs of the official MedCalc-Bench code, rescored by clineval (the recorded backend's
``medcalc_official`` layout) and compared with their own verdicts (``clineval medcalc
agreement``)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from clineval.benchmarks.medcalc.loader import read_test_csv
from clineval.benchmarks.medcalc.recorded import agreement, report
from clineval.benchmarks.medcalc.scoring import score_row
from clineval.benchmarks.medcalc.synthetic import generate_rows, write_csv
from clineval.cli import main
from clineval.errors import DataError
from clineval.inference.recorded_backend import RecordedBackend

OFFICIAL = Path(__file__).resolve().parents[1] / "fixtures" / "recorded" / "medcalc_official.jsonl"


@pytest.fixture
def cell(tmp_path: Path) -> tuple[Path, Path]:
    """The fixture's generations and score rows, as a workflow cell writes them."""
    csv = tmp_path / "test_data.csv"
    write_csv(generate_rows([2, 3], 3, 0), csv)
    examples = read_test_csv(csv)
    requests = [{"id": e["id"], "messages": [{"role": "user", "content": e["note"]}]}
                for e in examples]
    found = RecordedBackend(OFFICIAL, "medcalc_official").generate(requests)
    generations, scores = tmp_path / "generations.jsonl", tmp_path / "scores.jsonl"
    generations.write_text("".join(json.dumps({"id": e["id"], **g.as_dict()}) + "\n"
                                   for e, g in zip(examples, found, strict=True)))
    scores.write_text("".join(json.dumps(score_row(e, g.output, ("official", "robust"))) + "\n"
                              for e, g in zip(examples, found, strict=True)))
    return generations, scores


def test_clineval_reads_the_official_answers_as_the_official_scorer_judged_them(cell):
    generations, scores = cell
    for extraction in ("official", "robust"):
        found = agreement(generations, scores, extraction)
        assert (found.rows, found.agree, found.disagreements) == (6, 6, [])
    rows = [json.loads(line) for line in scores.read_text().splitlines()]
    assert [r["official"]["correct"] for r in rows] == [1, 0, 0, 1, 1, 0]
    assert [r["official"]["extracted"] for r in rows][:2] == ["133.5", "52.1"]


def test_a_disagreement_is_listed_with_what_clineval_read(cell, capsys):
    generations, scores = cell
    lines = generations.read_text().splitlines()
    second = json.loads(lines[1]) | {"recorded_verdict": "Correct"}  # 52.1 is not 39.523
    generations.write_text("\n".join([lines[0], json.dumps(second), *lines[2:]]) + "\n")
    found = agreement(generations, scores)
    assert (found.rows, found.agree) == (6, 5)
    assert found.disagreements == [{"id": "2", "calculator_id": 2, "recorded": "Correct",
                                    "clineval": "Incorrect", "extracted": "52.1",
                                    "status": "ok", "ground_truth": "39.523"}]
    out = io.StringIO()
    report(found, False, out)
    assert out.getvalue().splitlines() == [
        "official extraction: 5/6 rows agree with the recorded verdicts",
        "  id     2  calc  2  recorded Correct    clineval Incorrect  extracted 52.1 (ok), "
        "label 39.523"]
    assert main(["medcalc", "agreement", "--generations", str(generations), "--scores",
                 str(scores), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["agree"] == 5


def test_generations_without_verdicts_are_refused(cell):
    generations, scores = cell
    lines = generations.read_text().splitlines()
    plain = json.loads(lines[2])
    del plain["recorded_verdict"]
    generations.write_text("\n".join([*lines[:2], json.dumps(plain), *lines[3:]]) + "\n")
    with pytest.raises(DataError, match=r"generations\.jsonl, row 3, field 'recorded_verdict': "
                                        r"expected one of Correct, Incorrect"):
        agreement(generations, scores)
