"""The demo grid built once per session for the tests of this folder, which read it.

The build gets ``CLINEVAL_TEST_TIMEOUT`` seconds (``workflow_run.timeout_s``). A build that fails
or runs out of time fails once, with one line (the step it was in and the time it took); pytest
keeps that failure for the session, and every test that needs the demo reports the same line,
without a traceback. Under pytest-xdist, one worker runs this whole folder (``--dist loadfile``:
tests/conftest.py), so the demo is built once and no two tests use it at the same time.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from workflow_run import console_of, snakemake


@pytest.fixture(scope="session")
def demo(tmp_path_factory) -> Path:
    """The offline demo grid's tables, built once in a temporary work directory. A test that
    runs it under other settings uses ``rebuild_demo_after``. Its console is kept
    (``workflow_run.console_of``)."""
    workdir = tmp_path_factory.mktemp("demo")
    done = snakemake(workdir, "all_tables", console=console_of(workdir))
    console_of(workdir).write_text(done.stdout + done.stderr, encoding="utf-8")
    if done.returncode != 0:
        pytest.fail(f"the demo build failed (its console: {console_of(workdir)}):\n"
                    f"{done.stderr[-5000:]}", pytrace=False)
    return workdir


@pytest.fixture
def rebuild_demo_after(demo: Path) -> Iterator[None]:
    """Builds the demo's default settings again after the test, whether it passed or failed, so
    that one failure cannot leave the next tests a demo built under other settings."""
    yield
    done = snakemake(demo, "all_tables")
    assert done.returncode == 0, done.stderr[-5000:]


@pytest.fixture(scope="module")
def report(demo: Path) -> Path:
    """The demo report's front page, after ``all_tables`` (a test before may have rebuilt the
    demo under other settings and back)."""
    done = snakemake(demo, "all_tables")
    assert done.returncode == 0, done.stderr[-3000:]
    return demo / "results" / "report" / "index.html"
