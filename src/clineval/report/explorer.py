"""The explorer's pages: one per cell (its examples one by one), one per model pair and cell
(the examples where their outcomes differ) and an index of both.

Each page is one self-contained HTML file: inline CSS, its data as JSON in a
``<script type="application/json">`` element, and an inline script that filters and pages
through it (50 examples a page) and builds each example's elements with ``textContent``, so no
text of the data is ever read as HTML. No external URL: the pages open offline. Equal inputs
give equal bytes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from clineval.benchmarks.base.reading import VERDICTS
from clineval.report.examples import FLAGS

#: Examples on one page of a cell's list.
PAGE_SIZE = 50

_STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1b1f24;
background:#fff;line-height:1.45}
header,main,footer{max-width:1200px;margin:0 auto;padding:0 1.5rem}
header{padding-top:1rem;border-bottom:1px solid #d0d7de;padding-bottom:.6rem}
h1{margin:.4rem 0;font-size:1.5rem}nav a{margin-right:1rem}code{font-size:.9em}
.warning{background:#fff8c5;border:1px solid #d4a72c;padding:.5rem .8rem;border-radius:4px}
.siblings{font-size:.85rem;color:#424a53}.siblings a{margin-right:.6rem}
#filters{position:sticky;top:0;background:#f6f8fa;border:1px solid #d0d7de;border-radius:4px;
padding:.5rem .8rem;margin:1rem 0;z-index:1}
#filters fieldset{display:inline-block;border:0;margin:0 1rem 0 0;padding:0}
#filters legend{float:left;font-weight:600;margin-right:.5rem}
#filters label{margin-right:.6rem;white-space:nowrap}
.pager{margin:.6rem 0}.pager button{margin:0 .4rem}
article{border:1px solid #d0d7de;border-radius:6px;margin:1rem 0;padding:.6rem .9rem}
article>h3{margin:.1rem 0 .4rem;font-size:1rem}
.badge{display:inline-block;border-radius:3px;padding:0 .4rem;margin-left:.4rem;font-size:.8rem;
font-weight:600;color:#fff;background:#57606a}
.badge.right,.badge.a-right{background:#1a7f37}.badge.wrong{background:#cf222e}
.badge.b-right{background:#8250df}
.badge.unanswered{background:#9a6700}.badge.scored{background:#0969da}
.badge.flag{background:#fff;color:#1b1f24;border:1px solid #8c959f;font-weight:400}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.1rem .8rem;margin:.3rem 0}
dt{font-weight:600;color:#424a53}dd{margin:0;overflow-wrap:anywhere}
.sides{display:grid;grid-template-columns:repeat(auto-fit,minmax(24rem,1fr));gap:.8rem}
.side h4{margin:.3rem 0}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fa;border:1px solid #d0d7de;
border-radius:4px;padding:.4rem .6rem;margin:.2rem 0;font-size:.82rem;max-height:28rem;
overflow:auto}
table{border-collapse:collapse;font-size:.82rem;margin:.4rem 0;width:100%}
th,td{border:1px solid #d0d7de;padding:.2rem .4rem;text-align:left;vertical-align:top;
overflow-wrap:anywhere}thead th{background:#f6f8fa}td.detail{color:#424a53}
details.prompt{margin:.4rem 0}details.prompt summary{cursor:pointer;color:#0969da}
.role{font-weight:600;font-size:.8rem;color:#57606a;margin-top:.4rem}
footer{border-top:1px solid #d0d7de;margin-top:2rem;padding-bottom:2rem;font-size:.8rem}
""".strip()

#: The pages' script: filters, pages and builds the examples (textContent only).
_SCRIPT = (Path(__file__).parent / "explorer.js").read_text(encoding="utf-8").strip()
#: A cell page's grading panel (clineval.report.grades), after the pages' script.
_GRADES = (Path(__file__).parent / "grades.js").read_text(encoding="utf-8").strip()

#: Labels of the tags a page filters on.
LABELS = {"right": "right", "wrong": "wrong", "unanswered": "unanswered",
          "scored": "scored (no right or wrong)", "cut": "cut at max_tokens",
          "loop": "ended in a repetition loop", "copied": "copied from the prompt"}


@dataclass(frozen=True)
class Group:
    """A filter group: its checkboxes' tags; ``any`` keeps an example with one checked tag,
    ``all`` one with every checked tag (none checked: no condition)."""

    name: str
    tags: tuple[str, ...]
    kind: str
    checked: bool


@dataclass
class Page:
    """What a page shows beside its data: title, links, warnings and filters."""

    title: str
    heading: str
    lines: list[str]
    nav: list[tuple[str, str]]
    warnings: list[str] = field(default_factory=list)
    siblings: list[tuple[str, list[tuple[str, str]]]] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    view_label: str = "Reading"
    sides: list[str] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=lambda: dict(LABELS))
    no_prompt: str = ""


