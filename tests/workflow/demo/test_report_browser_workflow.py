"""The reports of the demo in a real headless Chromium, and Snakemake's own report.

Needs Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them as root); the
tests skip with that reason where they are missing.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html import escape
from pathlib import Path

import pytest
from browser import assert_fits, browser, layout, load, needs_chromium, screenshot
from workflow_run import REPO, snakemake

from clineval.io import read_jsonl
from clineval.workflow.plan.build import build_plan


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
        plan = build_plan(REPO / "conf", [])
        table_captions = [plan.cfg["tables"][t]["caption"] for t in plan.tables]
        figure_captions = [plan.cfg["figures"][f]["caption"] for f in plan.figures]
        shown = layout(driver, table_captions + figure_captions)
        assert_fits(shown)
        assert len(shown["tables"]) == len(plan.tables)
        # a table's caption is shown once, under its title; a figure's only in its drawing
        assert shown["captions"] == [1] * len(table_captions) + [0] * len(figure_captions)
        # MedEval's groups span their metrics: Table 5, five per group; Table 2, its tasks'
        spans = {(f, label): n for f, label, n in shown["groups"]}
        assert spans[("table-medeval_table5", "Misc.")] == 5
        assert spans[("table-medeval_table2", "Chest")] > 1
        screenshot(driver, tmp_path / "report.png")
    assert (tmp_path / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


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


def page_data(page: Path) -> dict:
    """The JSON an explorer page embeds."""
    text = page.read_text(encoding="utf-8")
    return json.loads(text.split('id="data">')[1].split("</script>")[0])


#: How a CliBench answer item says how it was mapped: ``… → codes (how[, similarity …][: rule
#: why])``.
ITEM_HOW = re.compile(r" → .*? \(([a-z_]+)(?:, similarity [0-9.]+)?(?:: ([a-z_]+))?")


def written(root: Path, page: Path, example: str) -> str:
    """The output the model wrote for the example of a cell page (its generation), where an
    escape it shows is the model's own text (a copied one-shot answer), not the page's."""
    model, task, mode = page.relative_to(root / "results/report/examples").with_suffix("").parts
    path = root / "results" / "generations" / model / task / f"{mode}.jsonl"
    return next((g["output"] for g in read_jsonl(path) if str(g["id"]) == example), "")


def key_gaps(root: Path) -> list[str]:
    """The verdicts, finish reasons, readings and rules that the explorer pages of a built
    grid show and the key does not explain, and outputs that show ``\\u`` escapes."""
    from clineval.report import glossary

    tasks = build_plan(REPO / "conf", []).cfg["tasks"]
    examples = root / "results" / "report" / "examples"
    gaps = set()
    for page in sorted(examples.rglob("*.html")):
        if page.name == "index.html":
            continue
        bench = tasks[page.parent.name]["benchmark"]
        for example in page_data(page)["examples"]:
            for side in example["sides"]:
                shown = re.search(r"\\u[0-9a-fA-F]{4}", side["output"])
                if shown and shown.group() not in written(root, page, example["id"]):
                    gaps.add(f"escape in an output of {page.relative_to(examples)}")
                finish = side["finish"] or "not known"
                if finish not in glossary.FINISH:
                    gaps.add(f"finish {finish}")
                for j in side["judgements"]:
                    if j["verdict"] not in glossary.VERDICTS:
                        gaps.add(f"verdict {j['verdict']}")
                    if j["name"] not in glossary.READINGS:
                        gaps.add(f"reading {j['name']}")
                    if j["rule"] and not glossary.covered(bench, j["rule"]):
                        gaps.add(f"{bench} rule {j['rule']}")
                    for label, text in j["details"]:
                        found = ITEM_HOW.search(text) if label == "item" else None
                        how = found.groups() if found else ()
                        for rule in how if how[:1] == ("no_decision",) else how[:1]:
                            if rule and rule not in glossary.RULES[bench]:
                                gaps.add(f"{bench} item {rule}")
    return sorted(gaps)


@pytest.mark.slow
def test_the_key_explains_every_value_the_demo_pages_show(report: Path) -> None:
    assert (report.parent / "examples" / "index.html").exists()
    assert key_gaps(report.parents[2]) == []


@pytest.mark.slow
@needs_chromium
def test_the_demo_report_and_example_pages_read_at_768_px(report: Path) -> None:
    from browser import assert_readable, readable

    examples = report.parent / "examples"
    pages = [report, examples / "index.html",
             *sorted(examples.glob("*/meddisk_zh/*.html"))[:1],
             *sorted(examples.glob("*/medcalc/*.html"))[:1],
             *sorted(examples.glob("*/clibench_diagnoses/*.html"))[:1]]
    assert len(pages) == 5
    with browser(width=768) as driver:
        for page in pages:
            assert load(driver, page).errors == [], page
            assert_readable(readable(driver))
