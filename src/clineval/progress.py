"""Progress of long work, one line at a time: done of total, rate, time left.

A :class:`Tracker` counts what a step has done (requests generated, texts embedded, cells
scored). Once it has run for :func:`interval` seconds (``$CLINEVAL_PROGRESS_SECONDS``, default
:data:`DEFAULT_SECONDS`, at most :data:`MAX_SECONDS`) it writes one line, and another each
interval while it runs, whether or not the count moved (a batch may take minutes), then a last
one when it ends. Short work writes nothing, so no log fills with progress.

The lines go to stderr: the job's log under Snakemake (every rule sends its step's output
there), the terminal for ``clineval score``. A workflow step also names its job and a progress
file (:func:`for_job`): each line replaces the file's content, and the Snakemake process that
started the run prints it on its own console (:mod:`clineval.workflow.run.progress`), locally and
under ``--profile slurm`` alike, where the job runs on another node.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TypeVar

from clineval.io import write_text

T = TypeVar("T")

#: The seconds between two lines (``0``: a line at every step of the count, for tests).
VARIABLE = "CLINEVAL_PROGRESS_SECONDS"
DEFAULT_SECONDS = 20.0
MAX_SECONDS = 30.0
#: Where a workflow job's lines go for the console, below its results folder.
FOLDER = Path("logs") / "progress"


def interval() -> float:
    """``$CLINEVAL_PROGRESS_SECONDS`` (a number, at most :data:`MAX_SECONDS`), else the
    default; a value that is no number is the default."""
    try:
        seconds = float(os.environ.get(VARIABLE, DEFAULT_SECONDS))
    except ValueError:
        seconds = DEFAULT_SECONDS
    return min(max(seconds, 0.0), MAX_SECONDS)


@dataclass
class Channel:
    """Where lines go: stderr (the job's log), and under Snakemake the job's progress file
    read by the console; ``job`` opens each line."""

    job: str | None = None
    file: Path | None = None

    def send(self, line: str) -> None:
        text = f"{self.job}: {line}" if self.job else line
        print(text, file=sys.stderr, flush=True)
        if self.file is not None:
            with contextlib.suppress(OSError):  # a console line lost fails no job
                write_text(self.file, text + "\n")


CHANNEL = Channel()


def for_job(manifest: Path, step: str) -> None:
    """Name the job of a workflow step by its manifest (``<results>/jobs/<step>/<job>.json``)
    and send its lines to ``<results>/logs/progress/<step>/<job>.txt`` too."""
    parts = manifest.parts
    if "jobs" not in parts:
        CHANNEL.job, CHANNEL.file = f"{step} {manifest.stem}", None
        return
    at = len(parts) - 1 - parts[::-1].index("jobs")
    job = Path(*parts[at + 2:]).with_suffix("") if len(parts) > at + 2 else Path(manifest.stem)
    CHANNEL.job = f"{step} {job.as_posix()}"
    CHANNEL.file = Path(*parts[:at]) / FOLDER / step / f"{job.as_posix()}.txt"


def duration(seconds: float) -> str:
    """``45s``, ``2m05s``, ``1h02m``."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def _rate(value: float) -> str:
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}" if value >= 1 else f"{value:.2f}"


class Tracker:
    """``done`` of ``total`` (``unit``) of ``what``, reported one line at a time (module
    docstring); a context manager, or ``close()`` when done."""

    def __init__(self, total: int, what: str, unit: str = "items", *,
                 seconds: float | None = None, clock: Callable[[], float] = time.monotonic,
                 send: Callable[[str], None] | None = None):
        self.total, self.what, self.unit = int(total), what, unit
        self.seconds = interval() if seconds is None else seconds
        self.clock = clock
        self.send = send or CHANNEL.send
        self.done = 0
        self.started = self.last = clock()
        self.lines = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None
        if self.seconds > 0 and self.total > 0:
            self._beat = threading.Thread(target=self._heartbeat, daemon=True,
                                          name="clineval-progress")
            self._beat.start()

    def line(self, final: bool = False) -> str:
        elapsed = self.clock() - self.started
        text = f"{self.what}: {self.done}/{self.total} {self.unit}"
        if final:
            return f"{text}, done in {duration(elapsed)}"
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = (duration((self.total - self.done) / rate) if rate > 0 else "unknown")
        return (f"{text}, {_rate(rate)} {self.unit}/s, ETA {left}, "
                f"{duration(elapsed)} elapsed")

    def _due(self, now: float) -> bool:
        return now - self.last >= self.seconds

    def _emit(self, final: bool = False) -> None:
        self.last = self.clock()
        self.lines += 1
        self.send(self.line(final))

    def _heartbeat(self) -> None:
        while not self._stop.wait(max(0.05, self.seconds - (self.clock() - self.last))):
            with self._lock:
                if not self._stop.is_set() and self._due(self.clock()):
                    self._emit()

    def update(self, n: int = 1) -> None:
        with self._lock:
            self.done += n
            if self._due(self.clock()) and self.done < self.total:
                self._emit()

    def close(self) -> None:
        """Stop; the last line, when any line was written (or every step is reported)."""
        self._stop.set()
        if self._beat is not None:
            self._beat.join()
        with self._lock:
            if self.lines or (self.seconds == 0 and self.total > 0):
                self._emit(final=True)

    def __enter__(self) -> Tracker:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()


def progress(items: Iterable[T], what: str, unit: str = "items", total: int | None = None
             ) -> Iterator[T]:
    """``items``, counted by a :class:`Tracker` (``total``: their number, else ``len``)."""
    if total is None:
        try:
            total = len(items)  # type: ignore[arg-type]
        except TypeError:
            total = 0
    with Tracker(total, what, unit) as tracker:
        for item in items:
            yield item
            tracker.update()


def progress_bar(total: int, what: str, unit: str = "items") -> Tracker:
    """A :class:`Tracker` to ``update`` by hand (work that advances in batches)."""
    return Tracker(total, what, unit)
