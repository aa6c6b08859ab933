"""The report page: one HTML file with inline CSS and images as ``data:`` URIs, no scripts and
no external URL, so it opens offline. Every text is escaped; equal inputs give equal bytes.

A table value links to the examples behind it (``links``: the cells of each value, the table
step's ``<table>.cells.json``): to its cell's page of the explorer (``examples/``), or, for a
value of several cells (a level score, a leaderboard column), to the list of its cells at the
end of the page."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from html import escape
from statistics import fmean
from typing import Any
from urllib.parse import quote, urlencode

from clineval.benchmarks import names, title
from clineval.report.glossary import key_html
from clineval.report.markdown import MarkdownTable, inline_html
from clineval.tables.format import READING_NOTE
from clineval.tables.leaderboard import LAYOUT as LEADERBOARD

#: Headings of the sections that are no benchmark's (a benchmark's is its declared title).
#: The section of the scorer's agreement with graders (``report.grades``).
AGREEMENT = "agreement"
SECTION_TITLES = {LEADERBOARD: "Leaderboard", AGREEMENT: "Agreement with graders"}
_ALIGN = {"l": "left", "c": "center", "r": "right"}
_STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1b1f24;
background:#fff;line-height:1.45}
header,main,footer{max-width:1200px;margin:0 auto;padding:0 1.5rem}
header{padding-top:1rem;border-bottom:1px solid #d0d7de}
h1{margin:.4rem 0}h2{border-bottom:2px solid #0969da;padding-bottom:.2rem;margin-top:2.2rem}
.warning{background:#fff8c5;border:1px solid #d4a72c;padding:.5rem .8rem;border-radius:4px}
nav a{margin-right:1rem}code{font-size:.9em;overflow-wrap:anywhere}
figure{margin:1.2rem 0 1.8rem}
.scroll{max-width:100%;overflow-x:auto}
table{border-collapse:collapse;font-size:.85rem;margin:.4rem 0}
table.wide{font-size:.75rem}table.wider{font-size:.68rem}
table.wider :is(th,td){padding:.2rem .25rem}
th,td{border:1px solid #d0d7de;padding:.25rem .4rem;overflow-wrap:break-word}
th{overflow-wrap:normal;word-break:normal;hyphens:manual}
thead th{background:#f6f8fa}th[colspan]{text-align:center}
tr.block th{background:#eaeef2;text-align:left}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);
white-space:nowrap}
figcaption{color:#424a53;max-width:60rem}.caption-title{font-weight:600;color:#1b1f24}
ul.notes{font-size:.8rem;color:#57606a;max-width:60rem}
td a{color:inherit;text-decoration:underline dotted #8c959f}p.pairs{font-size:.85rem}
#cells li{font-size:.85rem}
#key{font-size:.9rem;max-width:60rem}
#key dl{display:grid;grid-template-columns:max-content 1fr;gap:.15rem .9rem}
#key dt{font-weight:600}#key dd{margin:0}
img{max-width:100%;height:auto;border:1px solid #d0d7de}
footer{border-top:1px solid #d0d7de;margin-top:2rem;padding-bottom:2rem;font-size:.8rem}
""".strip()


@dataclass(frozen=True)
class Figure:
    """A figure the page shows: its report entry (title, caption, section) and PNG bytes."""

    name: str
    entry: Mapping[str, Any]
    png: bytes


def section_title(section: str) -> str:
    """A section's heading: its benchmark's ``TITLE``, else the section's own name."""
    if section in SECTION_TITLES:
        return SECTION_TITLES[section]
    return title(section) if section in names() else section


def _caption(title: str, caption: str) -> str:
    return (f'<figcaption><span class="caption-title">{escape(title)}.</span> '
            f"{escape(caption)}</figcaption>")


#: Columns from which a table is set in a smaller, then a still smaller font, so that it fits
#: the page's width (its labels wrap between words; a table still wider scrolls in its own
#: box, the page never sideways).
WIDE_COLUMNS, WIDER_COLUMNS = 9, 16


