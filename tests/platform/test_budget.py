"""A cell's generation budget (config/budget.py): the task's per answer style, or the model's."""

from __future__ import annotations

import pytest

from clineval.config.budget import max_tokens, with_max_tokens
from clineval.errors import ConfigError

MODEL = {"backend": "transformers", "sampling": {"temperature": 0.0, "seed": 0,
                                                  "max_tokens": None}}
TASK = {"benchmark": "medcalc", "max_tokens": {"direct": 128, "reasoning": 1024}}
DIRECT, COT = {"reasoning": False, "exemplars": 0}, {"reasoning": True, "exemplars": 0}


def test_a_cell_takes_its_tasks_budget_for_the_style_its_benchmark_reads():
    assert max_tokens("m", MODEL, "medcalc", TASK, DIRECT) == 128
    assert max_tokens("m", MODEL, "medcalc", TASK, COT) == 1024
    # CLUE's few-shot mode answers directly, whatever the mode's reasoning flag says
    clue = {"benchmark": "clue", "max_tokens": {"direct": 64, "reasoning": 512}}
    assert max_tokens("m", MODEL, "clue_mednli", clue, {"reasoning": True, "exemplars": 1}) == 64
    assert max_tokens("m", MODEL, "clue_mednli", clue, COT) == 512


def test_a_models_max_tokens_overrides_every_tasks_budget():
    smoke = {**MODEL, "sampling": {**MODEL["sampling"], "max_tokens": 32}}
    assert max_tokens("m", smoke, "medcalc", TASK, COT) == 32
    assert max_tokens("b", {"backend": "baseline"}, "medcalc", TASK, COT) is None


def test_a_missing_budget_names_both_settings():
    with pytest.raises(ConfigError, match=r"models\.m\.sampling\.max_tokens is null and "
                                          r"tasks\.medcalc\.max_tokens\.reasoning is not set"):
        max_tokens("m", MODEL, "medcalc", {"benchmark": "medcalc",
                                           "max_tokens": {"direct": 5}}, COT)


def test_the_budget_goes_into_the_cells_model_sampling():
    assert with_max_tokens(MODEL, 7)["sampling"]["max_tokens"] == 7
    assert MODEL["sampling"]["max_tokens"] is None
    assert with_max_tokens({"baseline": "x"}, None) == {"baseline": "x"}
