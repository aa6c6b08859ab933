"""The per-example explorer in a real headless Chromium, at full scale: two models' MedCalc-Bench
cells of 3,141 examples each (1,047 x 3 modes, tests/explorer_cells.py), their pair page, the
index of cells and a report page whose values link to them. Checks the links, the filters, the
pager, the folded prompt, and how large the page is and how long it takes to open.

Needs Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them as root); the
tests skip with that reason where they are missing."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from browser import browser, chromium, load, screenshot
from explorer_cells import explorer

from clineval.report.markdown import parse_table
from clineval.report.page import render_page

needs_chromium = pytest.mark.skipif(
    chromium() is None, reason="no chromium/chromedriver on PATH: apt-get install -y chromium "
    "chromium-driver (.ci/run does as root)")

#: What a page shows now: the pager's text, the examples listed and their badges.
SHOWN = """
return {
  where: document.querySelector('.pager .where').textContent,
  ids: Array.from(document.querySelectorAll('#examples article')).map(a => a.id),
  badges: Array.from(document.querySelectorAll('#examples article h3 .badge')).map(
    b => b.textContent),
};
"""


def shown(driver) -> dict:
    return driver.execute_script(SHOWN)


def click_box(driver, value: str) -> None:
    driver.find_element("css selector", f'#filters input[value="{value}"]').click()


def report_page(root: Path) -> Path:
    """A report page with one table whose values link to model a's cell (its last value to
    both cells) and whose pair link opens the pair page."""
    markdown = "\n".join(["## T", "", "| Model | Accuracy | Avg. |", "|:---|---:|---:|",
                          "| Model A | 40.00 | 45.00 |", ""])
    sources = {"rows": [[[], ["a/medcalc/all"], ["a/medcalc/all", "b/medcalc/all"]]]}
    ident = {"grid": "scale", "smoke_models": [], "figures": {},
             "examples": {"prompts": "auto", "credentialed": False},
             "tables": [{"table": "t", "section": "medcalc", "title": "T", "caption": "C.",
                         "identity": "0" * 64, "pairs": [["a/medcalc/all", "b/medcalc/all"]]}]}
    page = root / "report" / "index.html"
    page.write_text(render_page(ident, {"t": parse_table(markdown, Path("t.md"))}, [],
                                {"version": "0", "commit": None, "identity": "0" * 64},
                                {"t": sources["rows"]}))
    return page


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("explorer")
    built = explorer(root)
    return {**built, "report": report_page(root)}


@needs_chromium
def test_a_cell_of_3141_examples_opens_filters_and_pages(pages: dict[str, Path],
                                                         tmp_path: Path) -> None:
    size = pages["a"].stat().st_size
    data = json.loads(pages["a"].read_text(encoding="utf-8").split(
        'id="data">')[1].split("</script>")[0])
    counts = data["counts"]["official"]
    with browser() as driver:
        start = time.perf_counter()
        check = load(driver, pages["a"])
        opened = time.perf_counter() - start
        assert check.errors == []
        assert driver.find_element("tag name", "body").get_attribute("data-ready") == "true"
        first = shown(driver)
        assert first["where"] == "3141 of 3141 examples; page 1 of 63"
        assert len(first["ids"]) == 50 and first["ids"][0] == "example-zero_shot-1"
        print(f"\nexplorer page of 3,141 examples: {size / 1e6:.1f} MB, opened and listed in "
              f"{opened:.2f} s")
        assert opened < 30
        driver.find_element("css selector", ".pager .next").click()
        assert shown(driver)["ids"][0] == "example-zero_shot-51"
        # only the wrong ones: the other verdicts unchecked
        for verdict in ("right", "unanswered", "scored"):
            click_box(driver, verdict)
        wrong = shown(driver)
        assert wrong["where"].startswith(f"{counts['wrong']} of 3141 examples; page 1 of")
        assert set(wrong["badges"]) <= {"wrong", "cut at max_tokens", "copied from the prompt"}
        # every verdict, only those cut at max_tokens (here: also copied)
        for verdict in ("right", "unanswered", "scored"):
            click_box(driver, verdict)
        click_box(driver, "cut")
        cut = shown(driver)
        assert cut["where"].startswith(f"{counts['cut']} of 3141") and counts["cut"] > 0
        assert cut["badges"].count("cut at max_tokens") == min(50, counts["cut"])
        click_box(driver, "cut")
        # the robust reading reads answers the official one does not
        driver.find_element("css selector", "#view option[value=robust]").click()
        robust = data["counts"]["robust"]
        label = driver.find_element("css selector", '#filters input[value="right"] + span')
        assert label.text == f"right ({robust['right']})"
        # an id
        driver.find_element("id", "search").send_keys("one_shot-1047")
        assert shown(driver)["ids"] == ["example-one_shot-1047"]
        # the prompt as sent: folded until opened
        details = driver.find_element("css selector", "#examples details.prompt")
        system, user = details.find_elements("css selector", "pre.message")
        assert details.get_attribute("open") is None and not user.is_displayed()
        details.find_element("tag name", "summary").click()
        assert user.is_displayed() and "Here is the patient note" in user.text
        assert system.text.startswith("You are a helpful assistant")
        screenshot(driver, tmp_path / "cell.png")
    assert (tmp_path / "cell.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@needs_chromium
def test_the_report_links_values_to_cells_and_pairs(pages: dict[str, Path]) -> None:
    with browser() as driver:
        assert load(driver, pages["report"]).errors == []
        driver.find_element("css selector", "td a[href$='a/medcalc/all.html']").click()
        assert driver.current_url == pages["a"].resolve().as_uri()
        assert driver.title == "Model A: MedCalc-Bench, all"
        assert load(driver, pages["report"]).errors == []
        driver.find_element("css selector", "td a[href^='#cells-']").click()
        listed = driver.find_element("id", "cells-t-0-2")
        assert len(listed.find_elements("tag name", "a")) == 2
        driver.find_element("css selector", "p.pairs a").click()
        assert driver.current_url == pages["pair"].resolve().as_uri()
        pair = shown(driver)
        data = json.loads(pages["pair"].read_text(encoding="utf-8").split(
            'id="data">')[1].split("</script>")[0])
        assert pair["where"].startswith(f"{len(data['examples'])} of {len(data['examples'])}")
        assert set(pair["badges"]) <= {"a right (Model A)", "b right (Model B)"}
        assert len(driver.find_elements("css selector", "#examples article .side")) == 100
        driver.find_element("link text", "All cells").click()
        assert driver.current_url == pages["index"].resolve().as_uri()
        driver.find_element("link text", "all").click()  # model a's cell
        assert driver.current_url == pages["a"].resolve().as_uri()


#: Each judgement row of the first example shown, with the detail rows under it.
READINGS = """
const rows = Array.from(document.querySelectorAll('#examples article table.judgements tbody tr,'
  + ' #examples article table.judgements > tr'));
