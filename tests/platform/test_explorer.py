"""The per-example explorer without a browser: each benchmark's reading of its score rows, a
cell's and a pair's page data, the pages themselves, the table values' cells and the plan's
pages, pairs and prompt setting (docs/report.md, Examples, one by one)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from explorer_cells import explorer

from clineval.benchmarks import get_benchmark
from clineval.benchmarks.base.reading import Judgement
from clineval.benchmarks.medcalc.tables import build_table
from clineval.io import DataError, write_jsonl
from clineval.metrics.paired import mcnemar_exact
from clineval.report.examples import CellFiles, cell_document, keys, pair_document, read_cell
from clineval.report.markdown import parse_table
from clineval.report.page import render_page, source_href, source_words
from clineval.tables.render import link, to_markdown, to_sources
from clineval.workflow.plan.build import build_plan
from clineval.workflow.plan.jobs import examples as examples_step
from clineval.workflow.plan.layout import Cell, Plan

REPO = Path(__file__).resolve().parents[2]


def verdicts(benchmark: str, row: dict, example: dict | None = None) -> list[tuple[str, str]]:
    reading = get_benchmark(benchmark).reading(row, example or {})
    return [(j.name, j.verdict) for j in reading.judgements]


def test_medcalc_shows_both_readings_and_the_gold_with_its_limits() -> None:
    row = {"id": "1", "calculator_id": 2, "category": "lab", "ground_truth": "133.041",
           "official": {"extracted": None, "status": "not_found", "detail": "no answer field",
                        "correct": 0},
           "robust": {"extracted": "133", "status": "ok", "detail": "", "correct": 1}}
    reading = get_benchmark("medcalc").reading(row, {"lower": "126.39", "upper": "139.69",
                                                     "calculator_name": "Creatinine"})
    assert reading.gold == "133.041 (accepted 126.39 to 139.69)"
    official, robust = reading.judgements
    assert (official.name, official.verdict, official.rule) == (
        "official", "unanswered", "not_found: no answer field")
    assert (robust.verdict, robust.read, robust.score) == ("right", "133", "1")
    assert ("calculator", "2 Creatinine") in reading.details


def test_each_benchmark_reads_its_rows() -> None:
    clue = {"id": "x", "dataset": "mednli", "status": "no_label", "prediction": None,
            "reference": "neutral", "metrics": {"accuracy": 0.0}}
    assert verdicts("clue", clue) == [("reading", "unanswered")]
    literal = {**clue, "dataset": "longhealth_task1", "status": "text_mismatch",
               "literal": {"status": "phrase", "prediction": "A",
                           "metrics": {"accuracy": 100.0}}}
    assert verdicts("clue", literal) == [("reading", "unanswered"), ("literal", "right")]
    summary = {"id": "s", "dataset": "meqsum", "status": "whole_output", "reference": "Q?",
               "metrics": {"rouge_1": 12.5}}
    reading = get_benchmark("clue").reading(summary, {})
    assert reading.judgements[0].verdict == "scored" and "rouge_1 12.5" in reading.judgements[
        0].score
    items = [{"text": "pneumonia", "codes": ["J18.9"], "how": "embedding",
              "similarity": 0.8123, "invalid": []}]
    clibench = {"id": "h", "codes": ["J18.9"], "gold": ["J18.9", "I10"],
                "counts": [[1, 1, 2]] * 5, "items": items}
    reading = get_benchmark("clibench").reading(clibench, {"task": "diagnoses"})
    judged = reading.judgements[0]
    assert judged.verdict == "scored" and judged.score.startswith("F1 Chapter 66.67")
    assert judged.details == (("item", "pneumonia → J18.9 (embedding, similarity 0.812)"),)
    assert verdicts("clibench", {**clibench, "codes": []}, {"task": "labs"})[0][1] == "unanswered"
    meddisk = {"id": "D1/a", "aspect": "a", "type": "declarative", "status": "pattern",
               "prediction": "x", "reference": "x", "points": 10.0,
               "similarity": {"bleu_1": 1.0, "cosine": 1.0, "rouge_1": 1.0},
               "tier": {"bleu_1": 2, "cosine": 2, "rouge_1": 2}}
    assert verdicts("meddisk", meddisk) == [("reading", "right")]
    partial = {**meddisk, "points": 5.0, "tier": {"bleu_1": 1, "cosine": 1, "rouge_1": 1}}
    assert verdicts("meddisk", partial) == [("reading", "scored")]
    assert verdicts("meddisk", {**partial, "unanswered": "empty"})[0][1] == "unanswered"
    codes = {"id": "r", "task": "codes", "qualified": True, "conflicts": [],
             "prediction": {"A": "positive", "B": "negative"},
             "reference": {"A": "positive", "B": "positive"}}
    reading = get_benchmark("medeval").reading(codes, {})
    assert reading.judgements[0].verdict == "scored" and reading.gold == "A positive, B positive"
    sentence = {"id": "s", "task": "abnormality", "qualified": False, "correct": False,
                "prediction": None, "reference": "normal"}
    assert verdicts("medeval", sentence) == [("reading", "unanswered")]
    assert get_benchmark("medeval").reading(sentence, {}).judgements[0].rule == (
        "unqualified: off format")
    summary = {"id": "m", "task": "summarization", "qualified": False, "prediction": "",
               "unqualified": "the report repeated", "reference": "No acute findings.",
               "rouge": {"rouge_l": 0.0}, "literal": {"prediction": "Heart normal.",
                                                      "rouge": {"rouge_l": 12.0}}}
    careful, literally = get_benchmark("medeval").reading(summary, {}).judgements
    assert (careful.verdict, careful.rule) == ("unanswered", "unqualified: the report repeated")
    assert (literally.verdict, literally.rule, literally.read) == (
        "scored", "qualified", "Heart normal.")
    assert verdicts("medeval", {**summary, "qualified": True, "literal": None}) == [
        ("reading", "scored")]
    mcqa = {"id": "q", "gold": "B", "predicted": "C", "answered": True, "correct": False}
    assert verdicts("mcqa", mcqa) == [("reading", "wrong")]
    with pytest.raises(ValueError, match="verdict"):
        Judgement("reading", "maybe", "")


def write_cell(root: Path, outputs: dict[str, tuple[str, str]], correct: dict[str, int],
               copied: set[str] = frozenset()) -> CellFiles:
    """A MedCalc-Bench cell of a few examples: ``outputs`` (id -> output, finish reason)."""
    files = CellFiles(root / "examples.jsonl", root / "requests.jsonl",
                      root / "generations.jsonl", root / "rows.jsonl")
    write_jsonl(files.examples, [{"id": i, "ground_truth": "5", "lower": "5", "upper": "5"}
                                 for i in outputs])
    write_jsonl(files.requests, [{"id": i, "messages": [
        {"role": "system", "content": "Answer in JSON."},
        {"role": "user", "content": f"Note {i} </script><b>x</b>"}]} for i in outputs])
    write_jsonl(files.generations, [{"id": i, "output": o, "finish_reason": f}
                                    for i, (o, f) in outputs.items()])
    write_jsonl(files.rows, [{
        "id": i, "ground_truth": "5", "copied": {"kind": "input", "share": 1.0} if i in copied
        else None,
        **{s: {"extracted": "5" if c else "4", "status": "ok", "detail": "", "correct": c}
           for s in ("official", "robust")}} for i, c in correct.items()])
    return files


TASK = {"scoring": {"extractions": ["official", "robust"]}}


def test_a_cells_document_tags_verdicts_cuts_and_copies_and_shares_prompt_texts(
        tmp_path: Path) -> None:
    files = write_cell(tmp_path, {"1": ("5", "stop"), "2": ('{"answer": "4', "length"),
                                  "3": ("4", "loop")}, {"1": 1, "2": 0, "3": 0}, {"3"})
    document = cell_document(read_cell("m/medcalc/zero_shot", "medcalc", TASK, files, True),
                             True)
    assert document["views"] == ["official", "robust"]
    assert [e["tags"]["official"] for e in document["examples"]] == [
        ["right"], ["wrong", "cut"], ["wrong", "loop", "copied"]]
    assert document["counts"]["robust"] == {"right": 1, "wrong": 2, "unanswered": 0,
                                            "scored": 0, "cut": 1, "loop": 1, "copied": 1}
    assert document["texts"][0] == "Answer in JSON." and len(document["texts"]) == 4
    assert [e["sides"][0]["prompt"][0] for e in document["examples"]] == [["system", 0]] * 3
    hidden = cell_document(read_cell("m/medcalc/zero_shot", "medcalc", TASK, files, False),
                           False)
    assert hidden["texts"] == [] and all("prompt" not in e["sides"][0]
                                         for e in hidden["examples"])


def test_recorded_outputs_show_their_finish_and_its_flags_as_not_known(tmp_path: Path) -> None:
    files = write_cell(tmp_path, {"1": ("5", "recorded"), "2": ("4", "recorded")},
                       {"1": 1, "2": 0})
    document = cell_document(read_cell("r/medcalc/zero_shot", "medcalc", TASK, files, False),
                             False)
    assert [e["sides"][0]["finish"] for e in document["examples"]] == ["not known"] * 2
    assert document["counts"]["official"] == {"right": 1, "wrong": 1, "unanswered": 0,
                                              "scored": 0, "cut": "not known",
                                              "loop": "not known", "copied": 0}


def test_a_row_without_its_generation_names_the_file(tmp_path: Path) -> None:
    files = write_cell(tmp_path, {"1": ("5", "stop")}, {"1": 1, "2": 0})
    write_jsonl(files.examples, [{"id": i, "ground_truth": "5"} for i in ("1", "2")])
    with pytest.raises(DataError, match=r"generations\.jsonl.*no record for scored example"):
        read_cell("m/medcalc/zero_shot", "medcalc", TASK, files, True)


def test_a_pair_lists_mcnemars_discordant_examples(tmp_path: Path) -> None:
    outputs = {str(i): ("5", "stop") for i in range(6)}
    a = {"0": 1, "1": 1, "2": 0, "3": 1, "4": 0, "5": 1}
    b = {"0": 1, "1": 0, "2": 1, "3": 0, "4": 0, "5": 1}
    cells = [read_cell(f"{m}/medcalc/zero_shot", "medcalc", TASK,
                       write_cell(tmp_path / m, outputs, found), True)
             for m, found in (("a", a), ("b", b))]
    document = pair_document(*cells, True)
    assert [e["id"] for e in document["examples"]] == ["1", "2", "3"]
    assert [e["tags"]["accuracy.official"] for e in document["examples"]] == [
        ["a right"], ["b right"], ["a right"]]
    test = document["tests"]["accuracy.official"]
    assert (test["n"], test["only_a"], test["only_b"]) == (6, 2, 1)
    assert test["p"] == mcnemar_exact(list(a.values()), list(b.values()))
    assert [len(e["sides"]) for e in document["examples"]] == [2, 2, 2]


def test_pages_are_self_contained_escaped_and_reproducible(tmp_path: Path) -> None:
    pages = explorer(tmp_path / "one", n=12)
    again = explorer(tmp_path / "two", n=12)
    for name, page in pages.items():
        html = page.read_text(encoding="utf-8")
        assert html == again[name].read_text(encoding="utf-8"), name
        assert not re.search(r'(src|href)="(https?:|//)', html) and "http" not in html
        # data, config, the script; a cell's page also its grading panel
        assert html.count("<script") == {"index": 0, "pair": 3}.get(name, 4)
    cell = pages["a"].read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>',
                                cell, re.S).group(1))
    assert len(data["examples"]) == 36 and data["views"] == ["official", "robust"]
    assert data["grading"]["model"] == "a" and len(data["grading"]["scoring"]) == 64
    assert all(len(e["output_sha256"]) == 64 for e in data["examples"])
    assert "</script" not in cell.split('id="data">')[1].split("</script>")[0]
    index = pages["index"].read_text(encoding="utf-8")
    assert 'href="a/medcalc/all.html"' in index and 'href="../pairs/a/b/medcalc/all.html"' in index


def test_table_values_name_their_cells_and_the_report_links_them() -> None:
    summary = {"official": {"per_category": {k: {"n": 2, "correct": 1, "accuracy": 0.5, "se": 0.1}
                                             for k in ("lab", "physical", "date", "dosage",
                                                       "risk", "severity", "diagnosis")},
                            "overall": {"n": 14, "correct": 7, "accuracy": 0.5, "se": 0.1}}}
    cells = [{"cell": f"{m}/medcalc/zero_shot", "model": m, "mode": "zero_shot",
              "display_name": m.upper(), "size": "1B", "smoke": False, "summary": summary}
             for m in ("a", "b")]
    table = build_table({"title": "T", "modes": ["zero_shot"]}, cells)
    sources = json.loads(to_sources(table))["rows"]
    # each value: its reading and category, with its n and right ones
    assert sources[1][3] == [{"cell": "b/medcalc/zero_shot", "view": "official",
                              "where": {"category": "lab"}, "n": 2, "right": 1}]
    assert sources[1][-1] == [{"cell": "b/medcalc/zero_shot", "view": "official", "n": 14,
                               "right": 7}]
    assert sources[1][:3] == [[], [], []] and all(len(s) == 1 for s in sources[1][3:])
    parsed = parse_table(to_markdown(table), Path("t.md"))
    sources[0][-1] = ["a/medcalc/zero_shot", "b/medcalc/zero_shot"]  # a value of two cells
    ident = {"grid": "g", "smoke_models": [], "figures": {},
             "examples": {"prompts": "auto", "credentialed": True},
             "tables": [{"table": "t", "section": "medcalc", "title": "T", "caption": "C",
                         "identity": "0" * 64,
                         "pairs": [["a/medcalc/zero_shot", "b/medcalc/zero_shot"]]}]}
    html = render_page(ident, {"t": parsed}, [], {"version": "0", "commit": None,
                                                  "identity": "0" * 64}, {"t": sources})
    assert html.count('href="examples/b/medcalc/zero_shot.html#view=official') == 8
    assert ('<a href="examples/b/medcalc/zero_shot.html#view=official&amp;category=lab'
            '&amp;measure=share" '
            'title="b/medcalc/zero_shot, reading official, category lab, right 1 of n = 2 '
            'examples">') in html
    assert html.count('href="examples/b/medcalc/zero_shot.html"') == 1  # the list's
    assert '<a href="#cells-t-0-10" title="2 sources of 2 cells' in html
    assert '<li id="cells-t-0-10" data-value="50.00 ± 0.10">' in html
    assert 'href="pairs/a/b/medcalc/zero_shot.html"' in html
    assert 'href="examples/index.html"' in html and "may not be shared" in html


def test_a_link_carries_its_level_or_aspect_and_the_arithmetic_it_asks_for() -> None:
    """CliBench's levels and subgroups and MedDisK's aspects travel in the address with the
    arithmetic the page states; a statistic the page cannot recompute is said in the list."""
    level = link({"cell": "m/clibench_diagnoses/zero_shot"}, where={"chapter": "11"}, n=6,
                 measure="f1", level=["chapter", "block"])[0]
    assert source_href(level) == ("examples/m/clibench_diagnoses/zero_shot.html#chapter=11"
                                  "&measure=f1&level=chapter%2Cblock")
    assert source_words(level).endswith(
        "chapter 11, n = 6 examples, mean of F1 pooled at each of the levels chapter, block")
    aspect = link({"cell": "m/meddisk_zh/one_shot"}, where={"aspect": "onset_ages"}, n=3,
                  measure="mean", of="points")[0]
    assert source_href(aspect) == ("examples/m/meddisk_zh/one_shot.html#aspect=onset_ages"
                                   "&measure=mean&of=points")
    macro = link({"cell": "m/meddisk_zh/one_shot"}, measure="mean", of="points", by="aspect")[0]
    assert source_href(macro).endswith("#measure=mean&of=points&by=aspect")
    # the parts an example belongs to: its row's fields and subgroups (never the page's state)
    assert keys({"aspect": "onset_ages", "groups": {"chapter": "11", "page": "2", "race": ""}}
                ) == {"aspect": "onset_ages", "chapter": "11"}
    assert "measures" not in Judgement("reading", "right", "1").as_dict()
    assert Judgement("reading", "scored", "5 points", measures={"points": 5.0}).as_dict()[
        "measures"] == {"points": 5.0}
    markdown = "\n".join(["## T", "", "| Aspect | A vs B |", "|:---|---:|", "| PP | -1.20 |", ""])
    said = {**aspect, "statistic": "Welch's t-test of the per-disease cosine: t = -1.2"}
    sources = [[[], [said, {**aspect, "cell": "b/meddisk_zh/one_shot"}]]]
    ident = {"grid": "g", "smoke_models": [], "figures": {}, "examples": None,
             "tables": [{"table": "t", "section": "meddisk", "title": "T", "caption": "C",
                         "identity": "0" * 64}]}
    html = render_page(ident, {"t": parse_table(markdown, Path("t.md"))}, [],
                       {"version": "0", "commit": None, "identity": "0" * 64}, {"t": sources})
    item = re.search(r'<li id="cells-t-0-1".*?</li>', html, re.S).group(0)
    assert "Welch&#x27;s t-test of the per-disease cosine: t = -1.2" in item
    assert item.count('href="examples/') == 2 and "(mean of points)" in item
    assert "mean of the" not in item  # a t is no mean of its sources
    # the leaderboard's links to headline numbers: the part each benchmark names
    medcalc = {"robust": {"overall": {"n": 55, "correct": 3, "accuracy": 3 / 55}}}
    assert get_benchmark("medcalc").headline_source("accuracy.robust", medcalc) == {
        "view": "robust", "n": 55, "right": 3}
    medeval = {"groups": {"chest": {"accuracy": 0.5, "n": 4}}}
    assert get_benchmark("medeval").headline_source("groups.chest.accuracy", medeval) == {
        "where": {"group": "chest"}, "n": 4, "right": 2}
    assert get_benchmark("clue").headline_source("mednli.score", {}) == {}


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


def test_the_plan_names_each_cells_page_the_compared_pairs_and_the_prompt_setting(
        in_repo, monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo grid compares a pair (MedCalc-Bench Table 2: oracle vs constant), so `make
    demo` builds its pair pages."""
    overrides = ["grid.select.tables=[medcalc_table2]"]
    plan = build_plan(REPO / "conf", overrides)
    assert [(a.path, b.path) for a, b in examples_step.pairs(plan)] == [
        (f"oracle/medcalc/{m}", f"constant/medcalc/{m}") for m in ("zero_shot", "cot",
                                                                    "one_shot")]
    assert examples_step.page(plan, Cell("oracle", "medcalc", "cot")) == Path(
        "results/report/examples/oracle/medcalc/cot.html")
    assert examples_step.pair_page(plan, *examples_step.pairs(plan)[0]) == Path(
        "results/report/pairs/oracle/constant/medcalc/zero_shot.html")
    ident = plan.identities["report/examples"]["identity"]
    assert len(ident["cells"]) == len(plan.tables["medcalc_table2"])
    assert all(e["prompts"] for e in ident["cells"]) and not ident["credentialed"]
    table = plan.identities["report/index"]["identity"]["tables"][0]
    assert len(table["pairs"]) == 3
    monkeypatch.setattr(Plan, "credentialed", lambda self, task: task == "medcalc")
    for setting, shown in (("auto", False), ("always", True), ("never", False)):
        restricted = build_plan(REPO / "conf", [*overrides,
                                                f"report.examples.prompts={setting}"])
        ident = restricted.identities["report/examples"]["identity"]
        assert {e["prompts"] for e in ident["cells"]} == {shown}, setting
        assert ident["credentialed"] and ident["prompts"] == setting
    with pytest.raises(Exception, match="prompts"):
        build_plan(REPO / "conf", [*overrides, "report.examples.prompts=sometimes"])
