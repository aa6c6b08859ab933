"""Stale Snakemake locks: a killed run's lock is removed when its owner is known to be dead.

Snakemake locks the files of a run in ``.snakemake/locks/`` and removes the lock when it ends,
also after Ctrl-C; a run killed with SIGKILL (or a lost login session) leaves it, and the next
run stops with ``LockException`` until ``snakemake --unlock``. The workflow therefore records
each run's owner beside the locks (:func:`register`: host and pid of the Snakemake process that
parsed the Snakefile) and, at the next start, removes the locks when every recorded owner is a
dead process on this host (:func:`clear_stale`). A lock whose owner is alive, runs on another
host, or is unknown (a run without the record) is left alone: Snakemake's own message then
names ``snakemake --unlock``.
"""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

OWNER_PREFIX = "clineval-owner."


def _lock_dir(workdir: Path) -> Path:
    return workdir / ".snakemake" / "locks"


def _alive(owner: Path) -> bool:
    """Whether the run an owner file names may still be running (unknown: yes)."""
    try:
        host, pid_text = owner.name.removeprefix(OWNER_PREFIX).rsplit(".", 1)
        pid = int(pid_text)
    except ValueError:
        return True
    if host != socket.gethostname():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a reused pid is not our run
        return b"snakemake" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True


def clear_stale(workdir: Path) -> str | None:
    """Remove the locks of ``workdir`` when all their owners are dead; returns the line to
    print when it did."""
    locks_dir = _lock_dir(workdir)
    if not locks_dir.is_dir():
        return None
    locks = sorted(locks_dir.glob("*.lock"))
    owners = sorted(locks_dir.glob(f"{OWNER_PREFIX}*"))
    if not locks or not owners or any(_alive(owner) for owner in owners):
        return None
    for path in (*locks, *owners):
        path.unlink(missing_ok=True)
    pids = ", ".join(o.name.rsplit(".", 1)[-1] for o in owners)
    return (f"clineval: removed the lock of an interrupted run (Snakemake pid {pids}, no longer "
            "running); its unfinished jobs run again")


def register(workdir: Path) -> Path:
    """Record this process (the Snakemake run parsing the Snakefile) as an owner of the locks
    it is about to take; Snakemake removes the folder, and the record, when the run ends."""
    locks_dir = _lock_dir(workdir)
    locks_dir.mkdir(parents=True, exist_ok=True)
    owner = locks_dir / f"{OWNER_PREFIX}{socket.gethostname()}.{os.getpid()}"
    owner.touch()
    return owner


def at_start(workflow: object, workdir: Path = Path(".")) -> None:
    """What the Snakefile does when a run's main process parses it: remove a dead run's locks
    (one line on stderr), then record this run as an owner. Snakemake's settings are not known
    yet at parse time; with ``--nolock`` the record is unused and harmless."""
    if not getattr(workflow, "is_main_process", False):
        return  # a cluster job's Snakemake takes no lock
    message = clear_stale(workdir)
    if message:
        print(message, file=sys.stderr)
    register(workdir)