const found = []; let current = null;
for (const tr of rows) {
  const cells = Array.from(tr.children).map(td => td.textContent);
  if (cells[0]) { current = {name: cells[0], verdict: cells[1], read: cells[2], items: []};
                  found.push(current); }
  else if (current) current.items.push(cells[2]);
}
return found;
"""


@needs_chromium
def test_each_reading_shows_its_own_item_mappings(tmp_path: Path) -> None:
    """A CliBench prescription whose literal reading maps the copied allergy lines to codes
    (SmolLM2's recorded output): the careful row's items say "no code", the literal row's the
    codes that reading read."""
    from clineval.report.examples import Cell, cell_document
    from clineval.report.explorer import Page, cell_groups, examples_page

    recorded = json.loads((Path(__file__).parents[1] / "fixtures" / "real_outputs"
                           / "clibench_prescriptions__zero_shot.json").read_text("utf-8"))
    row = next(r for r in recorded["rows"] if (r.get("literal") or {}).get("codes"))
    example = next(e for e in recorded["examples"] if e["id"] == row["id"])
    generation = next(g for g in recorded["generations"] if g["id"] == row["id"])
    cell = Cell("m/clibench_prescriptions/zero_shot", "clibench", {}, [row],
                {row["id"]: example}, {row["id"]: generation}, {})
    document = cell_document(cell, False)
    page = tmp_path / "page.html"
    page.write_text(examples_page(Page("t", "t", [], [], groups=cell_groups()), document),
                    encoding="utf-8")
    with browser() as driver:
        assert load(driver, page).errors == []
        readings = driver.execute_script(READINGS)
    careful, literal = readings
    assert (careful["name"], literal["name"]) == ("reading", "literal")
    assert literal["read"] == ", ".join(row["literal"]["codes"])
    assert all("→ no code" in item for item in careful["items"])
    assert [item.split(" → ")[1].split(" (")[0] for item in literal["items"]] == [
        ", ".join(i["codes"]) or "no code" for i in row["literal"]["items"]]
    assert any("→ no code" not in item for item in literal["items"])


def zh_page(root: Path) -> Path:
    """A MedDisK-like cell page of 60 Chinese examples (two readings each, a long answer and
    a prompt), built as the explorer's job builds one."""
    from clineval.report.explorer import Page, cell_groups, examples_page

    judgement = {"name": "reading", "verdict": "scored", "score": "6.5 points " * 8,
                 "read": "发热、咳嗽、呼吸困难" * 12, "rule": "pattern; unanswered: no entity",
                 "details": [["semantic", "0.812 (partially correct) " * 12]]}
    literal = {**judgement, "name": "literal", "rule": "fallback"}
    examples = [{"id": f"meddisk-{i}", "gold": "发热，咳嗽 − 胸痛",
                 "details": [["aspect", "symptom (症状)"]],
                 "sides": [{"output": f"肺炎的症状是发热、咳嗽 {i} − done", "finish": None,
                            "tokens": 12, "copied": None, "judgements": [judgement, literal],
                            "prompt": [["user", 0]]}],
                 "tags": {"reading": ["scored"], "literal": ["scored"]}} for i in range(60)]
    document = {"views": ["reading", "literal"], "texts": ["肺炎的症状是什么？"],
                "examples": examples, "left_out": 0,
                "counts": {v: {"scored": 60} for v in ("reading", "literal")}}
    page = Page("Tiny: MedDisK zh", "Tiny on MedDisK zh, zero_shot",
                ["MedDisK, task zh: 60 scored examples; scoring identity 0123456789abcdef."],
                [("Report", "../index.html")], groups=cell_groups(), benchmark="meddisk")
    out = root / "zh.html"
    out.write_text(examples_page(page, document), encoding="utf-8")
    return out


@needs_chromium
@pytest.mark.parametrize("width", [768, 1400])
def test_an_example_page_reads_at_768_and_1400_px_with_its_key(tmp_path: Path,
                                                                width: int) -> None:
    from browser import assert_readable, readable

    page = zh_page(tmp_path)
    with browser(width=width) as driver:
        assert load(driver, page).errors == []
        shown = readable(driver)
        assert shown["tables"] >= 50  # one judgement table per example listed
        assert_readable(shown)
        output = driver.find_element("css selector", "#examples pre.output")
        assert output.get_attribute("lang") == "zh" and "−" in output.text
        header = driver.find_element("css selector", "#examples table.judgements th")
        assert header.get_attribute("lang") in (None, "")  # the labels stay English
        key = driver.find_element("css selector", "details.key")
        key.find_element("tag name", "summary").click()
        terms = [dt.text for dt in key.find_elements("tag name", "dt")]
        # the rules this page shows, and the "finish: not known" of its outputs, explained
        assert {"pattern", "fallback", "no entity", "not known", "literal", "reading",
                "scored", "scoring identity"} <= set(terms)
        assert "qualified" not in terms  # another benchmark's rule
        assert "finish: not known" in driver.find_element("css selector", "#examples").text


@needs_chromium
def test_without_scripts_an_example_page_lists_its_first_examples(tmp_path: Path) -> None:
    from browser import assert_readable, readable

    page = zh_page(tmp_path)
    with browser(width=768, script=False) as driver:
        load(driver, page)
        assert driver.find_element("tag name", "body").get_attribute("data-ready") == "false"
        articles = driver.find_elements("css selector", "main article")
        assert len(articles) == 50
        assert articles[0].get_attribute("id") == "example-meddisk-0"
        assert "肺炎的症状是发热、咳嗽 0 − done" in articles[0].text
        assert "Scripts are off: the first 50 of 60 examples" in driver.find_element(
            "tag name", "main").text
        assert_readable(readable(driver))


@needs_chromium
def test_a_full_scale_cell_page_reads_at_768_px(pages: dict[str, Path]) -> None:
    from browser import assert_readable, readable

    with browser(width=768) as driver:
        assert load(driver, pages["a"]).errors == []
        assert_readable(readable(driver))
        assert load(driver, pages["index"]).errors == []
        assert_readable(readable(driver))
