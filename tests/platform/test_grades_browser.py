"""Graders in the loop in a real headless Chromium (docs/report.md): a reader grades two
examples of a cell's explorer page, the grades survive a reload (kept in the browser), are
saved as a grades file, and ``clineval agreement`` reads that file against the results.

Needs Debian's ``chromium`` and ``chromium-driver``; the tests skip with that reason where they
are missing."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from browser import browser, chromium, load
from explorer_cells import explorer

from clineval.io import read_jsonl
from clineval.report import agreement
from clineval.report.grades import output_sha256, read_all

needs_chromium = pytest.mark.skipif(
    chromium() is None, reason="no chromium/chromedriver on PATH: apt-get install -y chromium "
    "chromium-driver (.ci/run does as root)")


def page_data(page: Path) -> dict:
    return json.loads(page.read_text(encoding="utf-8").split('id="data">')[1]
                      .split("</script>")[0])


def saved_file(folder: Path, timeout: float = 30) -> Path:
    """The grades file the page's download wrote into ``folder``."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        done = [p for p in folder.glob("*.jsonl")]
        if done:
            return done[0]
        time.sleep(0.2)
    raise AssertionError(f"no grades file in {folder}: {list(folder.iterdir())}")


def grade_two(driver, page: Path, downloads: Path, first: str, second: str, note: str) -> Path:
    """Open ``page``, agree with the scorer on ``first``, disagree on ``second`` (verdict
    unanswered, with ``note``), the grader's name given once when asked, and save."""
    from selenium.webdriver.support.ui import Select

    driver.execute_cdp_cmd("Page.setDownloadBehavior",
                           {"behavior": "allow", "downloadPath": str(downloads)})
    assert load(driver, page).errors == []
    search = driver.find_element("id", "search")
    search.send_keys(first)
    box = driver.find_element("css selector", "#examples article fieldset.grade")
    box.find_element("css selector", "input[value=agree]").click()
    alert = driver.switch_to.alert  # the grader's name: asked once
    alert.send_keys("ann")
    alert.accept()
    search.clear()
    search.send_keys(second)
    box = driver.find_element("css selector", "#examples article fieldset.grade")
    box.find_element("css selector", "input[value=disagree]").click()
    Select(box.find_element("tag name", "select")).select_by_value("unanswered")
    note_box = box.find_element("css selector", "input[type=text]")
    note_box.send_keys(note)
    note_box.send_keys("\t")  # the note is kept on change
    save = driver.find_element("id", "save-grades")  # above the list: out of the sticky filters
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", save)
    save.click()
    return saved_file(downloads)


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


@pytest.mark.slow
@needs_chromium
def test_graded_in_the_demos_explorer_then_clineval_agreement(demo: Path, tmp_path: Path,
                                                               capsys, monkeypatch) -> None:
    """The demo's explorer, a real run's files: two examples graded in the browser, the saved
    file given to ``clineval agreement``, which links the disagreement to its example."""
    from clineval.cli import main

    page = demo / "results/report/examples/smollm2_135m/medcalc/zero_shot.html"
    data = page_data(page)
    # the second an example the scorer did not leave unanswered (graded unanswered here)
    first = data["examples"][0]["id"]
    second = next(e["id"] for e in data["examples"][1:]
                  if e["tags"][data["views"][0]][0] != "unanswered")
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    with browser() as driver:
        saved = grade_two(driver, page, downloads, first, second, "a second look")
    monkeypatch.chdir(demo)
    conf = ["--conf", str(Path(__file__).parents[2] / "conf")]
    assert main(["agreement", str(saved), *conf]) == 0
    text = capsys.readouterr().out
    assert "2 grades counted, 0 stale" in text
    assert "| smollm2_135m/medcalc/zero_shot | 2 | 1 | 50.0 |" in text
    assert (f"(results/report/examples/smollm2_135m/medcalc/zero_shot.html#example-{second})"
            in text)
    # a changed output: the grade is stale, never counted
    stale = tmp_path / "stale.jsonl"
    lines = read_jsonl(saved)
    stale.write_text("".join(json.dumps(g | {"output_sha256": "0" * 64}) + "\n" for g in lines))
    assert main(["agreement", str(stale), *conf]) == 0
    assert "0 grades counted, 2 stale" in capsys.readouterr().out
