"""MedEval's rewriting judged by a model of the grid (the smoke model): prompts, extraction,
ΔAcc and the judge's qualified rate end to end through scoring; the judge in the identity."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from clineval.benchmarks.base.external import task_settings
from clineval.benchmarks.medeval import classifiers, scoring
from clineval.benchmarks.medeval.benchmark import BENCHMARK
from clineval.errors import ConfigError
from clineval.inference import tiny_model
from clineval.workflow.plan.build import build_plan

CONF = Path(__file__).resolve().parents[2] / "conf"
JUDGE = "tasks.medeval_rewriting.scoring.classifiers"


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    """The demo rewriting task with the smoke model as its judge, its test examples, the
    judge's folder."""
    tmp = tmp_path_factory.mktemp("judge")
    task = task_settings(CONF, "medeval_rewriting", "medeval", [
        f"{JUDGE}.kind=model", f"+{JUDGE}.model={{preset:tiny_llama}}",
        f"{JUDGE}.templates={CONF}/templates/medeval.yaml", "tasks.medeval_rewriting.data.seed=3"])
    model = task["scoring"]["classifiers"]["model"]
    tiny_model.build(model["build"], tmp / "tiny_llama")
    files = BENCHMARK.source_files(task, tmp / "data", "medeval_rewriting")
    BENCHMARK.write_demo(task, files)
    examples, _ = BENCHMARK.derive(task, files)
    return {**task, "judges": {"tiny_llama": {"dir": str(tmp / "tiny_llama")}}}, examples


def test_the_preset_is_expanded_into_the_task_settings(judged):
    task, _ = judged
    model = task["scoring"]["classifiers"]["model"]
    assert model["preset"] == "tiny_llama" and model["backend"] == "transformers"
    spec = classifiers.settings(task["scoring"])
    assert spec["model"]["sampling"]["max_tokens"] == 200  # Table 8, over the preset's 32
    assert spec["model"]["sampling"]["temperature"] == 0.0
    own = classifiers.settings({"classifiers": {**task["scoring"]["classifiers"],
                                                "decoding": "model"}})
    assert own["model"]["sampling"]["max_tokens"] == 32
    with pytest.raises(ConfigError, match=r"classifiers.model: \{preset"):
        classifiers.settings({"classifiers": {"kind": "model", "model": "tiny_llama"}})


def test_the_smoke_model_judges_originals_and_rewrites(judged):
    task, examples = judged
    same = [{"id": e["id"], "output": e["fields"]["sentence"]} for e in examples]
    rows, summary = scoring.score(task, examples, same)
    info = summary["classifiers"]
    assert info["kind"] == "model" and info["judge"]["name"] == "tiny_llama"
    assert info["judge"]["sampling"]["max_tokens"] == 200 and info["decoding"] == "paper"
    for group, part in summary["groups"].items():
        mine = [r for r in rows if r["evaluated"] and r["group"] == group]
        for label, short in (("ambiguous", "am"), ("abnormal", "ab")):
            before = [r["judged"][label]["original"] for r in mine]
            after = [r["judged"][label]["rewrite"] for r in mine]
            assert before == after  # the input as its rewrite: greedy, the same verdicts
            assert part[f"dacc_{short}"] == 0.0
            gold = [r["labels"][label] for r in mine]
            assert part[f"acc_{short}_original"] == pytest.approx(
                sum(b == g for b, g in zip(before, gold, strict=True)) / len(mine))
            qualified = sum(b is not None for b in before) / len(mine)
            assert part[f"judge_qr_{short}_original"] == pytest.approx(qualified)
            assert 0.0 <= qualified <= 1.0
            assert all(b in (None, *scoring.LABELS[classifiers.JUDGE_TASKS[label]])
                       for b in before)


class _Canned:
    """A judge model stand-in answering from a list, recording the prompts it gets."""

    def __init__(self, answers: list[str]):
        self.answers, self.prompts = iter(answers), []

    def ask(self, prompts):
        self.prompts += prompts
        return [next(self.answers) for _ in prompts]


