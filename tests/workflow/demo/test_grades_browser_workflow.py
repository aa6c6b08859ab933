"""Graders in the loop in a real headless Chromium (docs/report.md): a reader grades two
examples of a cell's explorer page, the grades survive a reload (kept in the browser), are
saved as a grades file, and ``clineval agreement`` reads that file against the results.

Needs Debian's ``chromium`` and ``chromium-driver``; the tests skip with that reason where they
are missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from browser import browser, grade_two, needs_chromium, page_data
from workflow_run import REPO

from clineval.io import read_jsonl


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
    conf = ["--conf", str(REPO / "conf")]
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
