"""Progress bars: drawn on a terminal, silent in logs and batch jobs."""

from __future__ import annotations

import io
import sys

import pytest

from clineval.workflow.progress import progress, progress_bar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("terminal", [True, False])
def test_bars_show_on_a_terminal_only(monkeypatch, terminal):
    stream = Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    assert list(progress(range(3), "scoring", unit="cell")) == [0, 1, 2]
    with progress_bar(4, "tiny_llama/medcalc/cot", unit="req") as bar:
        bar.update(2)
        bar.update(2)
    shown = stream.getvalue()
    if terminal:
        assert "scoring" in shown and "3/3" in shown
        assert "tiny_llama/medcalc/cot" in shown and "4/4" in shown
    else:
        assert shown == ""
