"""MedCalc-Bench Table 2: accuracy per category, one block per prompting mode."""

from __future__ import annotations

from typing import Any

from clineval.benchmarks.base.settings import read_own
from clineval.benchmarks.medcalc.settings import Table2
from clineval.tables.format import SMOKE_MARK, fmt, smoke_note
from clineval.tables.render import Block, Table, link

# The paper's column order: equation-based, then rule-based, then the average over all rows.
COLUMNS = (
    ("lab", "Lab"),
    ("physical", "Phys."),
    ("date", "Date"),
    ("dosage", "Dosage"),
    ("risk", "Risk"),
    ("severity", "Sev."),
    ("diagnosis", "Diag."),
)
MODE_TITLES = {
    "zero_shot": "Zero-shot Direct Prompting",
    "cot": "Zero-shot CoT Prompting",
    "one_shot": "One-shot CoT Prompting",
}
EXTRACTION_NOTES = {
    "official": "official = the official MedCalc-Bench answer extraction, quirks included "
    "(comparable with the paper)",
    "robust": "robust = what a careful grader accepts (pretty-printed or fenced JSON, units, "
    "thousands separators, worded dates and weeks/days; see docs/medcalc.md)",
}


def _cell(stats: dict[str, Any], layout: Table2,
          interval: dict[str, Any] | None = None) -> str:
    """Accuracy in %, ± its standard error (unless hidden) and its bootstrap ``interval``
    (``{low, high}`` as fractions; the average column, when the spec shows intervals)."""
    decimals = layout.decimals
    text = fmt(100.0 * stats["accuracy"], decimals) if stats["n"] else "–"
    se_spec = layout.std_error
    if stats["n"] and se_spec.show:
        scale = 1.0 if se_spec.scale == "fraction" else 100.0
        text += f" ± {fmt(scale * stats['se'], se_spec.decimals)}"
    if stats["n"] and interval and interval.get("low") is not None:
        text += (f" [{fmt(100.0 * interval['low'], decimals)}, "
                 f"{fmt(100.0 * interval['high'], decimals)}]")
    return text


def _uncertainty_note(spec: dict[str, Any], layout: Table2) -> str:
    """What the numbers are and which uncertainty the table shows beside them."""
    se_spec = layout.std_error
    parts = ["Accuracy in %"]
    if se_spec.show:
        parts.append("± the binomial standard error " + (
            "as a proportion, as in the paper"
            if se_spec.scale == "fraction" else "in percentage points"))
    if "interval_level" in spec:
        parts.append(f"Avg. [low, high]: its {100 * spec['interval_level']:g}% percentile "
                     "bootstrap interval (examples resampled; docs/statistics.md)")
    return "; ".join(parts) + "."


def build_table(spec: dict[str, Any], cells: list[dict[str, Any]]) -> Table:
    """``cells``: dicts with model, mode, display fields and the cell's score summary."""
    layout: Table2 = read_own(Table2, spec, "table")
    extractions = list(layout.extractions or ["official"])
    columns = ["Model", "Size", "Extraction", *(label for _, label in COLUMNS), "Avg."]
    blocks: list[Block] = []
    records: list[dict[str, Any]] = []
    smoke: list[str] = []
    for mode in spec["modes"]:
        rows, sources = [], []
        for cell in (c for c in cells if c["mode"] == mode):
            name = cell["display_name"] + (SMOKE_MARK if cell["smoke"] else "")
            if cell["smoke"] and cell["display_name"] not in smoke:
                smoke.append(cell["display_name"])
            for setting in extractions:
                result = cell["summary"][setting]
                stats = [result["per_category"][key] for key, _ in COLUMNS] + [result["overall"]]
                interval = ((cell.get("intervals") or {}).get(f"accuracy.{setting}")
                            if "interval_level" in spec else None)
                rows.append([name, str(cell["size"]), setting,
                             *(_cell(s, layout) for s in stats[:-1]),
                             _cell(stats[-1], layout, interval)])
                sources.append([[], [], [], *(
                    link(cell, setting, {"category": key} if key != "overall" else None,
                         s["n"], s["correct"]) if s["n"] else []
                    for (key, _), s in zip([*COLUMNS, ("overall", "Avg.")], stats, strict=True))])
                for (key, _), s in zip([*COLUMNS, ("overall", "Avg.")], stats, strict=True):
                    records.append(
                        {
                            "mode": mode,
                            "model": cell["model"],
                            "extraction": setting,
                            "category": key,
                            "n": s["n"],
                            "correct": s["correct"],
                            "accuracy": fmt(100.0 * s["accuracy"], 4) if s["n"] else "",
                            "se": fmt(s["se"], 6) if s["n"] else "",
                        }
                    )
        blocks.append(Block(MODE_TITLES.get(mode, mode), rows, sources))
    notes = [
        _uncertainty_note(spec, layout),
        *(EXTRACTION_NOTES[s] for s in extractions if s in EXTRACTION_NOTES),
        *spec.get("context_notes", []),
    ]
    if smoke:
        notes.append(smoke_note(smoke))
    return Table(spec["title"], columns, blocks, notes, records)
