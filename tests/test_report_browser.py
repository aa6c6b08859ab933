"""The reports of the demo in a real headless Chromium, and Snakemake's own report.

Needs Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them as root); the
tests skip with that reason where they are missing.
"""

from __future__ import annotations

import subprocess
import sys
from html import escape
from pathlib import Path

import pytest
from browser import browser, chromium, load, screenshot
from workflow_run import REPO, snakemake

from clineval.config.plan import build_plan
from clineval.report.page import Figure, render_page

needs_chromium = pytest.mark.skipif(
    chromium() is None, reason="no chromium/chromedriver on PATH: apt-get install -y chromium "
    "chromium-driver (.ci/run does as root)")


@pytest.fixture(scope="module")
def report(demo: Path) -> Path:
    """The demo's tables, figures and report (all_tables)."""
    done = snakemake(demo, "all_tables")
    assert done.returncode == 0, done.stderr[-3000:]
    return demo / "results" / "report" / "index.html"


@pytest.mark.slow
@needs_chromium
def test_demo_report_opens_with_no_console_error(report: Path, tmp_path: Path) -> None:
    with browser() as driver:
        check = load(driver, report)
        assert check.title == "clineval report: demo"
        assert check.errors == []
        # every figure of the demo grid is on the page, decoded by the browser
        assert len(check.image_widths) == len(build_plan(REPO / "conf", []).figures) == 9
        assert all(width > 0 for width in check.image_widths)
        sections = [s.get_attribute("id") for s in driver.find_elements("css selector",
                                                                         "main > section")]
        assert sections[0] == "leaderboard"
        assert driver.find_elements("css selector", "#leaderboard table tbody tr")
        screenshot(driver, tmp_path / "report.png")
    assert (tmp_path / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@needs_chromium
def test_a_figure_renders_in_the_browser(tmp_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    fig, axes = pyplot.subplots(figsize=(4, 3), dpi=50)
    axes.bar(["a", "b"], [1, 2])
    fig.savefig(tmp_path / "bars.png")
    pyplot.close(fig)
    entry = {"title": "Bars", "caption": "Two bars.", "section": "figures"}
    ident = {"grid": "test", "smoke_models": [], "tables": [], "figures": {"bars": entry}}
    code = {"version": "0", "commit": None, "dirty": None, "identity": "0" * 64}
    page = tmp_path / "index.html"
    png = (tmp_path / "bars.png").read_bytes()
    page.write_text(render_page(ident, {}, [Figure("bars", entry, png)], code))
    with browser() as driver:
        check = load(driver, page)
    assert check.errors == []
    assert check.image_widths == [200]  # 4 in x 50 dpi, decoded from the data: URI


@pytest.mark.slow
def test_snakemake_report_shows_every_tables_caption_by_benchmark(report: Path) -> None:
    done = snakemake(report.parents[2], "--report", "results/report.html")
    assert done.returncode == 0, done.stderr[-3000:]
    html = (report.parents[1] / "report.html").read_text(encoding="utf-8")
    plan = build_plan(REPO / "conf", [])
    for name in plan.tables:
        spec = plan.cfg["tables"][name]
        assert escape(spec["caption"], quote=False) in html, name
        assert escape(spec["title"], quote=False) in html, name
    for name in plan.figures:
        spec = plan.cfg["figures"][name]
        assert escape(spec["caption"], quote=False) in html, name
        assert escape(spec["title"], quote=False) in html, name
        assert f"{name}.png" in html, name
    for category in ("Leaderboard", "MedCalc-Bench", "CLUE", "CliBench", "MedDisK", "MedEval"):
        assert f'"{category}"' in html


@pytest.mark.slow
def test_audit_checks_the_report_and_names_a_changed_page(report: Path) -> None:
    def audit() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "clineval.cli", "audit", "--report",
                               "--conf", str(REPO / "conf"), "leaderboard"],
                              capture_output=True, text=True, timeout=600, cwd=report.parents[2])

    checked = audit()
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "ok      report" in checked.stdout
    original = report.read_bytes()
    try:
        report.write_bytes(original.replace(b"<h1>", b"<h1>!"))
        broken = audit()
        assert broken.returncode == 1
        assert "BROKEN  report" in broken.stdout and "results/report/index.html" in broken.stdout
    finally:
        report.write_bytes(original)
