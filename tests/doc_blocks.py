"""The command blocks of the docs a user follows, for the tests that run them.

Every fenced block of :data:`DOCS` whose info string is a shell (:data:`SHELLS`) carries, on the
line before its fence, either ``<!-- doc-test: NAME -->`` (a test runs it: the test names it
through :func:`block` or :func:`run_block`) or ``<!-- example: WHY -->`` (placeholders to fill,
or hardware and data a test cannot have); tests/platform/test_docs.py fails on any other.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from workflow_run import REPO

DOCS = ("README.md", "docs/results.md", "docs/backends.md", "docs/workflow.md",
        "docs/extending.md")
SHELLS = frozenset({"bash", "sh", "shell", "console"})
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
MARK = re.compile(r"^<!--\s*(doc-test|example):\s*(.*?)\s*-->$")


@dataclass(frozen=True)
class Block:
    doc: str
    line: int  # of the opening fence, 1-based
    info: str
    text: str
    mark: tuple[str, str] | None  # ("doc-test", name) or ("example", why)


def blocks(doc: str) -> list[Block]:
    """The fenced blocks of ``doc`` (a path relative to the repository)."""
    lines = (REPO / doc).read_text(encoding="utf-8").splitlines()
    found, index = [], 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        end = next(i for i in range(index + 1, len(lines)) if lines[i].strip() == "```")
        before = next((lines[i].strip() for i in range(index - 1, -1, -1) if lines[i].strip()),
                      "")
        marked = MARK.match(before)
        found.append(Block(doc, index + 1, opening[2], "\n".join(lines[index + 1:end]) + "\n",
                           (marked[1], marked[2]) if marked else None))
        index = end + 1
    return found


def block(doc: str, name: str) -> str:
    """The text of the block of ``doc`` marked ``doc-test: name``."""
    named = [b for b in blocks(doc) if b.mark == ("doc-test", name)]
    assert len(named) == 1, f"{doc}: {len(named)} blocks marked doc-test: {name}"
    return named[0].text


def commands(text: str) -> list[str]:
    """The block's commands: continuation lines joined, comments and blank lines dropped."""
    joined = re.sub(r"\\\n\s*", " ", text)
    found = []
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        if words:
            found.append(shlex.join(words))
    return found


def sandbox(root: Path) -> Path:
    """A checkout to run commands in: the repository's files linked, results and data of its
    own, and ``.venv/bin`` with this interpreter and a ``snakemake`` that :func:`run_block`
    can make a dry run."""
    root.mkdir(parents=True, exist_ok=True)
    for entry in REPO.iterdir():
        if entry.name not in (".git", ".venv", "results", "data", ".snakemake"):
            (root / entry.name).symlink_to(entry)
    (root / ".venv/bin").mkdir(parents=True)
    (root / ".venv/bin/python").symlink_to(sys.executable)
    return root


def run_block(doc: str, name: str, cwd: Path, *, dry_run: bool = False,
              paths: dict[str, str] | None = None, env: dict[str, str] | None = None,
              only: str | None = None, timeout: int = 900) -> subprocess.CompletedProcess:
    """Run the block in ``cwd`` (a :func:`sandbox`, or a run's folder) with bash, stopping at
    the first failing command. ``dry_run``: every ``snakemake`` (``.venv/bin/snakemake``
    too) plans only (``-n``), with the repository's Snakefile; ``paths``: prefixes replaced
    in the text (the docs' ``/data/`` by the tests' data folder); ``only``: run only the
    block's commands that start with this word."""
    text = block(doc, name)
    if only is not None:
        lines = re.sub(r"\\\n\s*", " ", text).splitlines()
        text = "\n".join(line for line in lines if line.split()[:1] == [only]) + "\n"
    for old, new in (paths or {}).items():
        text = text.replace(old, new)
    shims = Path(tempfile.mkdtemp(prefix="doc-shims-"))
    snakemake = shims / "snakemake"
    flags = f'-s {REPO / "Snakefile"} {"-n" if dry_run else ""}'
    snakemake.write_text(f'#!/bin/sh\nexec {sys.executable} -m snakemake {flags} "$@"\n')
    snakemake.chmod(0o755)
    venv_snakemake = cwd / ".venv/bin/snakemake"
    if venv_snakemake.parent.is_dir() and (venv_snakemake.is_symlink()
                                           or not venv_snakemake.exists()):
        venv_snakemake.unlink(missing_ok=True)  # an earlier block's link, to a removed shim
        venv_snakemake.symlink_to(snakemake)
    script = shims / f"{name}.sh"
    script.write_text("set -euo pipefail\n" + text, encoding="utf-8")
    path = os.pathsep.join((str(shims), str(Path(sys.executable).parent), os.environ["PATH"]))
    try:
        return subprocess.run(
            ["bash", str(script)], cwd=cwd, capture_output=True, text=True, timeout=timeout,
            env={**os.environ, "PATH": path, "HF_HUB_OFFLINE": "1",
                 "TRANSFORMERS_OFFLINE": "1", **(env or {})})
    finally:
        shutil.rmtree(shims, ignore_errors=True)
