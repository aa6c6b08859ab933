"""`clineval answers`: each benchmark says which score rows hold a readable answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clineval.benchmarks import get_benchmark
from clineval.workflow.commands.answers import CellAnswers, finish_share, markdown

FIXTURES = Path(__file__).parents[1] / "fixtures" / "real_outputs"


@pytest.mark.parametrize(("benchmark", "row", "expected"), [
    ("medcalc", {"official": {"status": "ok"}, "robust": {"status": "ok"}}, True),
    ("medcalc", {"official": {"status": "not_found"}, "robust": {"status": "ok"}}, False),
    ("medcalc", {"official": {"status": "abstained"}, "robust": {"status": "ok"}}, True),
    ("clue", {"status": "label"}, True),
    ("clue", {"status": "ambiguous"}, False),
    ("clue", {"status": "no_codes"}, False),
    ("clue", {"status": "whole_output"}, None),
    ("meddisk", {"status": "pattern", "unanswered": None}, True),
    ("meddisk", {"status": "fallback", "unanswered": None}, True),
    ("meddisk", {"status": "pattern", "unanswered": "empty"}, False),
    ("clibench", {"codes": ["I10"]}, True),
    ("clibench", {"codes": []}, False),
    ("medeval", {"qualified": False}, False),
    ("medeval", {"rouge": {}}, None),
])
def test_answered_reads_each_benchmarks_status(benchmark: str, row: dict, expected) -> None:
    assert get_benchmark(benchmark).answered(row) is expected


def test_answered_on_recorded_real_output_counts_both_outcomes() -> None:
    """SmolLM2's recorded demo output has readable and unreadable answers."""
    seen = set()
    for path in FIXTURES.glob("*.json"):
        recorded = json.loads(path.read_text(encoding="utf-8"))
        bench = get_benchmark(recorded["scoring_identity"]["benchmark"])
        seen |= {bench.answered(row) for row in recorded["rows"]}
    assert seen == {True, False, None}


def test_answered_is_false_exactly_where_the_explorer_says_unanswered() -> None:
    """One vocabulary: on every recorded real output, ``answered`` and the verdict of the
    reading it names (the first judgement) agree."""
    checked = 0
    for path in FIXTURES.glob("*.json"):
        recorded = json.loads(path.read_text(encoding="utf-8"))
        bench = get_benchmark(recorded["scoring_identity"]["benchmark"])
        examples = {e["id"]: e for e in recorded["examples"]}
        for row in recorded["rows"]:
            first = bench.reading(row, examples.get(row["id"], {})).judgements[0]
            assert (bench.answered(row) is False) == (first.verdict == "unanswered"), (
                bench.name, row["id"], first)
            assert first.name == {"official": "official"}.get(bench.answered_reading, "reading")
            checked += 1
    assert checked >= 40


def test_markdown_shows_a_dash_where_every_output_is_the_answer() -> None:
    text = markdown([CellAnswers("m/t/zero_shot", 4, 25.0, 50.0, None),
                     CellAnswers("m/u/cot", 2, 0.0, 50.0, 50.0, looped=50.0,
                                 reading="official")])
    assert "| m/t/zero_shot | 4 | 25 | 50 | 0 | – | careful reading |" in text
    assert "| m/u/cot | 2 | 0 | 50 | 50 | 50 | official reading |" in text


def test_a_finish_reason_not_recorded_is_not_known_never_zero() -> None:
    assert finish_share(["recorded", "recorded"], "length") is None
    assert finish_share(["stop", "length", "recorded"], "length") == 50.0
    text = markdown([CellAnswers("r/t/zero_shot", 2, 0.0, None, 100.0, looped=None)])
    assert "| r/t/zero_shot | 2 | 0 | not known | not known | 100 |" in text


@pytest.mark.slow
def test_only_cells_built_for_the_settings_are_shown(demo, capsys, monkeypatch) -> None:
    """The demo's SmolLM2 cells are shown under the demo's settings; under another batch size
    (another generation identity) the same folder's files are of other settings: not shown."""
    from clineval.cli import main

    monkeypatch.chdir(demo)
    conf = ["--conf", str(Path(__file__).parents[2] / "conf"), "--model", "smollm2_135m"]
    assert main(["answers", *conf]) == 0
    shown = capsys.readouterr().out
    assert "| smollm2_135m/medcalc/zero_shot |" in shown and "not scored yet" not in shown
    assert main(["answers", *conf, "models.smollm2_135m.engine.batch_size=4"]) == 0
    shown = capsys.readouterr().out
    assert "| smollm2_135m/" not in shown
    assert "cell(s) not scored yet" in shown
