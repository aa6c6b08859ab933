"""The explorer's addresses in a real headless Chromium, on the full-scale MedCalc-Bench cell of
3,141 examples (tests/explorer_cells.py): filters, search, reading and page live in the URL and
come back from it; every example has a permalink that opens its page at it, past page 1 too;
the id search matches exactly unless asked for a prefix; a link to part of a cell (a reading and
a category) lands on exactly those examples and states the arithmetic of its value.

Needs Debian's ``chromium`` and ``chromium-driver``; the tests skip with that reason where they
are missing."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs

import pytest
from browser import browser, chromium, load
from explorer_cells import explorer

needs_chromium = pytest.mark.skipif(
    chromium() is None, reason="no chromium/chromedriver on PATH: apt-get install -y chromium "
    "chromium-driver (.ci/run does as root)")

#: What a page shows and holds now: pager, listed ids, controls, address and arithmetic line.
STATE = """
const line = document.getElementById('arithmetic');
return {
  where: document.querySelector('.pager .where').textContent,
  ids: Array.from(document.querySelectorAll('#examples article')).map(a => a.id.slice(8)),
  view: document.getElementById('view').value,
  checked: Array.from(document.querySelectorAll('#filters input[data-group]'))
    .filter(b => b.checked).map(b => b.value),
  search: document.getElementById('search').value,
  prefix: document.getElementById('prefix').checked,
  hash: location.hash,
  arithmetic: line.textContent,
  n: Number(line.dataset.n), right: Number(line.dataset.right),
};
"""


def state(driver) -> dict:
    return driver.execute_script(STATE)


def params(hash_: str) -> dict[str, list[str]]:
    return parse_qs(hash_.lstrip("#"))


def open_at(driver, page: Path, fragment: str) -> dict:
    """Load ``page`` at ``#fragment`` as a fresh document (a reader pasting the address)."""
    driver.get("about:blank")
    driver.get(page.resolve().as_uri() + "#" + fragment)
    driver.execute_async_script(
        "const done = arguments[0];"
        "const wait = () => document.body && document.body.dataset.ready === 'true' ? done()"
        " : setTimeout(wait, 20); wait();")
    return state(driver)


@pytest.fixture(scope="module")
def cell(tmp_path_factory) -> tuple[Path, dict]:
    built = explorer(tmp_path_factory.mktemp("explorer"))
    data = json.loads(built["a"].read_text(encoding="utf-8").split(
        'id="data">')[1].split("</script>")[0])
    return built["a"], data


@needs_chromium
def test_filters_search_reading_and_page_live_in_the_url(cell: tuple[Path, dict]) -> None:
    page, data = cell
    with browser() as driver:
        assert load(driver, page).errors == []
        assert state(driver)["hash"] == ""  # nothing chosen: the plain address
        driver.find_element("css selector", "#view option[value=robust]").click()
        driver.find_element("css selector", '#filters input[value="right"]').click()
        driver.find_element("css selector", ".pager .next").click()
        shown = state(driver)
        assert params(shown["hash"]) == {"view": ["robust"], "verdict": [
            "wrong,unanswered,scored"], "page": ["2"]}
        driver.find_element("id", "search").send_keys("cot-1")
        driver.find_element("id", "prefix").click()
        shown = state(driver)
        assert params(shown["hash"])["q"] == ["cot-1"] and params(shown["hash"])["prefix"] == [
            "1"] and "page" not in params(shown["hash"])  # a new filter starts at page 1
        # the address brings the same page back in a new document
        again = open_at(driver, page, shown["hash"].lstrip("#"))
        assert {k: again[k] for k in ("view", "checked", "search", "prefix", "ids", "where")} \
            == {k: shown[k] for k in ("view", "checked", "search", "prefix", "ids", "where")}
        expected = [e["id"] for e in data["examples"] if e["id"].startswith("cot-1")
                    and e["tags"]["robust"][0] != "right"]
        assert again["where"].startswith(f"{len(expected)} of 3141 examples")
        assert again["ids"] == expected[:50]
        # a page number past the first, with a reading, restored as written
        third = open_at(driver, page, "view=robust&page=3")
        assert third["where"] == "3141 of 3141 examples; page 3 of 63"
        assert third["ids"][0] == data["examples"][100]["id"] and third["view"] == "robust"
        assert load(driver, page).errors == []