def group_spans(labels: list[str]) -> list[tuple[str, int]]:
    """Header groups read back from the Markdown's group row, where a group's label fills its
    first column and its other columns are empty: (label, span) pairs; columns before the
    first label (the row labels) are one group of their own."""
    spans: list[tuple[str, int]] = []
    for label in labels:
        if spans and not label:
            spans[-1] = (spans[-1][0], spans[-1][1] + 1)
        else:
            spans.append((label, 1))
    return spans


#: Where the explorer's pages are, relative to the report page.
EXAMPLES = "examples"


#: What a table value comes from: per source, a cell's path or a link to part of it (its
#: reading, the examples it covers, their n; :func:`clineval.tables.render.link`).
Source = str | Mapping[str, Any]


def source_of(found: Source) -> Mapping[str, Any]:
    """A source as a link: a bare path is the whole cell."""
    return {"cell": found} if isinstance(found, str) else found


#: The link fields that name the arithmetic the explorer states, in the address's order.
MEASURE_FIELDS = ("measure", "level", "of", "by")


def source_href(found: Source) -> str:
    """The explorer's page of the source's cell, at its reading and examples: the fragment
    (``#view=robust&category=lab&measure=share``) is what the page applies on load;
    ``measure``: the arithmetic the page states (the share of right examples, a CliBench
    level's pooled F1, the mean of a measure; :func:`clineval.tables.render.link`)."""
    entry = source_of(found)
    state = [("view", entry["view"])] if entry.get("view") else []
    state += sorted((entry.get("where") or {}).items())
    if entry.get("measure"):
        state += [(key, entry[key]) for key in MEASURE_FIELDS if entry.get(key)]
    elif entry.get("right") is not None:
        state.append(("measure", "share"))  # the value is the share of right examples
    fragment = urlencode(state, quote_via=quote)
    return f"{EXAMPLES}/{entry['cell']}.html" + (f"#{fragment}" if fragment else "")


def measure_words(entry: Mapping[str, Any]) -> str:
    """The arithmetic a source's ``measure`` names, in words ("" for none)."""
    measure = entry.get("measure")
    if measure in ("precision", "recall", "f1"):
        levels = str(entry.get("level", "")).split(",")
        name = {"f1": "F1"}.get(measure, measure)
        return (f"{name} pooled at level {levels[0]}" if len(levels) == 1
                else f"mean of {name} pooled at each of the levels {', '.join(levels)}")
    if measure == "mean":
        by = f", the mean of each {entry['by']}'s mean" if entry.get("by") else ""
        return f"mean of {entry.get('of')}{by}"
    return ""


def source_words(found: Source) -> str:
    """A source in words: its cell, reading and examples, their n and right ones, and the
    arithmetic its measure names."""
    entry = source_of(found)
    parts = [entry["cell"]]
    if entry.get("view"):
        parts.append(f"reading {entry['view']}")
    parts += [f"{key} {value}" for key, value in sorted((entry.get("where") or {}).items())]
    if entry.get("right") is not None and entry.get("n"):
        parts.append(f"right {entry['right']} of n = {entry['n']} examples")
    elif entry.get("n") is not None:
        parts.append(f"n = {entry['n']} examples")
    if measure_words(entry):
        parts.append(measure_words(entry))
    return ", ".join(parts)


def mean_words(entries: list[Mapping[str, Any]]) -> str:
    """The arithmetic of a value several values make up (each source's ``value``): their mean,
    or, where they carry a ``group``, the mean of each group's mean."""
    groups: dict[str, list[float]] = {}
    for entry in entries:
        groups.setdefault(str(entry.get("group", "")), []).append(float(entry["value"]))
    if list(groups) == [""]:
        values = groups[""]
        return f"mean of the {len(values)} values = {fmean(values):.4f}"
    means = {group: fmean(values) for group, values in groups.items()}
    inner = "; ".join(f"{group}: mean of {len(groups[group])} = {value:.4f}"
                      for group, value in means.items())
    return (f"mean of the {len(means)} groups' means ({inner}) = "
            f"{fmean(means.values()):.4f}")


