"""The MedDisK KB format (loader errors name file, line, disease, aspect), derived examples and
demonstrations, the prompts of both kinds, and the demo KB's "none" values (clinically true
only)."""

from __future__ import annotations

import json

import pytest
from meddisk_records import TEMPLATES, demo, task

from clineval.benchmarks.meddisk import prompts
from clineval.benchmarks.meddisk.aspects import registry
from clineval.benchmarks.meddisk.derive import derive
from clineval.benchmarks.meddisk.kb import load_kb
from clineval.benchmarks.meddisk.synthetic import MAY_BE_NONE, NONE, ORDER, demo_records
from clineval.errors import ConfigError, DataError

ASPECTS = registry(task()["data"])
ONE_SHOT, ZERO_SHOT = {"exemplars": 1}, {"exemplars": 0}


def _write(tmp_path, *records):
    path = tmp_path / "kb.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                    encoding="utf-8")
    return path


def _disease(ident="D1", **aspects):
    return {"id": ident, "name": {"zh": "某病", "en": "some disease"}, "aspects": aspects}


@pytest.mark.parametrize(("aspects", "message"), [
    ({"primary_symptoms": {"zh": "咳嗽"}},
     r"kb.jsonl, row 2 \(disease 'D1'\), aspect 'primary_symptoms', field "
     r"'aspects.primary_symptoms.zh': expected a list of strings .* enumerated aspect"),
    ({"severity_level": "3"}, r"aspect 'severity_level'.*needs an integer"),
    ({"treatment_principles": {"zh": ["a"]}}, r"expected a string .* declarative aspect"),
    ({"symptoms": {"zh": ["a"]}}, r"row 2 \(disease 'D1'\), field 'aspects': unknown aspect"),
])
def test_loader_errors_name_file_line_disease_aspect(tmp_path, aspects, message):
    path = _write(tmp_path, {"format": "meddisk-kb", "version": 1}, _disease(**aspects))
    with pytest.raises(DataError, match=message):
        load_kb(path, ASPECTS)


def test_loader_rejects_duplicates_roles_and_bad_headers(tmp_path):
    with pytest.raises(DataError, match=r"row 2, field 'id': 'D1' is also on line 1"):
        load_kb(_write(tmp_path, _disease(), _disease()), ASPECTS)
    with pytest.raises(DataError, match="field 'role'"):
        load_kb(_write(tmp_path, {**_disease(), "role": "train"}), ASPECTS)
    with pytest.raises(DataError, match="field 'format'"):
        load_kb(_write(tmp_path, {"format": "meddisk-kb", "version": 2}, _disease()), ASPECTS)
    levels = {**task()["data"]["aspects"]}
    levels["severity_level"] = {**levels["severity_level"], "values": [1, 2, 3]}
    with pytest.raises(DataError, match=r"aspect 'severity_level'.*4 is not one of the allowed"):
        load_kb(_write(tmp_path, _disease(severity_level=4)), registry({"aspects": levels}))
    with pytest.raises(DataError, match="row 1: expected one complete JSON object on the line"):
        (tmp_path / "bad.jsonl").write_text("{oops\n", encoding="utf-8")
        load_kb(tmp_path / "bad.jsonl", ASPECTS)


def test_none_and_not_annotated_values(tmp_path):
    path = _write(tmp_path, _disease(primary_symptoms={"zh": [], "en": None},
                                     onset_ages={"zh": ""}, severity_level=2,
                                     medications=None))
    disease = load_kb(path, ASPECTS)[0]
    assert disease.value("primary_symptoms", "zh") == []  # explicit none
    assert disease.value("primary_symptoms", "en") is None  # not annotated
    assert disease.value("onset_ages", "zh") == ""
    assert disease.value("severity_level", "en") == 2
    assert disease.value("medications", "zh") is None


