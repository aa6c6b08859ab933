"""Graders in the loop in a real headless Chromium (docs/report.md): a reader grades two
examples of a cell's explorer page, the grades survive a reload (kept in the browser), are
saved as a grades file, and ``clineval agreement`` reads that file against the results.

Needs Debian's ``chromium`` and ``chromium-driver``; the tests skip with that reason where they
are missing."""

from __future__ import annotations

from pathlib import Path

from browser import browser, grade_two, load, needs_chromium, page_data
from explorer_cells import explorer

from clineval.io import read_jsonl
from clineval.report import agreement
from clineval.report.grades import output_sha256, read_all


@needs_chromium
def test_a_reader_grades_two_examples_saves_them_and_agreement_reads_them(tmp_path: Path
                                                                             ) -> None:
    built = explorer(tmp_path / "site", n=5)
    page = built["a"]
    data = page_data(page)
    ids = [e["id"] for e in data["examples"]]
    first, second = ids[0], ids[2]  # the scorer: right, then wrong (tests/explorer_cells.py)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    with browser() as driver:
        saved = grade_two(driver, page, downloads, first, second, "12 is right for this note")
        assert saved.name == "grades-a-medcalc-all.jsonl"
        # kept in the browser: the page opened again shows both grades
        assert load(driver, page).errors == []
        assert "2 grades kept" in driver.find_element("id", "grading").text
        driver.find_element("id", "search").send_keys(second)
        kept = driver.find_element("css selector", "#examples article fieldset.grade")
        assert kept.find_element("css selector", "input[value=disagree]").is_selected()
        assert kept.find_element("tag name", "select").get_attribute("value") == "unanswered"
    lines = read_jsonl(saved)
    generations = {g["id"]: g for g in read_jsonl(tmp_path / "site/cells/a/generations.jsonl")}
    assert [(g["id"], g["grader"], g["reading"], g["agree"], g["verdict"], g["note"])
            for g in lines] == [
        (first, "ann", "official", True, "right", ""),
        (second, "ann", "official", False, "unanswered", "12 is right for this note")]
    assert lines[0]["output_sha256"] == output_sha256(generations[first]["output"])
    assert lines[0]["scoring"] == data["grading"]["scoring"]
    # the file against the results, as `clineval agreement` reads it
    files = agreement.CellFiles("a/medcalc/all", tmp_path / "site/cells/a/scoring.json",
                                tmp_path / "site/examples.jsonl",
                                tmp_path / "site/cells/a/generations.jsonl",
                                tmp_path / "site/cells/a/rows.jsonl")
    found = agreement.compare(read_all([saved]), {"a/medcalc/all": agreement.cell_now(files)})
    text = agreement.markdown(found, "examples")
    assert "2 grades counted, 0 stale" in text
    assert "| a/medcalc/all | 2 | 1 | 50.0 |" in text
    assert (f"- [a/medcalc/all {second}](examples/a/medcalc/all.html#example-{second}), "
            "reading official: scorer wrong, ann unanswered: 12 is right for this note") in text
