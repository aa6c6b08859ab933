"""MedCalc-Bench on the workflow: loader errors, prompts, scoring, tables, the score CLI."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import yaml

from clineval.benchmarks.base.prompts import fill
from clineval.benchmarks.medcalc import synthetic
from clineval.benchmarks.medcalc.baselines import constant, oracle
from clineval.benchmarks.medcalc.loader import COLUMNS, read_test_csv
from clineval.benchmarks.medcalc.prompts import build_requests
from clineval.benchmarks.medcalc.scoring import score_row, summarize
from clineval.benchmarks.medcalc.tables import build_table
from clineval.cli import main
from clineval.io import DataError
from clineval.tables.render import to_latex, to_markdown

CONF = Path(__file__).resolve().parents[2] / "conf"
TEMPLATES = yaml.safe_load((CONF / "templates" / "medcalc.yaml").read_text())
MODES = {m: yaml.safe_load((CONF / "mode" / f"{m}.yaml").read_text())
         for m in ("zero_shot", "cot", "one_shot")}


@pytest.fixture(scope="module")
def demo_csv(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("medcalc") / "test_data.csv"
    synthetic.write_csv(synthetic.generate_rows([6, 4, 13, 69], 2, seed=3), path)
    return path


def _write(path: Path, rows: list[dict[str, str]], columns=COLUMNS) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(columns), extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_loader_reads_the_official_columns(demo_csv):
    examples = read_test_csv(demo_csv)
    assert [e["id"] for e in examples] == [str(i) for i in range(1, 9)]
    assert {e["calculator_id"] for e in examples} == {4, 6, 13, 69}


def test_loader_names_file_row_and_field(demo_csv, tmp_path):
    rows = list(csv.DictReader(demo_csv.open(newline="", encoding="utf-8")))
    bad = dict(rows[1], **{"Relevant Entities": "{'age': [30, 'years'"})
    path = _write(tmp_path / "bad.csv", [rows[0], bad])
    with pytest.raises(DataError, match=r"bad\.csv, row 3, field 'Relevant Entities'"):
        read_test_csv(path)
    path = _write(tmp_path / "cols.csv", rows, [c for c in COLUMNS if c != "Question"])
    with pytest.raises(DataError, match=r"field 'Question': missing column"):
        read_test_csv(path)
    path = _write(tmp_path / "dup.csv", [rows[0], rows[0]])
    with pytest.raises(DataError, match=r"row 3, field 'Row Number': duplicate"):
        read_test_csv(path)
    path = _write(tmp_path / "cat.csv", [dict(rows[0], Category="misc")])
    with pytest.raises(DataError, match=r"row 2, field 'Category'"):
        read_test_csv(path)


def test_fill_leaves_other_braces_alone():
    assert fill('{"answer": {x}} {note}', {"note": "N {y}"}) == '{"answer": {x}} N {y}'


def test_modes_render_as_the_paper_structures_them(demo_csv):
    examples = read_test_csv(demo_csv)
    raw = synthetic.generate_exemplars([4, 6, 13, 69], seed=1000)
    exemplars = [{"id": f"project-{k}", "calculator_id": k, "note": v["Patient Note"],
                  "thinking": v["Response"]["step_by_step_thinking"],
                  "answer": v["Response"]["answer"]} for k, v in raw.items()]
    task = {"exemplars": {"count": 1}}
    direct = build_requests(task, MODES["zero_shot"], TEMPLATES, examples, exemplars)
    cot = build_requests(task, MODES["cot"], TEMPLATES, examples, exemplars)
    one = build_requests(task, MODES["one_shot"], TEMPLATES, examples, exemplars)
    first = examples[0]
    assert [m["role"] for m in direct[0]["messages"]] == ["system", "user"]
    assert '{"answer": str(' in direct[0]["messages"][0]["content"]
    assert "step_by_step_thinking" not in direct[0]["messages"][1]["content"]
    assert "step_by_step_thinking" in cot[0]["messages"][1]["content"]
    assert first["note"] in direct[0]["messages"][1]["content"]
    assert direct[0]["exemplar_ids"] == cot[0]["exemplar_ids"] == []
    assert one[0]["exemplar_ids"] == [f"project-{first['calculator_id']}"]
    assert raw[first["calculator_id"]]["Patient Note"] in one[0]["messages"][0]["content"]
    assert first["note"] not in one[0]["messages"][0]["content"]
    assert len({r["request_sha"] for r in one}) == len(one)


def test_one_shot_without_an_exemplar_says_what_to_configure(demo_csv):
    with pytest.raises(ValueError, match=r"no one-shot exemplar for calculator id\(s\) \[4, 6"):
        build_requests({}, MODES["one_shot"], TEMPLATES, read_test_csv(demo_csv), [])


def test_baselines_bound_the_demo(demo_csv):
    examples = read_test_csv(demo_csv)
    answers = {"decimal": "0", "integer": "0", "date": "01/01/2000", "weeks_days": "(0, 0)"}
    for name, fn, expected in (("oracle", oracle(), 1.0), ("constant", constant(answers), None)):
        rows = [score_row(e, fn(e), ("official", "robust")) for e in examples]
        summary = summarize(rows, ("official", "robust"))
        if expected is not None:
            assert summary["official"]["overall"]["accuracy"] == expected, name
            assert summary["robust"]["overall"]["accuracy"] == expected, name
        else:
            assert summary["official"]["overall"]["correct"] <= 2


def test_summary_counts_and_binomial_error(demo_csv):
    examples = read_test_csv(demo_csv)
    rows = [score_row(e, oracle()(e) if i % 2 else "no idea", ("official",))
            for i, e in enumerate(examples)]
    overall = summarize(rows, ("official",))["official"]["overall"]
    assert (overall["n"], overall["correct"]) == (8, 4)
    assert overall["se"] == pytest.approx((0.5 * 0.5 / 8) ** 0.5)
    statuses = summarize(rows, ("official",))["official"]["status_counts"]
    assert sum(statuses.values()) == 8


def _cell(model, mode, correct, n=4, smoke=False):
    stats = {"n": n, "correct": correct, "accuracy": correct / n,
             "se": (correct / n * (1 - correct / n) / n) ** 0.5}
    empty = {"n": 0, "correct": 0, "accuracy": float("nan"), "se": float("nan")}
    per = {c: empty for c in ("lab", "physical", "date", "dosage", "risk", "severity", "diagnosis")}
    per["lab"] = stats
    summary = {"official": {"overall": stats, "per_category": per}}
    return {"model": model, "mode": mode, "display_name": model.title(), "size": "7B",
            "smoke": smoke, "summary": summary}


def test_table_layout_and_formats():
    spec = {"title": "T", "modes": ["zero_shot", "cot"], "extractions": ["official"],
            "decimals": 2, "std_error": {"show": True, "scale": "fraction", "decimals": 2}}
    table = build_table(spec, [_cell("a", "zero_shot", 1), _cell("b", "cot", 4, smoke=True)])
    md = to_markdown(table)
    assert "| **Zero-shot Direct Prompting** |" in md and "| **Zero-shot CoT Prompting** |" in md
    assert "| A | 7B | official | 25.00 ± 0.22 | – |" in md
    assert "| B † | 7B | official | 100.00 ± 0.00 |" in md
    assert "smoke model (B)" in md
    tex = to_latex(table)
    assert "25.00 $\\pm$ 0.22" in tex and "\\multicolumn{11}{l}{\\textit{Zero-shot CoT" in tex
    assert to_markdown(build_table(spec, [_cell("a", "zero_shot", 1)])) == to_markdown(
        build_table(spec, [_cell("a", "zero_shot", 1)]))
    pp = build_table({**spec, "std_error": {"scale": "points", "decimals": 1}},
                     [_cell("a", "zero_shot", 1)])
    assert "25.00 ± 21.7" in to_markdown(pp)


def test_table_shows_bootstrap_intervals_beside_or_instead_of_the_standard_error():
    from clineval.tables.statistics import layout_spec

    spec = {"title": "T", "modes": ["zero_shot"], "extractions": ["official"], "decimals": 2,
            "std_error": {"show": True, "scale": "fraction", "decimals": 2}}
    cell = {**_cell("a", "zero_shot", 1),
            "intervals": {"accuracy.official": {"value": 0.25, "low": 0.0, "high": 0.75}}}
    both = to_markdown(build_table(layout_spec(spec, "both", 0.95), [cell]))
    # the average column (the headline) carries its interval; a category column does not
    row = ("| A | 7B | official | 25.00 ± 0.22 | – | – | – | – | – | – "
           "| 25.00 ± 0.22 [0.00, 75.00] |")
    assert row in both
    assert "Avg. [low, high]: its 95% percentile bootstrap interval" in both
    ci = to_markdown(build_table(layout_spec(spec, "ci", 0.9), [cell]))
    assert "| 25.00 [0.00, 75.00] |" in ci and "±" not in ci and "its 90% percentile" in ci
    se = to_markdown(build_table(layout_spec(spec, "se", 0.95), [cell]))
    assert "[0.00, 75.00]" not in se and "25.00 ± 0.22 |" in se
    assert to_markdown(build_table(layout_spec(spec, "none", 0.95), [cell])).count("25.00 |") == 2


def _predictions(path: Path, outputs: list[tuple[int, str]]) -> Path:
    path.write_text("".join(json.dumps({"row_number": n, "output": o}) + "\n" for n, o in outputs))
    return path


def test_score_cli_json_in_input_order(demo_csv, tmp_path, capsys):
    examples = {e["row_number"]: e for e in read_test_csv(demo_csv)}
    answer = oracle()
    outputs = [(3, answer(examples[3])), (1, '{"answer": "nonsense"}'), (8, answer(examples[8]))]
    preds = _predictions(tmp_path / "p.jsonl", outputs)
    for setting in ("official", "robust"):
        assert main(["score", "medcalc", "--data", str(demo_csv), "--predictions", str(preds),
                     "--extraction", setting, "--json"]) == 0
        result = json.loads(capsys.readouterr().out)
        assert [r["row_number"] for r in result["rows"]] == [3, 1, 8]
        assert [r["correct"] for r in result["rows"]] == [1, 0, 1]
        assert result["rows"][1]["extracted"] is None
        assert result["summary"][setting]["overall"]["correct"] == 2


def test_score_cli_text_and_errors(demo_csv, tmp_path, capsys):
    preds = _predictions(tmp_path / "p.jsonl", [(2, "12")])
    assert main(["score", "medcalc", "--data", str(demo_csv), "--predictions", str(preds)]) == 0
    out = capsys.readouterr().out
    assert "official: 0/1 correct" in out and "robust:" in out
    bad = _predictions(tmp_path / "bad.jsonl", [(2, "12"), (99, "1")])
    assert main(["score", "medcalc", "--data", str(demo_csv), "--predictions", str(bad)]) == 2
    assert "bad.jsonl, row 2, field 'row_number'" in capsys.readouterr().err