def test_derive_skips_unannotated_pairs_and_keeps_demos_out(tmp_path):
    demos = [{**_disease(f"X{i}"), "role": "demo"} for i in range(5)]
    path = _write(tmp_path, _disease("T1", primary_symptoms={"zh": ["咳嗽"]}, severity_level=1),
                  *demos)
    examples, exemplars = derive(task()["data"], path, 5)
    assert [e["id"] for e in examples] == ["T1/primary_symptoms", "T1/severity_level"]
    assert sorted(e["id"] for e in exemplars) == [f"X{i}" for i in range(5)]
    with pytest.raises(DataError, match=r"6 demonstration disease\(s\) needed"):
        derive(task()["data"], path, 6)


def test_aspect_registry_is_configurable():
    data = task()["data"]
    changed = {**data["aspects"], "onset_ages": {**data["aspects"]["onset_ages"],
                                                 "type": "enumerated"}}
    assert registry({"aspects": changed})["onset_ages"].type == "enumerated"
    with pytest.raises(ConfigError, match="types: enumerated, declarative, numeric"):
        registry({"aspects": {"x": {"type": "free", "zh": {"label": "x", "verb": "为"}}}})
    assert len(ASPECTS) == 18
    assert sum(a.type == "enumerated" for a in ASPECTS.values()) == 14


def test_instruction_prompt_structure(tmp_path):
    examples, exemplars, _ = demo(tmp_path)
    requests = prompts.build_requests(task(), ONE_SHOT, TEMPLATES, examples, exemplars)
    ps = next(r for r in requests if r["id"] == "D006/primary_symptoms")
    text = ps["messages"][0]["content"]
    assert len(ps["messages"]) == 1 and ps["messages"][0]["role"] == "user"
    assert text.startswith("请写出2型糖尿病的常见症状。")
    assert "先天性核性白内障的常见症状包括白瞳症；视力低下；斜视。" in text
    assert text.endswith("请回答：2型糖尿病的常见症状包括？")
    assert len(ps["exemplar_ids"]) == 5
    assert {e["disease_id"] for e in examples}.isdisjoint(ps["exemplar_ids"])
    zero = prompts.build_requests(task(), ZERO_SHOT, TEMPLATES, examples, exemplars)
    assert zero[0]["exemplar_ids"] == [] and "示例" not in zero[0]["messages"][0]["content"]


def test_completion_prompt_and_none_rendering(tmp_path):
    examples, exemplars, _ = demo(tmp_path, "en")
    completion = {**task("en"), "prompt": {"kind": "completion"}}
    requests = prompts.build_requests(completion, ONE_SHOT, TEMPLATES, examples, exemplars)
    med = next(r for r in requests if r["id"] == "D006/medications")["messages"][0]["content"]
    lines = med.split("\n")
    assert len(lines) == 6 and lines[-1] == "The medications of type 2 diabetes include"
    assert "The medications of congenital nuclear cataract include none." in lines
    with pytest.raises(ValueError, match=r"prompt\.kind"):
        prompts.build_requests({**task(), "prompt": {"kind": "chat"}}, ONE_SHOT, TEMPLATES,
                               examples, exemplars)


def test_demonstrations_are_seeded(tmp_path):
    _, exemplars, kb = demo(tmp_path)
    data = {**task()["data"], "seed": 0}
    three = [e["id"] for e in derive(data, kb, 3)[1]]
    assert three == [e["id"] for e in derive(data, kb, 3)[1]]
    assert three == [e["id"] for e in exemplars][:3]
    other = {tuple(e["id"] for e in derive({**data, "seed": s}, kb, 3)[1]) for s in range(6)}
    assert len(other) > 1


def test_registry_order_survives_sorted_keys():
    shuffled = dict(sorted(task()["data"]["aspects"].items()))  # as identities store it
    assert list(registry({"aspects": shuffled}))[:3] == [
        "patient_population", "prevalence_ages", "onset_ages"]
    assert list(registry({"aspects": shuffled}))[-1] == "severity_level"


