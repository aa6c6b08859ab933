"""Headless Chromium (Debian's ``chromium`` and ``chromium-driver``) for the report's tests, and
what their unit and workflow halves share: the skip mark, reading and grading a page, the
layout check.

Run as a script to refresh the screenshot in the docs after ``make demo``:

    python tests/browser.py results/report/index.html docs/img/report.png
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

BROWSERS = ("chromium", "chromium-browser")


def chromium() -> tuple[str, str] | None:
    """Paths of the Chromium binary and its driver, or None when either is missing."""
    binary = next(filter(None, map(shutil.which, BROWSERS)), None)
    driver = shutil.which("chromedriver")
    return (binary, driver) if binary and driver else None


@contextmanager
def browser(width: int = 1280, height: int = 1000, script: bool = True) -> Iterator[Any]:
    """A headless Chromium session through the local chromedriver (selenium-manager never
    runs: both paths are given); ``script``: False turns JavaScript off."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    found = chromium()
    if found is None:
        raise RuntimeError("no chromium and chromedriver on PATH (apt-get install chromium "
                           "chromium-driver)")
    options = Options()
    options.binary_location = found[0]
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if not script:
        options.add_experimental_option(
            "prefs", {"profile.managed_default_content_settings.javascript": 2})
    driver = webdriver.Chrome(service=Service(executable_path=found[1]), options=options)
    try:
        yield driver
    finally:
        driver.quit()


@dataclass
class PageCheck:
    """What a loaded page shows: SEVERE console entries and each image's natural width."""

    title: str
    errors: list[str]
    image_widths: list[int]


def load(driver: Any, page: Path) -> PageCheck:
    driver.get(page.resolve().as_uri())
    driver.execute_async_script(
        "const done = arguments[0];"
        "if (document.readyState === 'complete') done(); "
        "else window.addEventListener('load', () => done());")
    errors = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    widths = driver.execute_script(
        "return Array.from(document.images).map(img => img.naturalWidth);")
    return PageCheck(driver.title, errors, widths)


#: What makes a page hard to read on a narrow screen or with assistive technology: the page
#: and each table against their width, header cells broken inside a word, heading levels,
#: tables without a caption, Chinese text outside ``lang="zh"`` and ``\\uXXXX`` escapes.
READABLE = r"""
const wide = [];
for (const table of document.querySelectorAll('table')) {
  if (!table.getClientRects().length) continue;
  const box = table.parentElement;
  const scrolls = ['auto', 'scroll'].includes(getComputedStyle(box).overflowX);
  if (table.getBoundingClientRect().width > box.clientWidth + 0.5 && !scrolls)
    wide.push(table.querySelector('caption') ? table.querySelector('caption').textContent : '?');
}
const split = [];
for (const th of document.querySelectorAll('th')) {
  if (!th.getClientRects().length) continue;
  const walk = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {
    // a word, or each part of a hyphenated one: a line may end after a hyphen
    // ("zero-" / "shot", as typesetting allows), never inside a part ("Leve" / "l")
    for (const m of node.textContent.matchAll(/[^\s-]+/g)) {
      const range = document.createRange();
      range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
      const tops = new Set(Array.from(range.getClientRects()).filter(r => r.width > 0)
                           .map(r => Math.round(r.top)));
      if (tops.size > 1) split.push(m[0]);
    }
  }
}
const chinese = /[　-〿㐀-䶿一-鿿＀-￯]/;
const notZh = [];
const texts = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let node = texts.nextNode(); node; node = texts.nextNode()) {
  const holder = node.parentElement.closest('[lang]');
  if (chinese.test(node.textContent) && !node.parentElement.closest('script, noscript')
      && (!holder || !holder.lang.startsWith('zh'))) notZh.push(node.textContent.slice(0, 30));
}
return {
  page: [document.documentElement.scrollWidth, window.innerWidth],
  wide: wide, split: split, not_zh: notZh,
  headings: Array.from(document.querySelectorAll('h1,h2,h3,h4,h5,h6')).map(h => +h.tagName[1]),
  uncaptioned: Array.from(document.querySelectorAll('table')).filter(
    t => !t.querySelector(':scope > caption')).length,
  tables: document.querySelectorAll('table').length,
  escapes: (document.body.innerText.match(/\u[0-9a-fA-F]{4}/g) || []),
};
"""


def readable(driver: Any) -> dict[str, Any]:
    """What :data:`READABLE` finds on the loaded page."""
    return driver.execute_script(READABLE)


def assert_readable(shown: dict[str, Any]) -> None:
    """The page fits its window (a wider table scrolls in its own box), no header breaks
    inside a word, heading levels go down one at a time, every table has a caption, all
    Chinese text is marked ``lang="zh"`` and no text shows a ``\\u`` escape."""
    width, window = shown["page"]
    assert width <= window, f"the page scrolls sideways: {width} > {window} px"
    assert shown["wide"] == [], f"tables wider than their box: {shown['wide']}"
    assert shown["split"] == [], f"header words broken across lines: {shown['split']}"
    levels = shown["headings"]
    assert levels and levels[0] == 1, levels
    jumps = [(a, b) for a, b in pairwise(levels) if b > a + 1]
    assert jumps == [], f"heading levels skipped: {jumps}"
    assert shown["uncaptioned"] == 0, f"{shown['uncaptioned']} tables without a caption"
    assert shown["not_zh"] == [], f"Chinese text not marked lang=zh: {shown['not_zh']}"
    assert shown["escapes"] == [], f"escapes in the text: {shown['escapes']}"


def screenshot(driver: Any, out: Path, height: int = 1600) -> None:
    """A PNG of the page's top ``height`` pixels (or all of it, when shorter)."""
    full = driver.execute_script("return document.documentElement.scrollHeight;")
    driver.set_window_size(1280, min(full, height))
    out.parent.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(out))


if __name__ == "__main__":
    with browser() as session:
        check = load(session, Path(sys.argv[1]))
        if check.errors or 0 in check.image_widths:
            sys.exit(f"{sys.argv[1]}: console errors {check.errors}, image widths "
                     f"{check.image_widths}")
        screenshot(session, Path(sys.argv[2]))


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


LAYOUT = """
const page = document.documentElement;
const text = document.body.innerText;
const count = s => text.split(s).length - 1;
return {
  page: [page.scrollWidth, window.innerWidth],
  tables: Array.from(document.querySelectorAll('figure[id^="table-"]')).map(f => {
    const t = f.querySelector('table');
    return [f.id, t.getBoundingClientRect().width, f.getBoundingClientRect().width,
            ['auto', 'scroll'].includes(getComputedStyle(t.parentElement).overflowX)];
  }),
  groups: Array.from(document.querySelectorAll('thead th[scope="colgroup"]')).map(
    th => [th.closest('figure').id, th.innerText, th.colSpan]),
  captions: arguments[0].map(count),
};
"""


def layout(driver, captions: list[str]) -> dict:
    """The page's and each table's width, each group header's span and how often each caption
    is in the page's visible text."""
    return driver.execute_script(LAYOUT, captions)


def assert_fits(shown: dict) -> None:
    """No sideways scrolling of the page: it is no wider than the window, each table no wider
    than its figure unless it scrolls in its own box."""
    width, window = shown["page"]
    assert width <= window, f"the page scrolls sideways: {width} > {window} px"
    wide = [t for t in shown["tables"] if t[1] > t[2] + 0.5 and not t[3]]
    assert wide == [], f"tables wider than the page: {wide}"
