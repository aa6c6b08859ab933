"""The short messages of a failed workflow run, for the last lines of the console.

A failing ``clineval step`` writes its log (the job's ``log:`` file), whose last
``clineval: error:`` line says what was wrong (file, row, field, what was expected). Snakemake
shows the failing command and points at the log; the Snakefile's ``onerror`` handler prints
these lines after that, so the console ends with them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

ERROR_PREFIX = "clineval: error:"
_RULE = re.compile(r"^Error in rule (\S+):$")
_LOG = re.compile(r"^\s+log: (.+?) \(check log file\(s\) for error details\)$")


def last_error(log: Path) -> str | None:
    """The last ``clineval: error:`` line of a job's log (None when there is none)."""
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return next((line.strip() for line in reversed(lines) if line.startswith(ERROR_PREFIX)),
                None)


def failed_jobs(snakemake_log: Path) -> list[tuple[str, list[Path]]]:
    """``(rule, its log files)`` of every ``Error in rule`` block of Snakemake's run log."""
    try:
        lines = snakemake_log.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    jobs: list[tuple[str, list[Path]]] = []
    for line in lines:
        if match := _RULE.match(line):
            jobs.append((match.group(1), []))
        elif jobs and (match := _LOG.match(line)):
            jobs[-1][1].extend(Path(p) for p in match.group(1).split(", "))
    return jobs


def short_messages(snakemake_log: Path | str | Sequence[Path | str] | None) -> list[str]:
    """One line per failed job whose log ends in a clineval error: the rule, the message (file,
    row, field, what was expected) and the log that has the rest. ``snakemake_log``: the run's
    log file(s), as ``onerror`` gets them."""
    if not snakemake_log:
        return []
    runs = [snakemake_log] if isinstance(snakemake_log, str | Path) else list(snakemake_log)
    messages = []
    for rule, logs in (job for run in runs for job in failed_jobs(Path(run))):
        for log in logs:
            error = last_error(log)
            if error:
                detail = error.removeprefix(ERROR_PREFIX).strip()
                messages.append(f"clineval: {rule} failed: {detail} (log: {log})")
    return messages
