"""The HTML report: reading tables' Markdown back, the page, and the report's identity."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest

from clineval.config.compose import ConfigError
from clineval.io import DataError
from clineval.report.markdown import parse_table
from clineval.report.page import Figure, render_page, table_html
from clineval.report.step import report_text
from clineval.report.text import rst_escape
from clineval.tables.render import Block, Table, to_markdown
from clineval.workflow.plan.build import build_plan

REPO = Path(__file__).resolve().parents[2]
CODE = {"version": "0.1.0", "commit": "abc123", "dirty": False, "identity": "f" * 64}
#: A tiny valid PNG (1x1 pixel).
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


def sample_table(title: str = "Sample <b>table</b>") -> Table:
    return Table(
        title=title,
        columns=["Model", "P", "R|x"],
        groups=[("", 1), ("Diagnoses 诊断", 2)],
        blocks=[Block("Zero-shot", [["Tiny <script>", "1.00", "0.50"], ["Oracle", "2", "3"]]),
                Block("One-shot", [["Oracle", "4", "5"]])],
        notes=["† smoke model", "a <note> & more"],
    )


def test_markdown_reads_back_blocks_header_groups_and_notes() -> None:
    parsed = parse_table(to_markdown(sample_table()), Path("t.md"))
    assert parsed.title == "Sample <b>table</b>"
    assert parsed.header == ["", "Diagnoses 诊断", ""]
    assert parsed.align == "lrr"
    assert [(r.kind, r.cells) for r in parsed.rows] == [
        ("head", ["Model", "P", "R|x"]),
        ("block", ["Zero-shot", "", ""]),
        ("data", ["Tiny <script>", "1.00", "0.50"]),
        ("data", ["Oracle", "2", "3"]),
        ("block", ["One-shot", "", ""]),
        ("data", ["Oracle", "4", "5"]),
    ]
    assert parsed.notes == ["† smoke model", "a <note> & more"]


def test_markdown_errors_name_the_file_and_line() -> None:
    text = to_markdown(sample_table()).replace("| Oracle | 2 | 3 |", "| Oracle | 2 |")
    with pytest.raises(DataError, match=r"t\.md, row 8: 2 cells, the header has 3"):
        parse_table(text, Path("t.md"))
    with pytest.raises(DataError, match=r"t\.md, row 1"):
        parse_table("no table\n", Path("t.md"))


def identity(figures: dict | None = None) -> dict:
    return {
        "grid": "demo<x>",
        "smoke_models": ["tiny_llama"],
        "credentialed": False,
        "tables": [
            {"table": "leaderboard", "section": "leaderboard", "title": "Board",
             "caption": "All & everything", "identity": "1" * 64},
            {"table": "t2", "section": "medcalc", "title": "Accuracy <i>",
             "caption": "Per category </figcaption><script>alert(1)</script>",
             "identity": "2" * 64},
        ],
        "figures": figures or {},
    }


def page(figures: list[Figure] | None = None, ident: dict | None = None) -> str:
    parsed = parse_table(to_markdown(sample_table()), Path("t.md"))
    return render_page(ident or identity(), {"leaderboard": parsed, "t2": parsed},
                       figures or [], CODE)


def test_page_escapes_every_text_and_is_self_contained() -> None:
    html = page()
    assert "<script" not in html and "<b>table" not in html and "<note>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "Tiny &lt;script&gt;" in html and "Accuracy &lt;i&gt;" in html
    assert not re.search(r"(src|href)=\"(?!#|data:)", html)  # no external resource at all
    assert "http" not in html
    assert html == page()  # equal inputs, equal bytes
    assert "abc123" in html and "tiny_llama" in html and "carry no meaning" in html
    assert "1" * 64 in html and "2" * 64 in html


def test_leaderboard_section_comes_first_and_tables_render_blocks() -> None:
    html = page()
    sections = re.findall(r'<section id="([^"]+)">', html)
    assert sections == ["leaderboard", "medcalc", "key"]
    table = table_html(parse_table(to_markdown(sample_table()), Path("t.md")))
    assert '<tr class="block"><th colspan="3">Zero-shot</th></tr>' in table
    assert '<tr class="head"><th style="text-align:left">Model</th>' in table
    assert "<li>a &lt;note&gt; &amp; more</li>" in table


def test_notes_render_their_markup_and_the_leaderboard_links_to_reading_notes() -> None:
    reading = ("Reading: text copied from the prompt earns nothing. The paper's literal reading "
               "gives: Tiny medcalc Completely wrong (share) 0.963 (here 0.5); and 2 more "
               "(each cell's score summary, `literal`).")
    table = sample_table()
    table.notes.append(reading)
    parsed = parse_table(to_markdown(table), Path("t.md"))
    html = render_page(identity(), {"leaderboard": parsed, "t2": parsed}, [], CODE)
    assert "`" not in html and "<code>literal</code>" in html
    board = html[html.index('id="notes-leaderboard"'):html.index('<section id="medcalc">')]
    assert "0.963" not in board  # the leaderboard does not repeat the table's note
    assert '<a href="#notes-t2">MedCalc-Bench: Accuracy &lt;i&gt;</a>' in board
    notes = html[html.index('id="notes-t2"'):]
    assert "0.963 (here 0.5)" in notes[:notes.index("</ul>")]
    # every table has a caption, in a box that scrolls sideways when it is wider
    assert html.count("<table") == html.count('<caption class="sr">') == 2
    assert html.count('<div class="scroll" role="region" tabindex="0"') == 2


def test_the_page_carries_the_key_to_its_words() -> None:
    from clineval.report.glossary import RULES, VERDICTS

    html = page()
    key = html[html.index('<section id="key">'):]
    for word in (*VERDICTS, "baseline", "not known", "literal", "robust", "scoring identity",
                 "credentialed", "‡", *RULES["clibench"], *RULES["meddisk"]):
        assert f"<dt>{word}</dt>" in key, word
    assert '<a href="#key">' in html


def test_figures_are_embedded_as_png_data_in_their_section() -> None:
    entry = {"title": "Calibration", "caption": "Bars <b>", "section": "medcalc"}
    html = page([Figure("calib", entry, PNG)], identity({"calib": entry}))
    src = re.search(r'<img src="data:image/png;base64,([^"]+)" alt="Calibration\. Bars '
                    r'&lt;b&gt;">', html)
    assert src and base64.b64decode(src.group(1)) == PNG
    medcalc = html[html.index('<section id="medcalc">'):]
    assert medcalc.index('id="figure-calib"') < medcalc.index("</section>")
    # the drawing shows the title and caption: the page repeats them only as alt text
    assert html.count("Bars &lt;b&gt;") == 1 and "<figcaption>" not in html.split(
        'id="figure-calib"')[1]
    assert "<img" not in page()  # an empty figure list: no image at all


def test_report_text_needs_exactly_the_identitys_tables(tmp_path: Path) -> None:
    md = tmp_path / "t2.md"
    md.write_text(to_markdown(sample_table()))
    with pytest.raises(DataError, match=r"identity\.json, field 'tables'.*leaderboard"):
        report_text(identity(), {"t2": md}, {}, {"t2": md}, CODE, Path("identity.json"))


def test_rst_escape_keeps_captions_plain_text() -> None:
    assert rst_escape("a *star*, `code`, x_ and |sub|") == (
        r"a \*star\*, \`code\`, x\_ and \|sub\|")


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


def test_report_identity_holds_captions_that_table_identities_leave_out(in_repo) -> None:
    plan = build_plan(REPO / "conf", [])
    report = plan.identities["report/index"]["identity"]
    assert report["tables"][0]["table"] == "leaderboard"
    sections = [t["section"] for t in report["tables"]]
    assert sections[1:] == sorted(sections[1:]) and "leaderboard" not in sections[1:]
    assert report["smoke_models"] == ["tiny_llama"] and set(report["figures"]) == set(plan.figures)
    assert report["figures"]["clue_levels"] == {
        "title": plan.cfg["figures"]["clue_levels"]["title"],
        "caption": plan.cfg["figures"]["clue_levels"]["caption"], "section": "clue",
        "identity": plan.identities["figures/clue_levels"]["sha"]}
    assert all(t["caption"] for t in report["tables"])
    edited = build_plan(REPO / "conf", ["tables.medcalc_table2.caption=Another caption."])
    assert edited.identities["tables/medcalc_table2"] == plan.identities["tables/medcalc_table2"]
    assert edited.identities["report/index"]["sha"] != plan.identities["report/index"]["sha"]
    title = build_plan(REPO / "conf", ["tables.medcalc_table2.title=Another title"])
    assert title.identities["tables/medcalc_table2"] != plan.identities["tables/medcalc_table2"]
    assert title.identities["report/index"]["sha"] != plan.identities["report/index"]["sha"]


def test_a_table_spec_needs_a_caption(in_repo) -> None:
    with pytest.raises(ConfigError, match=r"tables\.medcalc_table2.*caption"):
        build_plan(REPO / "conf", ["~tables.medcalc_table2.caption"])


GROUPED = """## Grouped