@needs_chromium
def test_every_example_has_a_permalink_that_opens_its_page_at_it(
        cell: tuple[Path, dict]) -> None:
    page, data = cell
    ids = [e["id"] for e in data["examples"]]
    with browser() as driver:
        # an example far past page 1: its page, and it in view
        late = ids[2000]
        shown = open_at(driver, page, f"id={late}")
        assert late in shown["ids"] and shown["where"].endswith("page 41 of 63")
        assert driver.execute_script(
            "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
            "return r.top < window.innerHeight && r.bottom > 0;", f"example-{late}")
        # the old anchor form lands there too
        assert late in open_at(driver, page, f"example-{late}")["ids"]
        # the permalink of an example on the next page is its address
        driver.find_element("css selector", ".pager .next").click()
        article = driver.find_elements("css selector", "#examples article")[3]
        link = article.find_element("css selector", "a.permalink")
        wanted = article.get_attribute("id")[8:]
        href = link.get_attribute("href")
        assert params(href.split("#", 1)[1]) == {"id": [wanted]}
        back = open_at(driver, page, href.split("#", 1)[1])
        assert wanted in back["ids"] and back["where"].endswith(
            f"page {ids.index(wanted) // 50 + 1} of 63")
        # an example the address's filters would hide: the filters give way
        hidden = next(e["id"] for e in data["examples"][300:]
                      if e["tags"]["official"][0] == "right")
        found = open_at(driver, page, f"verdict=wrong&id={hidden}")
        assert hidden in found["ids"] and "right" in found["checked"]
        assert [e.text for e in driver.find_elements("css selector", "#examples a.permalink")
                ] == ["link"] * 50


@needs_chromium
def test_id_search_is_exact_unless_a_prefix_is_asked_for(cell: tuple[Path, dict]) -> None:
    page, data = cell
    with browser() as driver:
        assert load(driver, page).errors == []
        driver.find_element("id", "search").send_keys("cot-1")
        exact = state(driver)
        assert exact["ids"] == ["cot-1"] and exact["where"].startswith("1 of 3141")
        driver.find_element("id", "prefix").click()
        prefix = state(driver)
        starting = [e["id"] for e in data["examples"] if e["id"].startswith("cot-1")]
        assert len(starting) > 100  # cot-1, cot-10 … cot-19, cot-100 …
        assert prefix["where"].startswith(f"{len(starting)} of 3141")
        assert prefix["ids"] == starting[:50]
        # a substring that starts no id finds nothing, prefix or not
        driver.find_element("id", "search").clear()
        driver.find_element("id", "search").send_keys("ot-1")
        assert state(driver)["where"].startswith("0 of 3141")


@needs_chromium
def test_a_link_to_a_reading_and_category_lands_on_its_examples_with_the_arithmetic(
        cell: tuple[Path, dict]) -> None:
    page, data = cell
    lab = [e for e in data["examples"] if e["keys"].get("category") == "lab"]
    right = sum(e["tags"]["robust"][0] == "right" for e in lab)
    assert 0 < right < len(lab) < 3141
    with browser() as driver:
        shown = open_at(driver, page, "view=robust&category=lab&measure=share")
        ready = driver.execute_script(
            "return performance.getEntriesByName('explorer-ready')[0].startTime;")
        print(f"\n3,141-example page at a reading and category: ready {ready / 1000:.2f} s "
              "after navigation")
        assert shown["view"] == "robust"
        assert shown["where"].startswith(f"{len(lab)} of 3141 examples")
        assert shown["ids"] == [e["id"] for e in lab][:50]
        assert (shown["n"], shown["right"]) == (len(lab), right)
        share = right / len(lab)
        assert shown["arithmetic"].startswith(
            f"robust reading, category lab only: right {right} of n = {len(lab)} examples → "
            f"{100 * share:.2f}% ({share:.4f})")
        # the filters' counts are the category's
        label = driver.find_element("css selector", '#filters input[value="right"] + span')
        assert label.text == f"right ({right})"
        # the verdict filters narrow the list, not the arithmetic
        driver.find_element("css selector", '#filters input[value="right"]').click()
        narrowed = state(driver)
        assert narrowed["where"].startswith(f"{len(lab) - right} of 3141")
        assert (narrowed["n"], narrowed["right"]) == (len(lab), right)
        assert params(narrowed["hash"])["category"] == ["lab"]
        assert params(narrowed["hash"])["measure"] == ["share"]
        # one click back to the whole cell
        driver.find_element("css selector", "#arithmetic button.whole").click()
        whole = state(driver)
        assert whole["n"] == 3141 and "category" not in params(whole["hash"])