def value_html(text: str, cells: list[Source], anchor: str) -> str:
    """A table value, linked to the examples behind it: its cell's page at its reading and
    examples, or ``#anchor`` (the list of its sources) when it comes from several; its title
    gives its n (examples; and values and cells for a value of several)."""
    if not cells:
        return escape(text)
    if len(cells) == 1:
        href, title = source_href(cells[0]), source_words(cells[0])
    else:
        entries = [source_of(c) for c in cells]
        paths = list(dict.fromkeys(e["cell"] for e in entries))
        sizes = [e["n"] for e in entries if e.get("n") is not None]
        href = f"#{anchor}"
        title = (f"{len(entries)} values" if all("value" in e for e in entries)
                 else f"{len(entries)} sources") + f" of {len(paths)} cells"
        if len(sizes) == len(entries):
            title += f", n = {sum(sizes)} examples in all"
        title += ": " + ", ".join(paths)
    return f'<a href="{escape(href)}" title="{escape(title)}">{escape(text)}</a>'


def cell_anchor(table: str, row: int, column: int) -> str:
    """The id of the list of cells behind a value of several (row and column from 0)."""
    return f"cells-{table}-{row}-{column}"


def notes_html(notes: Sequence[str], name: str, more: Sequence[str] = ()) -> list[str]:
    """A table's notes as a list (``id`` ``notes-<name>``), their Markdown rendered; ``more``:
    items already HTML."""
    if not notes and not more:
        return []
    return [f'<ul class="notes" id="notes-{escape(name)}">',
            *(f"<li>{inline_html(n)}</li>" for n in notes), *(f"<li>{m}</li>" for m in more),
            "</ul>"]


def reading_links(ident: Mapping[str, Any], tables: Mapping[str, MarkdownTable]) -> str:
    """The leaderboard's note on readings: links to each table's note on its reading, which
    the leaderboard does not repeat ("" when no table has one)."""
    links = [f'<a href="#notes-{escape(e["table"])}">{escape(section_title(e["section"]))}: '
             f'{escape(e["title"])}</a>' for e in ident["tables"]
             if e["section"] != LEADERBOARD
             and any(n.startswith(READING_NOTE) for n in tables[e["table"]].notes)]
    if not links:
        return ""
    return (f"{READING_NOTE} each column reads the outputs as its benchmark's tables do; what "
            "the paper's literal reading gives instead is in their notes: "
            + "; ".join(links) + ".")


def table_html(table: MarkdownTable, links: list[list[list[Source]]] | None = None,
               name: str = "", title: str = "", more: Sequence[str] = ()) -> str:
    """The table as an HTML ``<table>`` captioned ``title`` (for screen readers: the figure's
    caption shows it) in a box of the page's width that scrolls sideways when the table is
    wider (labels never break inside a word): header groups span their columns, block titles
    span the row; then its notes (and ``more``, HTML). ``links``: per data row, the cells
    behind each value (:func:`value_html`; ``name``: the table's, for anchors)."""
    width = len(table.header)
    style = [f' style="text-align:{_ALIGN[a]}"' for a in table.align]
    rows = list(table.rows)
    css = (' class="wider"' if width >= WIDER_COLUMNS
           else ' class="wide"' if width >= WIDE_COLUMNS else "")
    label = escape(title or table.title)
    lines = [f'<div class="scroll" role="region" tabindex="0" aria-label="{label}">',
             f"<table{css}>", f'<caption class="sr">{label}</caption>', "<thead>"]
    if rows and rows[0].kind == "head":  # header groups: a group row over the column labels
        lines.append("<tr>" + "".join(
            f'<th colspan="{span}" scope="colgroup">{escape(label)}</th>' if span > 1
            else f"<th>{escape(label)}</th>" for label, span in group_spans(table.header))
            + "</tr>")
        head = rows.pop(0)
        lines.append('<tr class="head">' + "".join(
            f"<th{s}>{escape(c)}</th>" for c, s in zip(head.cells, style, strict=True))
            + "</tr>")
    else:
        lines.append("<tr>" + "".join(f"<th{s}>{escape(c)}</th>"
                                      for c, s in zip(table.header, style, strict=True))
                     + "</tr>")
    lines += ["</thead>", "<tbody>"]
    data = 0
    for row in rows:
        if row.kind == "block":
            lines.append(f'<tr class="block"><th colspan="{width}">{escape(row.cells[0])}'
                         "</th></tr>")
        elif row.kind == "head":
            lines.append('<tr class="head">' + "".join(
                f"<th{s}>{escape(c)}</th>" for c, s in zip(row.cells, style, strict=True)
            ) + "</tr>")
        else:
            cells = links[data] if links else [[] for _ in row.cells]
            lines.append("<tr>" + "".join(
                f"<td{s}>{value_html(c, found, cell_anchor(name, data, j))}</td>"
                for j, (c, s, found) in enumerate(zip(row.cells, style, cells, strict=True))
            ) + "</tr>")
            data += 1
    lines += ["</tbody></table>", "</div>", *notes_html(table.notes, name, more)]
    return "\n".join(lines)


