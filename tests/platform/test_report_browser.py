"""The reports of the demo in a real headless Chromium, and Snakemake's own report.

Needs Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them as root); the
tests skip with that reason where they are missing.
"""

from __future__ import annotations

from pathlib import Path

from browser import assert_fits, browser, layout, load, needs_chromium
from workflow_run import REPO

from clineval.report.page import Figure, render_page


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


@needs_chromium
def test_wide_tables_wrap_groups_span_and_captions_show_once(tmp_path: Path) -> None:
    """Without the demo: a 25-column table with long labels, a grouped one and a figure, in
    a 1280-pixel window."""
    from clineval.report.markdown import parse_table

    columns = ["Model", *[f"MeDiSumCode Valid Code {i}" for i in range(24)]]
    wide = "\n".join([
        "## Wide", "", "| " + " | ".join(columns) + " |",
        "|:---|" + "---:|" * 24,
        "| **Few-shot, the paper's setting (3 exemplars at level 1, 1 at level 2)** |"
        + " |" * 24,
        "| SmolLM2 135M Instruct | " + " | ".join(["100.00"] * 24) + " |", ""])
    grouped = "\n".join([
        "## Grouped", "", "|  | Chest |  |  |  |  | Misc. |  |  |  |  |",
        "|:---|" + "---:|" * 10,
        "| **Model** | " + " | ".join(["**ROUGE-1**", "**ROUGE-2**", "**ROUGE-L**", "**Sum**",
                                         "**BLEU-4**"] * 2) + " |",
        "| Oracle | " + " | ".join(["100.00"] * 10) + " |", ""])
    tables = {"wide": parse_table(wide, Path("wide.md")),
              "grouped": parse_table(grouped, Path("grouped.md"))}
    entries = [{"table": name, "section": "medeval", "title": name.capitalize(),
                "caption": f"The {name} table's caption.", "identity": "0" * 64}
               for name in tables]
    figure = {"title": "Bars", "caption": "The figure's caption.", "section": "medeval"}
    ident = {"grid": "test", "smoke_models": [], "tables": entries,
             "figures": {"bars": figure}}
    code = {"version": "0", "commit": None, "dirty": None, "identity": "0" * 64}
    png = (REPO / "docs" / "img" / "report.png").read_bytes()
    page = tmp_path / "index.html"
    page.write_text(render_page(ident, tables, [Figure("bars", figure, png)], code))
    with browser() as driver:
        check = load(driver, page)
        shown = layout(driver, [e["caption"] for e in entries] + [figure["caption"]])
    assert check.errors == []
    assert_fits(shown)
    # the 25 columns scroll in their box (no label breaks inside a word); the grouped fits
    assert [t[0] for t in shown["tables"] if t[1] > t[2]] == ["table-wide"]
    assert shown["groups"] == [["table-grouped", "Chest", 5], ["table-grouped", "Misc.", 5]]
    assert shown["captions"] == [1, 1, 0]


@needs_chromium
def test_at_768_px_tables_scroll_in_their_box_headers_keep_words_and_notes_render(
        tmp_path: Path) -> None:
    """Without the demo: the wide and the grouped table of the test above and a note with
    Markdown, in a 768-pixel window."""
    from browser import assert_readable, readable

    from clineval.report.markdown import parse_table

    columns = ["Model", *[f"Level {i} Score" for i in range(14)]]
    wide = "\n".join([
        "## Wide", "", "| " + " | ".join(columns) + " |", "|:---|" + "---:|" * 14,
        "| SmolLM2 135M Instruct | " + " | ".join(["100.00"] * 14) + " |", "",
        "- Reading: the paper's literal reading gives Tiny zero_shot Completely wrong (share) "
        "0.963 (here 0.5) (each cell's score summary, `literal`)."])
    tables = {"wide": parse_table(wide, Path("wide.md"))}
    entries = [{"table": "wide", "section": "medeval", "title": "Wide",
                "caption": "The wide table's caption.", "identity": "0" * 64}]
    ident = {"grid": "test", "smoke_models": [], "tables": entries, "figures": {}}
    code = {"version": "0", "commit": None, "dirty": None, "identity": "0" * 64}
    page = tmp_path / "index.html"
    page.write_text(render_page(ident, tables, [], code))
    with browser(width=768) as driver:
        assert load(driver, page).errors == []
        shown = readable(driver)
        notes = driver.find_element("id", "notes-wide")
        code_text = [c.text for c in notes.find_elements("tag name", "code")]
        notes_text = notes.text
        key = driver.find_element("id", "key").text
    assert_readable(shown)
    assert shown["tables"] == 1
    assert code_text == ["literal"] and "`" not in notes_text
    assert "Key: what the words mean" in key and "scoring identity" in key
