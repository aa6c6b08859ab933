"""A figure's frame (title, axes, caption with notes) and its deterministic PNG and SVG bytes.

Bytes depend only on the drawing: fixed font (DejaVu Sans, shipped with matplotlib), fixed DPI,
a fixed SVG hash salt (element ids) and no date or software version in the metadata. No
pyplot: a :class:`~matplotlib.figure.Figure` saves through the Agg (PNG) and SVG canvases, so
no GUI backend is ever chosen.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from matplotlib import rc_context
from matplotlib.axes import Axes
from matplotlib.figure import Figure, SubFigure

DPI = 150
DEFAULT_SIZE = (7.0, 4.0)
RC: dict[str, Any] = {
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "svg.hashsalt": "clineval",
    "svg.fonttype": "path",
    "figure.dpi": 100,
    "savefig.dpi": DPI,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
METADATA = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None}}
CAPTION_LINE_INCHES = 0.17
SMOKE_MARK = "†"


@contextmanager
def style() -> Iterator[None]:
    """The project's matplotlib settings, for drawing and saving."""
    with rc_context(RC):
        yield


def model_label(model: str, models: Mapping[str, Mapping[str, Any]]) -> str:
    """A model's display name, marked † when it is a smoke model (as the tables mark it)."""
    shown = models.get(model, {})
    name = shown.get("display_name") or model
    return f"{name} {SMOKE_MARK}" if shown.get("smoke") else name


def smoke_note(models: Sequence[str], shown: Mapping[str, Mapping[str, Any]]) -> list[str]:
    smoke = [model_label(m, shown) for m in models if shown.get(m, {}).get("smoke")]
    if not smoke:
        return []
    return [f"{SMOKE_MARK} smoke model ({', '.join(smoke)}): tests the pipeline only; "
            "its numbers carry no meaning."]


def frame(spec: Mapping[str, Any], notes: Sequence[str]) -> tuple[Figure, SubFigure]:
    """A figure of the spec's size plus room for its caption and ``notes`` below; returns the
    figure and the sub-figure to draw in (constrained layout)."""
    width, height = (float(v) for v in spec.get("size") or DEFAULT_SIZE)
    text = "\n".join(textwrap.fill(" ".join(part.split()), width=int(width * 15))
                     for part in [spec["caption"], *notes])
    caption_h = CAPTION_LINE_INCHES * (text.count("\n") + 1) + 0.15
    fig = Figure(figsize=(width, height + caption_h), layout="constrained")
    top, bottom = fig.subfigures(2, 1, height_ratios=[height, caption_h])
    top.suptitle(spec["title"], fontsize=11)
    bottom.text(0.02, 0.95, text, ha="left", va="top", fontsize=7.5, color="0.25")
    return fig, top


def interval_note(missing: int) -> list[str]:
    if not missing:
        return []
    return [f"{missing} value(s) have no bootstrap interval and are drawn without an error bar."]


def absent_note(absent: int) -> list[str]:
    if not absent:
        return []
    return [f"{absent} cell(s) have no value and are not drawn."]


def legend(ax: Axes, title: str | None = None) -> None:
    ax.legend(title=title, fontsize=7, title_fontsize=7, loc="upper left",
              bbox_to_anchor=(1.01, 1.0), frameon=False)


def save(fig: Figure) -> dict[str, bytes]:
    """The figure's PNG and SVG bytes (the same drawing gives the same bytes)."""
    out = {}
    for fmt, metadata in METADATA.items():
        buffer = io.BytesIO()
        fig.savefig(buffer, format=fmt, dpi=DPI, metadata=metadata)
        out[fmt] = buffer.getvalue()
    return out