def _header(ident: Mapping[str, Any], code: Mapping[str, Any]) -> list[str]:
    commit = code.get("commit") or "unknown (not a git checkout)"
    state = " with uncommitted changes" if code.get("dirty") else ""
    lines = [
        "<header>",
        f"<h1>clineval report: grid <code>{escape(str(ident['grid']))}</code></h1>",
        f"<p>Built by clineval {escape(str(code.get('version')))} at git commit "
        f"<code>{escape(commit)}</code>{escape(state)}; report identity "
        f"<code>{escape(code['identity'][:16])}</code>. The identity of each table is listed "
        'at the <a href="#identities">end</a>; the <a href="#key">key</a> says what the '
        "tables' and pages' words mean.</p>",
    ]
    if ident["smoke_models"]:
        names = ", ".join(ident["smoke_models"])
        lines.append(f'<p class="warning">Smoke models ({escape(names)}) have random weights: '
                     "their numbers carry no meaning; they only show that the workflow runs "
                     "end to end.</p>")
    examples = ident.get("examples")
    if examples:
        lines.append(f'<p>Each value of a table links to the examples behind it, one by one; '
                     f'<a href="{EXAMPLES}/index.html">every cell\'s examples</a>.</p>')
        if examples["credentialed"]:
            left = ("embedded" if examples["prompts"] == "always"
                    else f"left out (report.examples.prompts: {examples['prompts']})")
            lines.append('<p class="warning">The example pages beside this report hold text of '
                         "data that may not be shared (credentialed, unreleased or private): "
                         "gold answers and model outputs may repeat patient text; its prompts "
                         f"are {escape(left)}. Share them only where your data use agreement "
                         "allows.</p>")
    if ident.get("recorded_models"):
        names = ", ".join(ident["recorded_models"])
        lines.append(f'<p class="warning">Recorded outputs ({escape(names)}) were read from '
                     "files, not generated by this workflow: the tables mark them § and name "
                     "each file with its sha256.</p>")
    return lines


def _pairs(pairs: list[list[str]]) -> str:
    """Links to the explorer's pages of the model pairs a table compares."""
    links = []
    for a, b in pairs:
        model_a, model_b = a.split("/")[0], b.split("/")[0]
        links.append(f'<a href="pairs/{escape(model_a)}/{escape(b)}.html">{escape(model_a)} vs '
                     f"{escape(model_b)}, {escape(' '.join(b.split('/')[1:]))}</a>")
    return ('<p class="pairs">Examples where the compared models\' outcomes differ: '
            + "; ".join(links) + ".</p>")


def _combined(entry: Mapping[str, Any], table: MarkdownTable,
              links: list[list[list[Source]]]) -> list[str]:
    """The list items of a table's values that come from several cells, each with its cells'
    links (:func:`cell_anchor`)."""
    rows = [r for r in table.rows if r.kind == "data"]
    labels = table.rows[0].cells if table.rows and table.rows[0].kind == "head" else table.header
    items = []
    for i, (row, found) in enumerate(zip(rows, links, strict=True)):
        for j, cells in enumerate(found):
            if len(cells) > 1:
                entries = [source_of(c) for c in cells]
                shown = "; ".join(
                    f'<a href="{escape(source_href(e))}">{escape(e.get("label", e["cell"]))}</a>'
                    + (f" = {escape(e['value'])}" if "value" in e else "")
                    + (f" ({escape(str(e['group']))})" if "group" in e else "")
                    + (f" (n = {e['n']})" if e.get("n") is not None else "")
                    + (f" ({escape(measure_words(e))})" if measure_words(e) else "")
                    for e in entries)
                said = next((e["statistic"] for e in entries if e.get("statistic")), None)
                arithmetic = (f'; <span class="arithmetic">{escape(said)}</span>' if said
                              else f'; <span class="arithmetic">{escape(mean_words(entries))}'
                              "</span>" if all("value" in e for e in entries) else "")
                items.append(f'<li id="{escape(cell_anchor(entry["table"], i, j))}" '
                             f'data-value="{escape(row.cells[j])}">'
                             f"{escape(entry['title'])}: {escape(row.cells[0])}, "
                             f"{escape(labels[j])} ({escape(row.cells[j])}): {shown}"
                             f"{arithmetic}</li>")
    return items


