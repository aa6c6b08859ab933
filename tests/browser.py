"""Headless Chromium (Debian's ``chromium`` and ``chromium-driver``) for the report's tests.

Run as a script to refresh the screenshot in the docs after ``make demo``:

    python tests/browser.py results/report/index.html docs/img/report.png
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BROWSERS = ("chromium", "chromium-browser")


def chromium() -> tuple[str, str] | None:
    """Paths of the Chromium binary and its driver, or None when either is missing."""
    binary = next(filter(None, map(shutil.which, BROWSERS)), None)
    driver = shutil.which("chromedriver")
    return (binary, driver) if binary and driver else None


@contextmanager
def browser(width: int = 1280, height: int = 1000) -> Iterator[Any]:
    """A headless Chromium session through the local chromedriver (selenium-manager never
    runs: both paths are given)."""
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