|  | Chest |  | Misc. |  |
|:---|---:|---:|---:|---:|
| **Model** | **R-1** | **BLEU** | **R-1** | **BLEU** |
| **Zero-shot** |  |  |  |  |
| Oracle | 1 | 2 | 3 | 4 |
"""


def test_header_groups_span_their_columns_in_one_head() -> None:
    table = table_html(parse_table(GROUPED, Path("g.md")))
    head = table[table.index("<thead>"):table.index("</thead>")]
    assert ('<tr><th></th><th colspan="2" scope="colgroup">Chest</th>'
            '<th colspan="2" scope="colgroup">Misc.</th></tr>') in head
    assert '<tr class="head"><th style="text-align:left">Model</th>' in head
    assert '<tr class="block"><th colspan="5">Zero-shot</th></tr>' in table


def test_the_key_explains_the_rules_each_scorer_names() -> None:
    from clineval.benchmarks.clue.extract import (
        ANSWERED,
        CONFLICTING,
        COPIED_EXAMPLE,
        TEXT_MISMATCH,
    )
    from clineval.benchmarks.medcalc.reading import READ
    from clineval.report.glossary import covered

    clue = (*ANSWERED, CONFLICTING, COPIED_EXAMPLE, TEXT_MISMATCH, "marked", "whole_output",
            "no_label", "ambiguous", "bad_letter", "listed_options", "no_answer", "no_codes")
    assert all(covered("clue", status) for status in clue)
    assert all(covered("medcalc", f"{s}: a detail") for s in (*READ, "not_found", "error"))
    assert covered("meddisk", "pattern; unanswered: no entity") and covered("meddisk", "fallback")
    assert covered("medeval", "unqualified: off format")
    assert covered("medcalc", "not_found: no answer field; official extraction raises")
    assert covered("clibench", "no_decision: allergy")
    assert not covered("medeval", "qualified; overlong") and not covered("clue", "pattern")