def test_an_off_format_answer_is_a_wrong_label():
    templates = yaml.safe_load((CONF / "templates" / "medeval.yaml").read_text())
    canned = _Canned(["Label: ambiguous", "I cannot tell", "normal or abnormal", "abnormal."])
    ambiguity = classifiers.PromptedJudge("ambiguous", canned, templates, "lenient")
    assert ambiguity.predict(["Possible opacity.", "Clear lungs."]) == ["ambiguous", None]
    abnormality = classifiers.PromptedJudge("abnormal", canned, templates, "lenient")
    assert abnormality.predict(["Possible opacity.", "Fracture."]) == [None, "abnormal"]
    first = canned.prompts[0][0]["content"]
    assert "ambigu" in first.lower() and "Possible opacity." in first and first.endswith("Label:")
    assert "abnormal" in canned.prompts[2][0]["content"].lower()


def _scoring_identity(tmp_path, extra: str) -> dict:
    plan = build_plan(CONF, "grid.select.tasks=[medeval_rewriting] grid.select.tables=null "
                      "grid.select.models=[oracle] " + extra,
                      results=tmp_path / "results", data_root=tmp_path / "data")
    key = "oracle/medeval_rewriting/zero_shot"
    return {kind: plan.identities[f"{key}/{kind}"]["sha"] for kind in ("generation", "scoring")}


def test_the_judge_is_part_of_the_scoring_identity_only(tmp_path):
    sklearn = _scoring_identity(tmp_path, "")
    model = f"{JUDGE}.kind=model +{JUDGE}.model={{preset:tiny_llama}}"
    judged = _scoring_identity(tmp_path, model)
    rebuilt = _scoring_identity(tmp_path, f"{JUDGE}.kind=model "
                                f"+{JUDGE}.model={{preset:tiny_llama,build:{{seed:1}}}}")
    decoded = _scoring_identity(tmp_path, f"{model} {JUDGE}.decoding=model")
    assert sklearn["generation"] == judged["generation"] == rebuilt["generation"]
    assert len({sklearn["scoring"], judged["scoring"], rebuilt["scoring"],
                decoded["scoring"]}) == 4


def test_a_judge_is_built_like_a_grid_model_and_must_agree_with_it(tmp_path):
    plan = build_plan(CONF, "grid.select.tasks=[medeval_rewriting] grid.select.tables=null "
                      f"grid.select.models=[oracle] {JUDGE}.kind=model "
                      f"+{JUDGE}.model={{preset:tiny_llama}}",
                      results=tmp_path / "results", data_root=tmp_path / "data")
    assert "models/tiny_llama" in plan.identities  # the judge alone: built for scoring
    assert plan.judge_files("medeval_rewriting") == [
        tmp_path / "results" / "models" / "tiny_llama" / "config.json"]
    with pytest.raises(ConfigError, match="other build settings than the grid's model"):
        build_plan(CONF, "grid.select.tasks=[medeval_rewriting] grid.select.tables=null "
                   f"{JUDGE}.kind=model +{JUDGE}.model={{preset:tiny_llama,build:{{seed:1}}}}",
                   results=tmp_path / "results", data_root=tmp_path / "data")


def test_table3_names_the_model_judge(judged):
    from clineval.benchmarks.medeval import tables

    task, examples = judged
    _, summary = scoring.score(task, examples, [{"id": e["id"], "output": e["reference"]}
                                                for e in examples])
    cell = {"model": "oracle", "task": "medeval_rewriting", "mode": "zero_shot",
            "display_name": "Oracle", "size": "n/a", "smoke": False, "summary": summary}
    spec = {"title": "T3", "layout": "medeval_table3", "modes": ["zero_shot"]}
    table = tables.build_table(spec, [cell], {"medeval_rewriting": {
        "display_name": "R", "data": {"source": "demo"}}})
    note = next(n for n in table.notes if n.startswith("ΔAcc judge: the model"))
    assert "tiny_llama (clineval/tiny-llama-random, revision local-build-1" in note
    assert "max 200 tokens" in note
    assert not any("scikit-learn" in n for n in table.notes)
