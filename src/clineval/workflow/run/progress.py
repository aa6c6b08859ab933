"""The console side of progress: the Snakemake process prints its jobs' progress lines.

Every rule sends its step's output to the job's log, so a step's own lines
(:mod:`clineval.progress`) never reach the terminal that started Snakemake. A step also writes
its latest line to ``<results>/logs/progress/<step>/<job>.txt``; the :class:`Reporter`, started
by the Snakefile's ``onstart`` handler in the main Snakemake process, reads that folder every
:data:`POLL_SECONDS` and prints each new line once, as ``clineval: <job>: <line>``. It runs
where Snakemake runs, so the console shows the same lines for local jobs and for SLURM jobs on
other nodes (the folder is on the file system they share); files from earlier runs are passed
over. A step that writes no line (short work) leaves the console as it was.
"""

from __future__ import annotations

import atexit
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from clineval.progress import FOLDER

#: How often the folder is read.
POLL_SECONDS = 1.0


class Reporter:
    """Prints the new lines of the progress files below ``folder`` until stopped."""

    def __init__(self, folder: Path, send: Callable[[str], None] | None = None,
                 poll: float = POLL_SECONDS):
        self.folder = folder
        self.send = send or (lambda line: print(line, file=sys.stderr, flush=True))
        self.poll_seconds = poll
        self.shown: dict[Path, str] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> Reporter:
        """Pass over the files there now (earlier runs), then watch in a daemon thread."""
        self.shown = dict(self._lines())
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name="clineval-progress-console")
        self._thread.start()
        return self

    def _lines(self) -> list[tuple[Path, str]]:
        found = []
        try:
            paths = sorted(self.folder.rglob("*.txt")) if self.folder.is_dir() else []
        except OSError:
            return found
        for path in paths:
            try:
                found.append((path, path.read_text(encoding="utf-8").strip()))
            except OSError:
                continue  # replaced while read: the next poll reads it
        return found

    def poll(self) -> None:
        """Print each file's line that is new since the last poll."""
        for path, line in self._lines():
            if line and self.shown.get(path) != line:
                self.shown[path] = line
                self.send(f"clineval: {line}")

    def _run(self) -> None:
        while not self._stop.wait(self.poll_seconds):
            self.poll()

    def stop(self) -> None:
        """Stop watching, after printing what the jobs wrote last."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self.poll()


_RUNNING: list[Reporter] = []


def start(results: Path) -> Reporter:
    """The reporter of the grid whose results folder is ``results`` (one per process)."""
    stop()
    reporter = Reporter(results / FOLDER).start()
    if not _RUNNING:
        atexit.register(stop)  # no line half written while the interpreter ends
    _RUNNING.append(reporter)
    return reporter


def stop() -> None:
    """Stop the running reporter, if any (the Snakefile's onsuccess and onerror handlers)."""
    while _RUNNING:
        _RUNNING.pop().stop()
