"""MedDisK tables (Table 4, Table 5 over rows, per-aspect scores), calibration and
`clineval score meddisk`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from meddisk_records import ASPECTS, demo, task
from scipy import stats

from clineval.benchmarks.meddisk import baselines, calibrate, scoring, tables
from clineval.benchmarks.meddisk.benchmark import BENCHMARK
from clineval.cli import main
from clineval.report.examples import keys
from clineval.tables.render import link, to_csv, to_latex, to_markdown

TASKS = {"meddisk_zh": {"display_name": "MedDisK (zh)", "data": {"source": "demo",
                                                                 "aspects": ASPECTS}}}


def _cells(tmp_path, names=("oracle", "constant", "swap")):
    examples, _, _ = demo(tmp_path)
    cells = []
    for name in names:
        answer = baselines.get(name, {"seed": 0}, examples)
        rows, summary = scoring.score(task(), examples,
                                      [{"id": e["id"], "output": answer(e)} for e in examples])
        cells.append({"model": name, "task": "meddisk_zh", "mode": "one_shot", "rows": rows,
                      "summary": summary, "display_name": name.title(), "size": "n/a",
                      "smoke": name == "swap"})
    return cells


def test_table4_sorted_by_score_with_levels(tmp_path):
    cells = _cells(tmp_path)
    spec = {"title": "T4", "layout": "meddisk_table4", "tasks": ["meddisk_zh"],
            "modes": ["one_shot"], "types": {"oracle": "Upper bound"}}
    table = BENCHMARK.table(spec, cells, TASKS)
    rows = table.blocks[0].rows
    assert rows[0] == ["Oracle", "Upper bound", "0.0%", "0.0%", "100.0%", "10.00", "1"]
    assert [r[0] for r in rows] == ["Oracle", "Swap †", "Constant"]
    assert float(rows[1][5]) > float(rows[2][5])
    assert any("not clinically validated" in n for n in table.notes)
    assert any("smoke model (Swap)" in n for n in table.notes)
    assert to_csv(table).splitlines()[0].startswith("task,mode,model,type,n,cw,pc,bc")


def test_table5_welch_over_rows_matches_scipy(tmp_path):
    cells = _cells(tmp_path)
    spec = {"title": "T5", "layout": "meddisk_table5", "tasks": ["meddisk_zh"],
            "modes": ["one_shot"], "rows": True, "metric": "cosine",
            "pairs": [{"medical": "swap", "backbone": "constant"},
                      {"medical": "oracle", "backbone": "swap"}]}
    table = BENCHMARK.table(spec, cells, TASKS)
    assert table.columns == ["Aspect", "Swap † vs Constant", "Oracle vs Swap †"]
    assert [r[0] for r in table.blocks[0].rows][:3] == ["PP", "PA", "OA"]
    swap = {c["model"]: c for c in cells}["swap"]["rows"]
    oracle = {c["model"]: c for c in cells}["oracle"]["rows"]
    a = [r["similarity"]["cosine"] for r in oracle if r["aspect"] == "primary_symptoms"]
    b = [r["similarity"]["cosine"] for r in swap if r["aspect"] == "primary_symptoms"]
    expected = stats.ttest_ind(a, b, equal_var=False)
    record = next(r for r in table.records if r["aspect"] == "primary_symptoms"
                  and r["medical"] == "oracle")
    assert record["t"] == pytest.approx(expected.statistic)
    assert record["p"] == pytest.approx(expected.pvalue)
    shown = dict((r[0], r[2]) for r in table.blocks[0].rows)["PS"]
    assert shown == f"{expected.statistic:.2f}" + ("*" if expected.pvalue < 0.05 else "")
    holm = BENCHMARK.table({**spec, "correction": "holm"}, cells, TASKS)
    p_raw = [r["p"] for r in table.records if r["p"] is not None]
    p_holm = [r["p_adjusted"] for r in holm.records if r["p"] is not None]
    assert all(h >= p for h, p in zip(p_holm, p_raw, strict=True))
    no_rows = [{**c, "rows": None} for c in cells]
    missing = BENCHMARK.table(spec, no_rows, TASKS)
    assert all(v == "–" for row in missing.blocks[0].rows for v in row[1:])
    assert any("rows: true" in n for n in missing.notes)


def test_aspects_table_and_headline(tmp_path):
    cells = _cells(tmp_path, ("oracle", "constant"))
    spec = {"title": "A", "layout": "meddisk_aspects", "tasks": ["meddisk_zh"],
            "modes": ["one_shot"]}
    table = BENCHMARK.table(spec, cells, TASKS)
    assert table.columns[1:4] == ["PP", "PA", "OA"] and table.columns[-1] == "Macro"
    oracle = next(r for r in table.blocks[0].rows if r[0] == "Oracle")
    assert set(oracle[1:]) == {"10.00"}
    constant = next(r for r in table.blocks[0].rows if r[0] == "Constant")
    assert constant[3] == "10.00"  # onset ages: "none" in every demo test disease
    assert "| Oracle |" in to_markdown(table)
    headline = BENCHMARK.headline(cells[0]["summary"])
    assert headline["score"] == 10.0 and headline["share.bc"] == 1.0
    with pytest.raises(ValueError, match="layout"):
        tables.build_table({**spec, "layout": "x"}, cells, TASKS)


def test_calibrate_recovers_thresholds_and_reports_spearman(tmp_path, capsys):
    rows = []
    for i in range(60):
        s = i / 59
        label = 0 if s < 0.4 else 1 if s < 0.7 else 2
        for kind in ("enumerated", "declarative"):
            rows.append({"type": kind, "label": label, "bleu_1": s, "rouge_1": s,
                         "cosine": min(1.0, s + 0.1)})
    result = calibrate.calibrate_rows(rows, 0.05)
    assert result["thresholds"]["bleu_1"]["enumerated"] == [0.4, 0.7]
    assert result["thresholds"]["cosine"]["declarative"] == [0.5, 0.8]
    assert result["accuracy"]["rouge_1"]["declarative"] == 1.0
    assert result["spearman"]["average"]["rho"] == pytest.approx(1.0)
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    parser = argparse.ArgumentParser()
    calibrate.add_calibrate_arguments(parser)
    out = tmp_path / "fit.json"
    assert calibrate.calibrate(parser.parse_args(["--labels", str(labels), "--out",
                                                  str(out)])) == 0
    assert json.loads(out.read_text())["thresholds"] == result["thresholds"]
    capsys.readouterr()
    assert main(["meddisk", "calibrate", "--labels", str(labels), "--json"]) == 0  # the CLI
    assert json.loads(capsys.readouterr().out)["thresholds"] == result["thresholds"]
    labels.write_text(json.dumps({**rows[0], "label": 3}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="row 1, field 'label'"):
        calibrate.read_labels(labels)


def test_score_cli_json(tmp_path, capsys):
    _, _, kb = demo(tmp_path)
    predictions = tmp_path / "pred.jsonl"
    lines = [
        {"disease": "D006", "aspect": "primary_symptoms",
         "output": "2型糖尿病的常见症状包括多饮；多尿；体重下降。"},
        {"disease": "社区获得性肺炎", "aspect": "severity_level", "output": "严重程度为3级"},
        {"disease": "D008", "aspect": "onset_ages", "output": "无"},
    ]
    predictions.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines),
                           encoding="utf-8")
    parser = argparse.ArgumentParser()
    BENCHMARK.add_score_arguments(parser)
    args = parser.parse_args(["--kb", str(kb), "--predictions", str(predictions), "--json"])
    assert BENCHMARK.score_external(args) == 0
    out = json.loads(capsys.readouterr().out)
    rows = {r["id"]: r for r in out["rows"]}
    assert rows["D006/primary_symptoms"]["tier"] == {"bleu_1": 2, "rouge_1": 2, "cosine": 2}
    assert rows["D007/severity_level"]["similarity"]["cosine"] == 0.0  # 3 vs the KB's 2
    assert rows["D008/onset_ages"]["points"] == 10.0  # both none
    assert out["summary"]["score"] == pytest.approx(20 / 3)
    assert set(out["summary"]["aspects"]) == {"primary_symptoms", "severity_level", "onset_ages"}
    predictions.write_text(json.dumps({"disease": "D999", "aspect": "medications",
                                       "output": "x"}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="row 1, field 'disease'"):
        BENCHMARK.score_external(args)


def test_score_cli_gazetteer_knows_the_whole_kb(tmp_path, capsys):
    _, _, kb = demo(tmp_path, "en")
    predictions = tmp_path / "pred.jsonl"
    predictions.write_text(json.dumps({
        "disease": "D006", "aspect": "primary_symptoms",
        "output": "Well, I think fever, cough and polyuria."}) + "\n", encoding="utf-8")
    parser = argparse.ArgumentParser()
    BENCHMARK.add_score_arguments(parser)
    args = parser.parse_args(["--kb", str(kb), "--predictions", str(predictions), "--json",
                              "--task", "meddisk_en",
                              "tasks.meddisk_en.scoring.extractor=gazetteer"])
    assert BENCHMARK.score_external(args) == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    # fever and cough are D007's symptoms: known to the gazetteer from the whole KB
    assert row["prediction"] == "fever cough polyuria"


def test_tiers_table_averages_to_table4(tmp_path):
    cells = _cells(tmp_path)
    spec = {"title": "F4", "layout": "meddisk_tiers", "tasks": ["meddisk_zh"],
            "modes": ["one_shot"]}
    table = BENCHMARK.table(spec, cells, TASKS)
    assert table.columns[1:4] == ["CW", "PC", "BC"]
    assert table.groups == [("", 1), ("BLEU-1", 3), ("ROUGE-1", 3), ("Cosine", 3)]
    assert "\\multicolumn{3}{c}{BLEU-1}" in to_latex(table)
    for cell in cells:
        mine = [r for r in table.records if r["model"] == cell["model"]]
        assert len(mine) == 3
        for tier in ("cw", "pc", "bc"):
            mean = sum(r[tier] for r in mine) / 3
            assert mean == pytest.approx(cell["summary"]["shares"][tier])


def test_scoring_inputs_name_the_encoder_setting():
    from clineval.errors import ConfigError

    files = BENCHMARK.scoring_inputs(task(), "meddisk_zh", Path("data"))
    assert set(files) == {"encoder:weights.npz", "encoder:sp.model"}
    with pytest.raises(ConfigError, match=r"tasks\.meddisk_zh\.scoring\.encoder"):
        BENCHMARK.scoring_inputs(task(encoder="/nowhere/m3e-base"), "meddisk_zh",
                                  Path("data"))


def explorer_mean(source: dict, rows: list[dict]) -> tuple[float, int]:
    """What the explorer states for a value's link (report/explorer.js, meanText): the mean of
    the judgements' measure ``of`` over the examples of its part (``by``: the mean of each
    group's mean), and the n it counts."""
    groups: dict[str, list[float]] = {}
    n = 0
    for row in rows:
        if any(keys(row).get(k) != v for k, v in (source.get("where") or {}).items()):
            continue
        measures = BENCHMARK.reading(row, {}).judgements[0].measures
        if source["of"] in measures:
            groups.setdefault(keys(row).get(source["by"], "") if "by" in source else "",
                              []).append(measures[source["of"]])
            n += 1
    return sum(sum(v) / len(v) for v in groups.values()) / len(groups), n


