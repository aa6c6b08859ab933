"""The explorer's pages: one per cell (its examples one by one), one per model pair and cell
(the examples where their outcomes differ) and an index of both.

Each page is one self-contained HTML file: inline CSS, its data as JSON in a
``<script type="application/json">`` element, and an inline script that filters and pages
through it (50 examples a page) and builds each example's elements with ``textContent``, so no
text of the data is ever read as HTML. Without scripts, a ``<noscript>`` list shows the first
page's examples as escaped text. Each page carries the key to its words
(:mod:`clineval.report.glossary`); Chinese text is marked ``lang="zh"``. No external URL: the
pages open offline. Equal inputs give equal bytes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from clineval.benchmarks.base.reading import VERDICTS
from clineval.report.examples import FLAGS
from clineval.report.glossary import key_html

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
th,table.judgements :is(td:nth-child(-n+2),td:nth-child(4)){overflow-wrap:normal;word-break:normal;
hyphens:manual}
.scroll{max-width:100%;overflow-x:auto}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);
white-space:nowrap}
details.key{margin:.8rem 0;font-size:.88rem}details.key>summary{cursor:pointer;color:#0969da}
details.key h2{font-size:1.1rem}details.key h3{font-size:.95rem;margin:.7rem 0 .2rem}
details.key dl{gap:.15rem .9rem}details.key dt{color:#1b1f24}
h2.examples{font-size:1.15rem;margin:1rem 0 .2rem}
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
    #: The benchmark whose rules the page's key explains ("": every benchmark's).
    benchmark: str = ""


#: Characters of Chinese text (CJK ideographs and punctuation, full-width forms).
_CHINESE = re.compile("[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


def lang(text: str) -> str:
    """The ``lang`` attribute of an element that holds ``text``: Chinese where it has Chinese
    characters, else none (the page's English)."""
    return ' lang="zh"' if _CHINESE.search(text) else ""


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
             *(_text("p", line) for line in page.lines),
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


def _text(tag: str, text: str, css: str = "") -> str:
    """An element holding ``text`` escaped (marked Chinese where it is)."""
    cls = f' class="{css}"' if css else ""
    return f"<{tag}{cls}{lang(text)}>{escape(text)}</{tag}>"


def _side_html(side: Mapping[str, Any], label: str, texts: Sequence[str]) -> list[str]:
    """One model's part of an example as static HTML (the script's ``sideNode``)."""
    finish = side.get("finish") or "not known"
    tokens = f", {side['tokens']} tokens" if side.get("tokens") is not None else ""
    lines = ['<section class="side">', *([_text("h4", label)] if label else []),
             _text("div", f"Output (finish: {finish}{tokens})", "role"),
             _text("pre", str(side["output"]), "output"),
             *([_text("div", f"Copied from the prompt: {side['copied'].get('kind')}, "
                      f"{round(100 * (side['copied'].get('share') or 0))}% of the output",
                      "role")] if side.get("copied") else []),
             '<table class="judgements"><caption class="sr">How the scorer read '
             f"{escape(label or 'the output')}</caption><thead><tr>"
             + "".join(f"<th>{h}</th>" for h in ("Reading", "Verdict", "Read", "Rule", "Score"))
             + "</tr></thead><tbody>"]
    for j in side["judgements"]:
        lines.append("<tr>" + "".join(_text("td", str(c or "–")) for c in (
            j["name"], j["verdict"], j["read"], j["rule"], j["score"])) + "</tr>")
        for name, text in j["details"]:
            lines.append('<tr class="detail"><td></td>' + _text("td", name) + _text("td", text)
                         + "<td></td><td></td></tr>")
    lines.append("</tbody></table>")
    if side.get("prompt"):
        lines.append(f'<details class="prompt"><summary>Prompt as sent ({len(side["prompt"])} '
                     "messages)</summary>")
        for role, index in side["prompt"]:
            lines += [_text("div", role, "role"), _text("pre", texts[index], "message")]
        lines.append("</details>")
    return [*lines, "</section>"]


def static_examples(page: Page, document: Mapping[str, Any]) -> list[str]:
    """The first page of examples under the first view, as the ``<noscript>`` list: the page
    lists its examples without scripts, every text escaped."""
    view = document["views"][0] if document["views"] else ""
    shown = document["examples"][:PAGE_SIZE]
    lines = ["<noscript>", f'<p class="warning">Scripts are off: the first {len(shown)} of '
             f"{len(document['examples'])} examples are listed, under "
             f"{escape(page.view_label.lower())} {escape(view)}; allow scripts for this file to "
             "filter and page through all of them.</p>"]
    for example in shown:
        badges = "".join(
            f'<span class="badge {"flag" if tag in FLAGS else escape(tag.replace(" ", "-"))}">'
            f"{escape(page.labels.get(tag, tag))}</span>"
            for tag in example["tags"].get(view, []))
        lines += [f'<article id="example-{escape(example["id"])}">',
                  f"<h3>{escape(example['id'])}{badges}</h3>", "<dl>",
                  "<dt>Gold</dt>" + _text("dd", example["gold"] or "–"),
                  *(_text("dt", label) + _text("dd", text) for label, text in example["details"]),
                  "</dl>", '<div class="sides">']
        for i, side in enumerate(example["sides"]):
            lines += _side_html(side, page.sides[i] if i < len(page.sides) else "",
                                document["texts"])
        lines += ["</div>", "</article>"]
    return [*lines, "</noscript>"]


def _readings(document: Mapping[str, Any]) -> list[str]:
    """The names of the readings the page's examples are judged under, in order."""
    return list(dict.fromkeys(j["name"] for e in document["examples"] for side in e["sides"]
                              for j in side["judgements"]))


def examples_page(page: Page, document: Mapping[str, Any]) -> str:
    """A page of examples (a cell's, or a pair's) with its key, filters and pager."""
    config = {"groups": [{"name": g.name, "kind": g.kind} for g in page.groups],
              "flags": list(FLAGS), "labels": page.labels, "sides": page.sides,
              "page_size": PAGE_SIZE, "no_prompt": page.no_prompt}
    key = key_html(2, [page.benchmark] if page.benchmark else None, _readings(document))
    lines = [*_head(page.title, script=True), *_header(page), "<main>",
             '<details class="key"><summary>Key: what the words on this page mean</summary>',
             key, "</details>", *_filters(page, document["views"]),
             '<h2 class="examples">Examples</h2>', _PAGER, '<div id="examples"></div>', _PAGER,
             *static_examples(page, document), "</main>",
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
        body += [f'<section id="{escape(anchor)}">', f"<h2>{escape(heading)}</h2>",
                 f'<div class="scroll" role="region" tabindex="0" aria-label="{escape(heading)}">',
                 f'<table><caption class="sr">{escape(heading)}</caption>',
                 "<thead><tr>" + "".join(f"<th>{escape(c)}</th>" for c in columns)
                 + "</tr></thead>", "<tbody>"]
        for entry in entries:
            *label, last = entry.label
            cells = [*(escape(part) for part in label),
                     f'<a href="{escape(entry.href)}">{escape(last)}</a>',
                     *(str(entry.counts.get(c, "")) for c in columns[len(entry.label):-1]),
                     escape(entry.note)]
            body.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        body += ["</tbody></table>", "</div>", "</section>"]
    body += ['<section id="key">', key_html(2), "</section>", "</main>", "</body>", "</html>"]
    return "\n".join(body) + "\n"