def render_page(
    ident: Mapping[str, Any],
    tables: Mapping[str, MarkdownTable],
    figures: list[Figure],
    code: Mapping[str, Any],
    links: Mapping[str, list[list[list[Source]]]] | None = None,
    agreement: Sequence[str] = (),
) -> str:
    """The whole page: header, the leaderboard first, then per section its tables and figures
    (``ident``: the report identity; ``code``: version, commit, dirty flag and identity sha;
    ``links``: per table, the cells behind each value of its data rows; ``agreement``: the
    body of the section "Agreement with graders", none without)."""
    sections: dict[str, list[str]] = {}
    combined: list[str] = []
    readings = reading_links(ident, tables)
    for entry in ident["tables"]:
        body = sections.setdefault(entry["section"], [])
        found = (links or {}).get(entry["table"])
        shown, more = tables[entry["table"]], []
        if entry["section"] == LEADERBOARD:  # links to the tables' reading notes instead
            shown = replace(shown, notes=[n for n in shown.notes
                                          if not n.startswith(READING_NOTE)])
            more = [readings] if readings else []
        body += [f'<figure id="table-{escape(entry["table"])}">',
                 _caption(entry["title"], entry["caption"]),
                 table_html(shown, found, entry["table"], entry["title"], more),
                 *([_pairs(entry["pairs"])] if entry.get("pairs") else []), "</figure>"]
        if found:
            combined += _combined(entry, tables[entry["table"]], found)
    for figure in figures:
        data = base64.b64encode(figure.png).decode("ascii")
        body = sections.setdefault(figure.entry["section"], [])
        # the drawing holds the title and caption (figures/style.py): shown once, in the
        # image; the alt text repeats them for readers that do not see it
        alt = f'{figure.entry["title"]}. {figure.entry["caption"]}'
        body += [f'<figure id="figure-{escape(figure.name)}">',
                 f'<img src="data:image/png;base64,{data}" alt="{escape(alt)}">', "</figure>"]
    if agreement:
        sections[AGREEMENT] = list(agreement)
    nav = " ".join([*(f'<a href="#{escape(s)}">{escape(section_title(s))}</a>' for s in sections),
                    '<a href="#key">Key</a>'])
    lines = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>clineval report: {escape(str(ident['grid']))}</title>",
             f"<style>\n{_STYLE}\n</style>", "</head>", "<body>",
             *_header(ident, code), f"<nav>{nav}</nav>", "</header>", "<main>"]
    for section, body in sections.items():
        lines += [f'<section id="{escape(section)}">',
                  f"<h2>{escape(section_title(section))}</h2>", *body, "</section>"]
    if combined:
        lines += ['<section id="cells">', "<h2>Values of several cells</h2>",
                  "<p>The cells each value comes from, with their examples.</p>", "<ul>",
                  *combined, "</ul>", "</section>"]
    lines += ['<section id="key">', key_html(2), "</section>"]
    lines += ["</main>", '<footer id="identities">', "<h2>Identities</h2>",
              "<p>Each table was built for this identity (sha256 of every setting and upstream "
              "file it depends on; <code>results/identity/tables/</code>).</p>", "<ul>",
              *(f"<li><code>{escape(e['table'])}</code>: <code>{escape(e['identity'])}</code>"
                "</li>" for e in ident["tables"]),
              "</ul>", "</footer>", "</body>", "</html>"]
    return "\n".join(lines) + "\n"