def test_each_value_opens_its_aspect_and_the_explorer_recomputes_it(tmp_path):
    """Every value of Tables 4, the aspects and the tiers links to its examples (an aspect's,
    or the cell's) with the mean the explorer states, which gives the value shown; Table 5's
    t links both models' examples of its aspect and says what it is; the leaderboard's
    headline links carry the same arithmetic."""
    cells = [{**c, "cell": f"{c['model']}/meddisk_zh/one_shot"} for c in _cells(tmp_path)]
    rows_of = {c["cell"]: c["rows"] for c in cells}
    checked = 0
    for layout in ("meddisk_table4", "meddisk_aspects", "meddisk_tiers"):
        spec = {"title": "T", "layout": layout, "tasks": ["meddisk_zh"], "modes": ["one_shot"]}
        table = BENCHMARK.table(spec, cells, TASKS)
        block = table.blocks[0]
        for row, sources in zip(block.rows, block.sources, strict=True):
            for header, text, found in zip(table.columns, row, sources, strict=True):
                if not found or "measure" not in found[0]:
                    continue
                (source,) = found
                computed, n = explorer_mean(source, rows_of[source["cell"]])
                scale = 100 if text.endswith("%") else 1
                assert f"{scale * computed:.{len(text.rstrip('%').split('.')[1])}f}" == \
                    text.rstrip("%"), (layout, row[0], header)
                assert n == source["n"]
                checked += 1
    # three models: Table 4's three shares and score, 18 aspects and the macro, 9 tier shares
    assert checked == 3 * (4 + 19 + 9)
    aspects = BENCHMARK.table({"title": "A", "layout": "meddisk_aspects", "tasks": ["meddisk_zh"],
                               "modes": ["one_shot"]}, cells, TASKS)
    assert aspects.blocks[0].sources[0][1][0]["where"] == {"aspect": "patient_population"}
    assert aspects.blocks[0].sources[0][-1][0]["by"] == "aspect"  # Macro: a mean of means
    spec = {"title": "T5", "layout": "meddisk_table5", "tasks": ["meddisk_zh"],
            "modes": ["one_shot"], "rows": True, "metric": "cosine",
            "pairs": [{"medical": "oracle", "backbone": "swap"}]}
    table5 = BENCHMARK.table(spec, cells, TASKS)
    first, second = table5.blocks[0].sources[0][1]
    assert first["where"] == second["where"] == {"aspect": "patient_population"}
    assert (first["cell"], second["cell"]) == ("oracle/meddisk_zh/one_shot",
                                               "swap/meddisk_zh/one_shot")
    record = table5.records[0]
    assert first["statistic"].startswith("Welch's t-test (two-sided) of the per-disease "
                                         "embedding cosine in aspect PP: Oracle (n = ")
    assert f"mean {record['mean_b']:.4g}" in first["statistic"] and "statistic" not in second
    assert explorer_mean(first, rows_of[first["cell"]])[0] == pytest.approx(record["mean_a"])
    summary = cells[2]["summary"]
    for key, value in BENCHMARK.headline(summary).items():
        (part,) = link(cells[2], **BENCHMARK.headline_source(key, summary))
        assert explorer_mean(part, cells[2]["rows"])[0] == pytest.approx(value), key
