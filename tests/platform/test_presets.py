"""Model presets: ``models.<name>: {preset: <conf/model file>}`` expanded after composition."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from clineval.config.compose import ConfigError
from clineval.config.presets import expand_model_presets
from clineval.workflow.plan.build import build_plan

CONF = Path(__file__).resolve().parents[2] / "conf"
HEAD = """# @package _global_
defaults:
{models}  - /task@tasks.medcalc: medcalc
  - /mode@modes.zero_shot: zero_shot
  - /mode@modes.one_shot: one_shot
  - /table@tables.medcalc_table2: medcalc_table2
tasks:
  medcalc: {{data: {{demo: {{per_calculator: 1}}}}}}
tables:
  medcalc_table2: {{modes: [zero_shot, one_shot]}}
grid:
  name: {name}
"""
# The same three models, each with a grid-level override, once per style.
DEFAULTS_GRID = HEAD.format(
    name="both",
    models="".join(f"  - /model@models.{m}: {p}\n" for m, p in
                   (("small", "tiny_llama"), ("c1", "constant"), ("c2", "constant"))),
) + """models:
  small: {sampling: {max_tokens: 7}}
  c2: {display_name: Second constant}
"""
PRESET_GRID = HEAD.format(name="both", models="") + """models:
  small: {preset: tiny_llama, sampling: {max_tokens: 7}}
  c1: {preset: constant}
  c2: {preset: constant, display_name: Second constant}
"""


@pytest.fixture
def conf(tmp_path: Path) -> Path:
    copy = tmp_path / "conf"
    shutil.copytree(CONF, copy)
    (copy / "grid" / "by_defaults.yaml").write_text(DEFAULTS_GRID, encoding="utf-8")
    (copy / "grid" / "by_presets.yaml").write_text(PRESET_GRID, encoding="utf-8")
    return copy


def _plan(conf: Path, tmp_path: Path, *overrides: str):
    return build_plan(conf, list(overrides), results=tmp_path / "results",
                      data_root=tmp_path / "data")


def test_preset_grid_has_the_identities_of_the_defaults_list_grid(conf, tmp_path):
    by_defaults = _plan(conf, tmp_path, "grid=by_defaults")
    by_presets = _plan(conf, tmp_path, "grid=by_presets")
    assert by_presets.cfg == by_defaults.cfg
    assert by_presets.cells == by_defaults.cells
    # cells x kinds + data, build, table, report, the explorer's pages + an export per model
    # and task
    assert len(by_presets.identities) == 3 * 2 * 3 + 5 + len(by_presets.export_groups())
    assert {k: v["sha"] for k, v in by_presets.identities.items()} == {
        k: v["sha"] for k, v in by_defaults.identities.items()
    }
    assert by_presets.cfg["models"]["small"]["sampling"]["max_tokens"] == 7
    assert by_presets.cfg["models"]["c2"]["display_name"] == "Second constant"


def test_presets_take_command_line_overrides(conf, tmp_path):
    p = _plan(conf, tmp_path, "grid=by_presets", "+models.c1.display_name=First",
              "+models.c3={preset: oracle}")
    assert p.cfg["models"]["c1"]["display_name"] == "First"
    assert p.cfg["models"]["c3"]["baseline"] == "oracle"
    assert list(p.cfg["models"]) == ["small", "c1", "c2", "c3"]


def test_unknown_preset_lists_the_model_configs(conf, tmp_path):
    with pytest.raises(ConfigError) as err:
        _plan(conf, tmp_path, "grid=by_presets", "models.c1.preset=constnat")
    message = str(err.value)
    assert "models.c1.preset='constnat' is not a model config" in message
    assert f"presets in {conf.resolve() / 'model'}: clibench_frequency, clue_baseline," in message


def test_preset_must_be_a_name(conf, tmp_path):
    with pytest.raises(ConfigError, match=r"models\.c1\.preset=None is not a model config"):
        _plan(conf, tmp_path, "grid=by_presets", "models.c1.preset=null")


def test_preset_with_a_defaults_list_is_refused(conf, tmp_path):
    (conf / "model" / "layered.yaml").write_text("defaults:\n  - constant\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"layered\.yaml: a preset must be a plain mapping"):
        _plan(conf, tmp_path, "grid=by_presets", "models.c1.preset=layered")


def test_expansion_merges_nested_keys_and_keeps_other_entries(tmp_path):
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "base.yaml").write_text(
        "id: x\nsampling: {temperature: 0.0, max_tokens: 5}\nname: ${.id}\n", encoding="utf-8"
    )
    cfg = OmegaConf.create({
        "models": {
            "a": {"preset": "base", "sampling": {"max_tokens": 9}, "id": "y"},
            "plain": {"id": "z"},
        }
    })
    expanded = OmegaConf.to_container(expand_model_presets(cfg, tmp_path), resolve=True)
    assert expanded["models"] == {
        "a": {"id": "y", "sampling": {"temperature": 0.0, "max_tokens": 9}, "name": "y"},
        "plain": {"id": "z"},
    }


def test_config_without_presets_is_returned_as_is(tmp_path):
    cfg = OmegaConf.create({"models": {"plain": {"id": "z"}}})
    assert expand_model_presets(cfg, tmp_path) is cfg