def test_meddisk_demo_grid_plans_and_official_kb_is_required(tmp_path):
    from meddisk_records import CONF

    from clineval.workflow.plan.build import build_plan

    def plan(*overrides):
        return build_plan(CONF, ["grid=meddisk_demo", *overrides],
                          results=tmp_path / "results", data_root=tmp_path / "data")

    demo_plan = plan("+table@tables.meddisk_table13=meddisk_table13",
                     "tables.meddisk_table13.pairs=[{medical: meddisk_swap, backbone: oracle}]")
    assert len(demo_plan.cells) == 8  # 4 models x 2 languages, the paper's mode only
    assert {c.mode for c in demo_plan.cells} == {"one_shot"}
    assert set(demo_plan.tables) == {"meddisk_table4", "meddisk_table5", "meddisk_aspects",
                                     "meddisk_tiers", "meddisk_table13"}
    spec = demo_plan.identities["tables/meddisk_table5"]["identity"]["spec"]
    assert spec["rows"] is True and spec["pairs"][0] == {"medical": "meddisk_swap",
                                                         "backbone": "constant"}
    missing = plan("tasks.meddisk_zh.data.source=official", "tasks.meddisk_zh.data.kb=null")
    assert "meddisk_zh" in missing.skipped
    assert "tasks.meddisk_zh.data.kb" in missing.skipped["meddisk_zh"]
    assert {c.task for c in missing.cells} == {"meddisk_en"}


def test_english_answers_in_other_phrasings():
    from clineval.benchmarks.meddisk import extract

    ps = ASPECTS["primary_symptoms"]
    text, status = extract.segment(
        "Sure! The primary symptoms of Type 2 Diabetes are: thirst, polyuria and fatigue. "
        "The primary symptoms of asthma include wheeze.", "type 2 diabetes", ps, "en")
    assert status == "pattern"
    found = extract.answer(text, ps, "en", extract.NONE_WORDS["en"])
    assert found.items == ("thirst", "polyuria", "fatigue")


def test_select_aspects_evaluates_a_subset_of_a_full_kb(tmp_path):
    _, _, kb = demo(tmp_path)
    data = {**task()["data"], "select_aspects": ["severity_level", "medications"]}
    examples, exemplars = derive(data, kb, 5)
    assert {e["aspect"] for e in examples} == {"severity_level", "medications"}
    assert set(exemplars[0]["values"]) == {"severity_level", "medications"}
    with pytest.raises(ConfigError, match="unknown aspect"):
        derive({**data, "select_aspects": ["symptoms"]}, kb, 5)


# --- the demo KB's "none" references ------------------------------------------------------


def test_demo_kb_says_none_only_where_declared_and_clinically_true():
    """Every empty value of the demo KB (either language) is declared in synthetic.NONE with
    its reason, on an aspect that can be none (synthetic.MAY_BE_NONE), and every declared one
    is empty in both languages."""
    records = {r["id"]: r for r in demo_records()[1:]}
    assert set(NONE) <= set(records)
    assert set(ORDER) >= MAY_BE_NONE
    for ident, record in records.items():
        empty = {key for key, value in record["aspects"].items()
                 if isinstance(value, dict) and any(v in ("", []) for v in value.values())}
        declared = NONE.get(ident, {})
        assert empty == set(declared), (ident, empty ^ set(declared))
        for key in declared:
            assert key in MAY_BE_NONE, (ident, key)
            assert record["aspects"][key]["zh"] in ("", []) and record["aspects"][key][
                "en"] in ("", []), (ident, key)
            assert declared[key], (ident, key)


def test_the_issue_34_references_are_not_none():
    records = {r["id"]: r for r in demo_records()[1:]}
    for ident, key in (("D007", "differential_symptoms"), ("D006", "differential_symptoms"),
                       ("D006", "physical_examinations"), ("D006", "surgical_procedures"),
                       ("D002", "onset_ages")):
        assert all(records[ident]["aspects"][key][lang] for lang in ("zh", "en")), (ident, key)