def _json(value: Any) -> str:
    """JSON for a ``<script>`` element: ``<`` escaped, so its text never closes the element."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True,
                      separators=(",", ":")).replace("<", "\\u003c")


def _links(pairs: Sequence[tuple[str, str]]) -> str:
    return " ".join(f'<a href="{escape(href)}">{escape(label)}</a>' for label, href in pairs)


def _head(title: str, script: bool) -> list[str]:
    return ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{escape(title)}</title>", f"<style>\n{_STYLE}\n</style>", "</head>",
            "<body>" if not script else '<body data-ready="false">']


def _header(page: Page) -> list[str]:
    lines = ["<header>", f"<nav>{_links(page.nav)}</nav>", f"<h1>{escape(page.heading)}</h1>",
             *(f"<p>{escape(line)}</p>" for line in page.lines),
             *(f'<p class="warning">{escape(w)}</p>' for w in page.warnings)]
    for label, links in page.siblings:
        if links:
            lines.append(f'<p class="siblings">{escape(label)}: {_links(links)}</p>')
    return [*lines, "</header>"]


def _filters(page: Page, views: Sequence[str]) -> list[str]:
    lines = ['<form id="filters" onsubmit="return false">']
    if len(views) > 1:
        options = "".join(f'<option value="{escape(v)}">{escape(v)}</option>' for v in views)
        lines.append(f'<label>{escape(page.view_label)} <select id="view">{options}</select>'
                     "</label>")
    for group in page.groups:
        boxes = "".join(
            f'<label><input type="checkbox" data-group="{escape(group.name)}" '
            f'value="{escape(tag)}"{" checked" if group.checked else ""}><span> '
            f"{escape(page.labels.get(tag, tag))}</span></label>" for tag in group.tags)
        lines.append(f"<fieldset><legend>{escape(group.name)}</legend>{boxes}</fieldset>")
    lines += ['<label>Example id <input id="search" type="search" size="14"></label>',
              "</form>"]
    return lines


_PAGER = ('<div class="pager"><button type="button" class="prev">« previous</button>'
          '<span class="where"></span><button type="button" class="next">next »</button></div>')


def examples_page(page: Page, document: Mapping[str, Any]) -> str:
    """A page of examples (a cell's, or a pair's) with its filters and pager."""
    config = {"groups": [{"name": g.name, "kind": g.kind} for g in page.groups],
              "flags": list(FLAGS), "labels": page.labels, "sides": page.sides,
              "page_size": PAGE_SIZE, "no_prompt": page.no_prompt}
    lines = [*_head(page.title, script=True), *_header(page), "<main>",
             *_filters(page, document["views"]), _PAGER, '<div id="examples"></div>', _PAGER,
             "<noscript><p class=\"warning\">The examples are listed by the page's script: "
             "allow scripts for this file.</p></noscript>", "</main>",
             f'<script type="application/json" id="data">{_json(document)}</script>',
             f'<script type="application/json" id="config">{_json(config)}</script>',
             f"<script>\n{_SCRIPT}\n</script>",
             *([f"<script>\n{_GRADES}\n</script>"] if "grading" in document else []),
             "</body>", "</html>"]
    return "\n".join(lines) + "\n"


def cell_groups() -> list[Group]:
    """A cell page's filters: the verdicts (all shown at first) and the two flags."""
    return [Group("Verdict", VERDICTS, "any", True), Group("Only", FLAGS, "all", False)]


def pair_groups(outcomes: bool) -> list[Group]:
    """A pair page's filter: which model's outcome is right (``outcomes``: the benchmark has
    0/1 outcomes), else none (every example listed differs)."""
    return [Group("Right", ("a right", "b right"), "any", True)] if outcomes else []


@dataclass(frozen=True)
class IndexEntry:
    """A row of the index: a page, its label and its counts."""

    href: str
    label: tuple[str, ...]
    counts: Mapping[str, int]
    note: str = ""


def index_page(title: str, nav: list[tuple[str, str]], lines: list[str], warnings: list[str],
               sections: Sequence[tuple[str, str, Sequence[str], Sequence[IndexEntry]]]) -> str:
    """The index of the explorer's pages: per section (id, heading, column labels, entries)
    a table of links with their counts. No script."""
    page = Page(title, title, lines, nav, warnings)
    body = [*_head(title, script=False), *_header(page), "<main>"]
    for anchor, heading, columns, entries in sections:
        body += [f'<section id="{escape(anchor)}">', f"<h2>{escape(heading)}</h2>", "<table>",
                 "<thead><tr>" + "".join(f"<th>{escape(c)}</th>" for c in columns)
                 + "</tr></thead>", "<tbody>"]
        for entry in entries:
            *label, last = entry.label
            cells = [*(escape(part) for part in label),
                     f'<a href="{escape(entry.href)}">{escape(last)}</a>',
                     *(str(entry.counts.get(c, "")) for c in columns[len(entry.label):-1]),
                     escape(entry.note)]
            body.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        body += ["</tbody></table>", "</section>"]
    body += ["</main>", "</body>", "</html>"]
    return "\n".join(body) + "\n"
