"""Typed settings (src/clineval/config/schema/, each benchmark's settings.py): every kind of
mistake in every benchmark's task and table settings, and in models, modes, figures and grids,
stops the plan before any job with the key, where it came from (the override or the config
file) and what is valid."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
import yaml
from omegaconf import OmegaConf

from clineval.benchmarks import BENCHMARKS, get_benchmark, get_settings
from clineval.cli import main
from clineval.config.compose import compose_config
from clineval.config.schema.tables import layouts
from clineval.config.validate import validate
from clineval.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]
CONF = REPO / "conf"
#: The grid that holds each benchmark's tasks and tables.
GRIDS = {"medcalc": "medcalc_paper", "clue": "clue_paper", "meddisk": "meddisk_demo",
         "clibench": "clibench_demo", "medeval": "medeval_demo"}


def refused(conf: Path, *overrides: str) -> str:
    """The message with which the composed config is refused (a failure when it is not)."""
    cfg = OmegaConf.to_container(compose_config(conf, list(overrides)), resolve=True)
    with pytest.raises(ConfigError) as err:
        validate(cfg, conf, list(overrides))  # type: ignore[arg-type]
    return str(err.value)


def expect(message: str, key: str, origin: str, valid: str) -> None:
    """``message`` names ``key`` (a regex), its ``origin`` and what is ``valid``."""
    assert re.match(rf"{key}(?![\w.\[])", message), message
    assert f"(from {origin})" in message, message
    assert valid in message, message


def override(text: str) -> str:
    return f"override {text!r}"


# (benchmark, override, key, what is valid): per benchmark, a key added with `+`, a value of
# another type, a number out of range and a value outside the choices
ADDED = [
    ("medcalc", "+tables.medcalc_table2.decimalz=3", r"tables\.medcalc_table2\.decimalz",
     "valid keys: bootstrap, caption, comparisons, decimals, extractions, layout,"),
    ("medcalc", "+tasks.medcalc.scoring.extractionz=[robust]",
     r"tasks\.medcalc\.scoring\.extractionz", "valid keys: baselines, convention_overrides, "
     "conventions, extractions, label_file, labels, missing_labels"),
    ("clue", "+tasks.clue_meqsum.scoring.rouge.stemmer=true",
     r"tasks\.clue_meqsum\.scoring\.rouge\.stemmer", "valid keys: use_stemmer"),
    ("meddisk", "+tasks.meddisk_zh.scoring.thresholds.cosine.numeric=[0.1,0.2]",
     r"tasks\.meddisk_zh\.scoring\.thresholds\.cosine\.numeric",
     "valid keys: declarative, enumerated"),
    ("clibench", "+tasks.clibench_labs.data.sample.size=3",
     r"tasks\.clibench_labs\.data\.sample\.size", "valid keys: k, limit, min_per_stratum, seed"),
    ("medeval", "+tables.medeval_table2.f2=true", r"tables\.medeval_table2\.f2",
     "valid keys: bootstrap, caption, comparisons, f1, groups, layout,"),
    # the keys a CLUE dataset's data and demo hold, a MedEval task kind's data, scoring's
    ("clue", "+tasks.clue_meqsum.data.demo.paragraphs=3",
     r"tasks\.clue_meqsum\.data\.demo\.paragraphs", "valid keys: seed, size"),
    ("clue", "+tasks.clue_meqsum.scoring.bleu=true", r"tasks\.clue_meqsum\.scoring\.bleu",
     "valid keys: baselines, bertscore, codes, missing_metric, rouge, umls"),
    ("meddisk", "+tasks.meddisk_zh.scoring.extractors=gazetteer",
     r"tasks\.meddisk_zh\.scoring\.extractors", "valid keys: baselines, cut_at_newline,"),
    ("medeval", "+tasks.medeval_ambiguity.data.reports=x",
     r"tasks\.medeval_ambiguity\.data\.reports", "valid keys: chest_domains, domains, limit,"),
    ("medeval", "+tasks.medeval_ambiguity.scoring.rogue=true",
     r"tasks\.medeval_ambiguity\.scoring\.rogue", "valid keys: answer_span, bleu, classifiers,"),
]
WRONG_TYPE = [
    ("medcalc", "tasks.medcalc.data.demo.per_calculator=abc",
     r"tasks\.medcalc\.data\.demo\.per_calculator='abc': wrong type", "expected an integer"),
    ("clue", "tasks.clue_longhealth_task1.data.n_distractors=many",
     r"tasks\.clue_longhealth_task1\.data\.n_distractors='many': wrong type",
     "expected an integer"),
    ("meddisk", "tasks.meddisk_zh.scoring.cut_at_newline=maybe",
     r"tasks\.meddisk_zh\.scoring\.cut_at_newline='maybe': wrong type",
     "expected true or false"),
    ("clibench", "tasks.clibench_diagnoses.scoring.threshold=high",
     r"tasks\.clibench_diagnoses\.scoring\.threshold='high': wrong type",
     "expected a number or null"),
    ("medeval", "tables.medeval_table4.domains=chest",
     r"tables\.medeval_table4\.domains='chest': wrong type",
     "expected a list of strings or null"),
]
OUT_OF_RANGE = [
    ("medcalc", "tables.medcalc_table2.decimals=-1",
     r"tables\.medcalc_table2\.decimals=-1: out of range", "valid values: >= 0"),
    ("clue", "tasks.clue_mednli.data.limit=0",
     r"tasks\.clue_mednli\.data\.limit=0: out of range", "valid values: >= 1"),
    ("meddisk", "tables.meddisk_table5.alpha=1.5",
     r"tables\.meddisk_table5\.alpha=1\.5: out of range", "valid values: > 0 and < 1"),
    ("clibench", "tasks.clibench_labs.data.demo.admissions=0",
     r"tasks\.clibench_labs\.data\.demo\.admissions=0: out of range", "valid values: >= 1"),
    ("medeval", "tasks.medeval_abnormality.exemplars.draws=0",
     r"tasks\.medeval_abnormality\.exemplars\.draws=0: out of range", "valid values: >= 1"),
]
UNKNOWN_CHOICE = [
    ("medcalc", "tasks.medcalc.scoring.extractions=[lenent]",
     r"tasks\.medcalc\.scoring\.extractions\[0\]='lenent': unknown value",
     "valid extraction settings: official, robust"),
    ("medcalc", "tables.medcalc_table2.layout=medcalc_tabel2",
     r"tables\.medcalc_table2\.layout='medcalc_tabel2': unknown value",
     "valid layouts: clibench_breakdown, clibench_full, clibench_table3"),
    ("clue", "tables.clue_table3.levels=[level3]",
     r"tables\.clue_table3\.levels\[0\]='level3': unknown value", "valid levels: level1, level2"),
    ("clue", "tasks.clue_mednli.data.dataset=mednil",
     r"tasks\.clue_mednli\.data\.dataset='mednil': unknown value",
     "valid CLUE datasets: longhealth_task1, longhealth_task2"),
    ("meddisk", "tables.meddisk_table5.metric=cosin",
     r"tables\.meddisk_table5\.metric='cosin': unknown value",
     "valid metrics: bleu_1, cosine, rouge_1"),
    ("clibench", "tasks.clibench_prescriptions.scoring.atc_levels=papr",
     r"tasks\.clibench_prescriptions\.scoring\.atc_levels='papr': unknown value",
     "valid values: code, paper"),
    ("medeval", "tasks.medeval_ambiguity.scoring.extraction=lenent",
     r"tasks\.medeval_ambiguity\.scoring\.extraction='lenent': unknown value",
     "valid extraction modes: lenient, strict"),
    ("medcalc", "tasks.medcalc.scoring.missing_labels=ignore",
     r"tasks\.medcalc\.scoring\.missing_labels='ignore': unknown value",
     "valid values: dataset, drop"),
    ("medcalc", "tasks.medcalc.exemplars.source=paper",
     r"tasks\.medcalc\.exemplars\.source='paper': unknown value",
     "valid sources: official, project"),
    ("clibench", "tasks.clibench_labs.data.task=lab",
     r"tasks\.clibench_labs\.data\.task='lab': unknown value",
     "valid CliBench tasks: diagnoses, labs, prescriptions, procedures"),
    ("meddisk", "tasks.meddisk_zh.scoring.extractor=regex",
     r"tasks\.meddisk_zh\.scoring\.extractor='regex': unknown value",
     "valid extractors: delimiter, gazetteer"),
    ("medeval", "tasks.medeval_ambiguity.scoring.answer_span=all",
     r"tasks\.medeval_ambiguity\.scoring\.answer_span='all': unknown value",
     "valid answer spans:"),
    ("medeval", "tasks.medeval_ambiguity.scoring.unqualified=right",
     r"tasks\.medeval_ambiguity\.scoring\.unqualified='right': unknown value",
     "valid values: exclude, wrong"),
    ("medeval", "tasks.medeval_ambiguity.data.task=ambiguous",
     r"tasks\.medeval_ambiguity\.data\.task='ambiguous': unknown value", "valid MedEval tasks:"),
    ("medeval", "tasks.medeval_ambiguity.data.source=offical",
     r"tasks\.medeval_ambiguity\.data\.source='offical': unknown value",
     "valid sources: demo, official"),
]


@pytest.mark.parametrize(("benchmark", "setting", "key", "valid"),
                         ADDED + WRONG_TYPE + OUT_OF_RANGE + UNKNOWN_CHOICE)
def test_a_bad_override_names_key_override_and_what_is_valid(benchmark, setting, key, valid):
    message = refused(CONF, f"grid={GRIDS[benchmark]}", setting)
    expect(message, key, override(setting), valid)


#: (benchmark, file under conf/, a key as it is, the key misspelled, the error's key, valid)
MISSPELLED = [
    ("medcalc", "task/medcalc.yaml", "  extractions: [official, robust]",
     "  extraction: [official, robust]", r"tasks\.medcalc\.scoring\.extraction: unknown key",
     "valid keys: baselines, convention_overrides, conventions, extractions,"),
    ("clue", "task/clue/scoring.yaml", "missing_metric: drop", "missing_metrics: drop",
     r"tasks\.clue_\w+\.scoring\.missing_metrics: unknown key",
     "valid keys: baselines, bertscore, codes, missing_metric, rouge, umls"),
    ("meddisk", "table/meddisk_table5.yaml", "alpha: 0.05", "alfa: 0.05",
     r"tables\.meddisk_table5\.alfa: unknown key", "alpha, bootstrap, caption,"),
    ("clibench", "task/clibench_diagnoses.yaml", "  radiology: findings",
     "  radiolgy: findings", r"tasks\.clibench_diagnoses\.data\.radiolgy: unknown key",
     "valid keys: atc_titles, demo, first_batch, history, hosp, lab_codes, lab_loinc_map,"),
    ("medeval", "task/medeval/scoring.yaml", "answer_span: slot", "answer_spam: slot",
     r"tasks\.medeval_\w+\.scoring\.answer_spam: unknown key",
     "valid keys: answer_span, bleu, classifiers, extraction, rouge, unqualified"),
]


def edited(tmp_path: Path, path: str, old: str, new: str) -> Path:
    """A copy of conf/ with ``old`` replaced by ``new`` in ``path``."""
    conf = tmp_path / "conf"
    shutil.copytree(CONF, conf)
    text = (conf / path).read_text(encoding="utf-8")
    assert old in text, f"{path} no longer holds {old!r}"
    (conf / path).write_text(text.replace(old, new, 1), encoding="utf-8")
    return conf


@pytest.mark.parametrize(("benchmark", "path", "old", "new", "key", "valid"), MISSPELLED)
def test_a_misspelled_key_in_a_file_names_the_file(tmp_path, benchmark, path, old, new, key,
                                                    valid):
    conf = edited(tmp_path, path, old, new)
    expect(refused(conf, f"grid={GRIDS[benchmark]}"), key, f"conf/{path}", valid)


def test_a_value_in_a_grid_or_a_model_file_names_that_file(tmp_path):
    conf = edited(tmp_path, "grid/demo.yaml", "medcalc: {data: {demo: {per_calculator: 1}}}",
                  "medcalc: {data: {demo: {per_calculator: -1}}}")
    expect(refused(conf), r"tasks\.medcalc\.data\.demo\.per_calculator=-1: out of range",
           "conf/grid/demo.yaml", "valid values: >= 0")
    text = (conf / "model" / "tiny_llama.yaml").read_text(encoding="utf-8")
    (conf / "model" / "tiny_llama.yaml").write_text(text.replace("max_tokens: 32",
                                                                 "max_tokens: many"))
    expect(refused(conf, "grid=clibench_demo"),
           r"models\.tiny_llama\.sampling\.max_tokens='many': wrong type",
           "conf/model/tiny_llama.yaml", "expected an integer")


@pytest.mark.parametrize(("setting", "key", "valid"), [
    ("models.tiny_llama.sampling.max_tokens=abc",
     r"models\.tiny_llama\.sampling\.max_tokens='abc': wrong type", "expected an integer"),
    ("models.tiny_llama.sampling.max_tokens=-5",
     r"models\.tiny_llama\.sampling\.max_tokens=-5: out of range", "valid values: >= 1"),
    ("+models.tiny_llama.sampling.temprature=0.5",
     r"models\.tiny_llama\.sampling\.temprature: unknown key",
     "valid keys: json_schema, max_tokens, repetition_penalty, seed, stop, stop_loop, "
     "temperature,"),
    ("models.tiny_llama.backend=telepathy", r"models\.tiny_llama\.backend='telepathy'",
     "valid backends: baseline, openai, recorded, transformers, vllm"),
    ("models.tiny_llama.engine.batch_size=0",
     r"models\.tiny_llama\.engine\.batch_size=0: out of range", "valid values: >= 1"),
    ("modes.cot.exemplars=-1", r"modes\.cot\.exemplars=-1: out of range", "valid values: >= 0"),
    ("+modes.cot.temperature=0", r"modes\.cot\.temperature: unknown key",
     "valid keys: description, exemplars, reasoning"),
    ("+grid.select.benchmarks=[medcalc]", r"grid\.select\.benchmarks: unknown key",
     "valid keys: figures, models, modes, tables, tasks"),
    ("+grid.slices={oracle: {limit: 0}}", r"grid\.slices\.oracle\.limit=0: out of range",
     "valid values: >= 1"),
    ("+colour=red", r"colour: unknown key",
     "valid keys: dvc, export, figures, grid, models, modes,"),
    ("export.eee.evaluator_relationship=self",
     r"export\.eee\.evaluator_relationship='self': unknown value",
     "valid values: collaborative, first_party, other, third_party"),
    ("figures.clue_levels.kind=pie", r"figures\.clue_levels\.kind='pie': unknown value",
     "valid figure kinds: bars, heatmap, levels, levels_scatter, modes"),
    ("+figures.clue_bars.colour=red", r"figures\.clue_bars\.colour: unknown key",
     "valid keys: caption, kind, metric, models, modes, size, tables, title, ylabel"),
    ("figures.clue_bars.size=[7,-4]", r"figures\.clue_bars\.size\[1\]=-4: out of range",
     "valid values: > 0"),
    ("+tables.leaderboard.columns=[{label: L, tasks: [medcalc], mode: zero_shot, "
     "metric: accuracy.official, scale: big}]",
     r"tables\.leaderboard\.columns\[0\]\.scale='big': wrong type", "expected a number"),
    ("+tables.medcalc_table2.uncertainty=sd",
     r"tables\.medcalc_table2\.uncertainty='sd': unknown value",
     "valid uncertainty settings: both, ci, none, se"),
])
def test_models_modes_grids_figures_and_common_table_keys(setting, key, valid):
    expect(refused(CONF, setting), key, override(setting), valid)


def test_a_layout_shows_its_own_benchmarks_tasks():
    setting = "tables.clue_table3.layout=medcalc_table2"
    expect(refused(CONF, "grid=clue_paper", setting),
           r"tables\.clue_table3\.layout='medcalc_table2': a medcalc layout, but the table shows "
           r"clue_\w+, a clue task", override(setting), "clue layouts: clue_table3")


def test_a_layout_declared_twice_stops_naming_both(monkeypatch):
    """An outside benchmark naming a layout like a built-in one: one line, both declarations."""
    from types import ModuleType

    from clineval.config.schema import tables

    outside = ModuleType("clineval_outside.settings")
    outside.TABLES = {"medcalc_table2": object}  # type: ignore[attr-defined]
    monkeypatch.setattr(tables, "names", lambda: (*BENCHMARKS, "outside"))
    monkeypatch.setattr(tables, "get_settings",
                        lambda b: outside if b == "outside" else get_settings(b))
    with pytest.raises(ConfigError) as err:
        layouts()
    assert str(err.value) == (
        "table layout 'medcalc_table2' is declared twice: in "
        "clineval.benchmarks.medcalc.settings.TABLES (benchmark medcalc) and in "
        "clineval_outside.settings.TABLES (benchmark outside); a layout name is declared "
        "once: rename one")


def test_a_benchmark_without_layouts_is_told_which_exist(monkeypatch):
    """A task whose benchmark implements no layout, shown by another benchmark's layout: the
    message names the layouts it may use (the leaderboard), not "(none)"."""
    from clineval.config import schema
    from clineval.config.schema import SettingError, message

    monkeypatch.setattr(schema, "layouts", lambda: {
        name: found for name, found in layouts().items() if found[0] != "clue"})
    with pytest.raises(SettingError) as err:
        schema._check_layout("t", {"layout": "medcalc_table2", "task": "q"},
                             {"q": {"benchmark": "clue"}})
    assert message(err.value) == (
        "tables.t.layout='medcalc_table2': a medcalc layout, but the table shows q, a clue "
        "task; clue implements no layout; layouts across benchmarks: leaderboard")


def test_every_grid_passes_its_schemas(monkeypatch):
    for name in [k for k in os.environ if k.startswith("CLINEVAL_")]:
        monkeypatch.delenv(name)
    for grid in sorted(p.stem for p in (CONF / "grid").glob("*.yaml")):
        cfg = OmegaConf.to_container(compose_config(CONF, [f"grid={grid}"]), resolve=True)
        validate(cfg, CONF, [f"grid={grid}"])  # type: ignore[arg-type]


def test_choices_come_from_what_the_code_implements():
    for benchmark in BENCHMARKS:
        assert get_settings(benchmark).TABLES, f"{benchmark} declares no table layout"
        assert get_benchmark(benchmark).name == benchmark
    used = {yaml.safe_load(p.read_text(encoding="utf-8"))["layout"]
            for p in (CONF / "table").glob("*.yaml")}
    assert used <= set(layouts()), used - set(layouts())
    from clineval.benchmarks.meddisk.tables import LAYOUTS as MEDDISK

    assert set(MEDDISK) == {k for k, (b, _) in layouts().items() if b == "meddisk"}


def test_clineval_plan_stops_with_the_message(capsys):
    setting = "+tables.medcalc_table2.decimalz=3"
    assert main(["plan", "--conf", str(CONF), "grid=medcalc_paper", setting]) == 2
    err = capsys.readouterr().err
    assert err.startswith("clineval: error: tables.medcalc_table2.decimalz: unknown key "
                          f"(from override '{setting}'); valid keys: ")


#: (argv of ``clineval score``, its task, a short override of the task's settings, the error's
#: key, what is valid): the schema refuses it there as the plan does, naming the override
SCORED = [
    (["clue", "--examples", "e.jsonl"], "clue_mednli", "data.dataset=mednil",
     r"tasks\.clue_mednli\.data\.dataset='mednil': unknown value",
     "valid CLUE datasets: longhealth_task1,"),
    (["clue", "--examples", "e.jsonl"], "clue_meqsum", "+data.paht=x",
     r"tasks\.clue_meqsum\.data\.paht: unknown key", "valid keys: dataset, demo, limit, path,"),
    (["clue", "--examples", "e.jsonl"], "clue_meqsum", "+data.demo.paragraphs=3",
     r"tasks\.clue_meqsum\.data\.demo\.paragraphs: unknown key", "valid keys: seed, size"),
    (["clue", "--examples", "e.jsonl"], "clue_meqsum", "+scoring.bleu=true",
     r"tasks\.clue_meqsum\.scoring\.bleu: unknown key", "valid keys: baselines, bertscore,"),
    (["medeval", "--data", "d.csv"], "medeval_ambiguity", "+data.reports=x",
     r"tasks\.medeval_ambiguity\.data\.reports: unknown key", "valid keys: chest_domains,"),
    (["medeval", "--data", "d.csv"], "medeval_ambiguity", "data.task=ambiguous",
     r"tasks\.medeval_ambiguity\.data\.task='ambiguous': unknown value",
     "valid MedEval tasks:"),
    (["medeval", "--data", "d.csv"], "medeval_ambiguity", "data.source=offical",
     r"tasks\.medeval_ambiguity\.data\.source='offical': unknown value",
     "valid sources: demo, official"),
    (["medeval", "--data", "d.csv"], "medeval_ambiguity", "+scoring.rogue=true",
     r"tasks\.medeval_ambiguity\.scoring\.rogue: unknown key", "valid keys: answer_span,"),
    (["medeval", "--data", "d.csv"], "medeval_ambiguity", "scoring.answer_span=all",
     r"tasks\.medeval_ambiguity\.scoring\.answer_span='all': unknown value",
     "valid answer spans:"),
    (["medeval", "--data", "d.csv"], "medeval_ambiguity", "scoring.unqualified=right",
     r"tasks\.medeval_ambiguity\.scoring\.unqualified='right': unknown value",
     "valid values: exclude, wrong"),
    (["meddisk", "--kb", "kb.jsonl"], "meddisk_zh", "scoring.extractor=regex",
     r"tasks\.meddisk_zh\.scoring\.extractor='regex': unknown value",
     "valid extractors: delimiter, gazetteer"),
    (["meddisk", "--kb", "kb.jsonl"], "meddisk_zh", "+scoring.extractors=gazetteer",
     r"tasks\.meddisk_zh\.scoring\.extractors: unknown key", "valid keys: baselines,"),
]


@pytest.mark.parametrize(("argv", "task", "setting", "key", "valid"), SCORED)
def test_clineval_score_checks_the_task_settings_it_composes(tmp_path, monkeypatch, capsys,
                                                             argv, task, setting, key, valid):
    """Settings composed outside a plan meet the same schema, before any file is read (MedDisK
    reads its predictions first, to pick the task's language)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.jsonl").write_text('{"disease": "D1", "aspect": "a", "output": "x", '
                                      '"lang": "zh"}\n', encoding="utf-8")
    assert main(["score", *argv, "--predictions", "p.jsonl", "--task", task, "--conf",
                 str(CONF), setting]) == 2
    err = capsys.readouterr().err.removeprefix("clineval: error: ")
    added = "+" if setting.startswith("+") else ""
    expect(err, key, override(f"{added}tasks.{task}.{setting.lstrip('+')}"), valid)
