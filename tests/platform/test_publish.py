"""``clineval publish``: a run's generations written as recorded outputs that read back the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clineval.cli import main
from clineval.errors import ConfigError, DataError
from clineval.inference.recorded_backend import RecordedBackend
from clineval.io import write_jsonl
from clineval.workflow.commands.publish import model_configs, publish
from clineval.workflow.plan.build import build_plan

CONF = Path(__file__).resolve().parents[2] / "conf"
GRID = ["grid.select.models=[smollm2_135m]", "grid.select.tasks=[medcalc]",
        "grid.select.tables=[medcalc_table2]", "tasks.medcalc.data.demo.calculators=[2]",
        "tasks.medcalc.data.demo.per_calculator=2"]
GENERATIONS = [
    {"id": "1", "request_sha": "a", "output": "The answer is 4 \u2212 1.", "finish_reason": "stop",
     "prompt_tokens": 900, "completion_tokens": 9},
    {"id": "2", "request_sha": "b", "output": "4 4 4 4", "finish_reason": "loop",
     "prompt_tokens": 910, "completion_tokens": 60},
]


def _plan(tmp_path: Path, *more: str):
    return build_plan(CONF, [*GRID, *more], results=tmp_path / "results",
                      data_root=tmp_path / "data")


def test_a_cell_publishes_its_outputs_with_what_the_run_recorded(tmp_path):
    plan = _plan(tmp_path, "grid.select.modes=[zero_shot]")
    [cell] = plan.cells
    write_jsonl(plan.artifact("generations", cell), GENERATIONS)
    [done] = publish(plan, tmp_path / "out")
    assert done.path == tmp_path / "out" / "smollm2_135m" / "zero_shot" / "medcalc.jsonl"
    assert [json.loads(line) for line in done.path.read_text("utf-8").splitlines()] == [
        {k: v for k, v in g.items() if k != "request_sha"} for g in GENERATIONS]
    read = RecordedBackend(done.path, "jsonl", done.sha256).generate(
        [{"id": "2", "messages": []}, {"id": "1", "messages": []}])
    assert [(g.output, g.finish_reason, g.completion_tokens) for g in read] == [
        ("4 4 4 4", "loop", 60), ("The answer is 4 \u2212 1.", "stop", 9)]
    [(name, config)] = model_configs([done], plan).items()
    assert name == "smollm2_135m_zero_shot_recorded"
    assert config["recorded"] == {"path": {"medcalc": str(done.path)}, "layout": "jsonl",
                                  "mode": "zero_shot", "sha256": {"medcalc": done.sha256}}


def test_nothing_generated_yet_says_what_to_run(tmp_path):
    with pytest.raises(ConfigError, match=r"no generations under .* run snakemake all_tables"):
        publish(_plan(tmp_path), tmp_path / "out")


def test_an_output_with_no_generated_finish_reason_names_its_line(tmp_path):
    plan = _plan(tmp_path, "grid.select.modes=[zero_shot]")
    source = plan.artifact("generations", plan.cells[0])
    write_jsonl(source, [GENERATIONS[0], {**GENERATIONS[1], "finish_reason": "recorded"}])
    with pytest.raises(DataError, match=rf"^{source}, row 2, field 'finish_reason': 'recorded'"):
        publish(plan, tmp_path / "out")


def test_the_command_prints_each_file_and_the_models_that_rescore_them(tmp_path, capsys):
    results = tmp_path / "results"
    plan = _plan(tmp_path, "grid.select.modes=[zero_shot]")
    write_jsonl(plan.artifact("generations", plan.cells[0]), GENERATIONS)
    code = main(["publish", *GRID, "grid.select.modes=[zero_shot]", "--conf", str(CONF),
                 "--out", str(tmp_path / "out"), "--results", str(results),
                 "--data", str(tmp_path / "data")])
    printed = capsys.readouterr().out
    assert code == 0
    assert "medcalc.jsonl: 2 outputs, sha256 " in printed
    assert "smollm2_135m_zero_shot_recorded:" in printed and "mode: zero_shot" in printed
