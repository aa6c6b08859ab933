"""A model's prompt kind (chat / completion / auto): resolved at plan time, in the requests
identity of that model's cells only, followed by MedDisK's prompts, sent raw by the backends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from meddisk_records import TEMPLATES, demo, task

from clineval.benchmarks.base import request_record
from clineval.benchmarks.meddisk import prompts
from clineval.config.prompt_kind import prompt_kind
from clineval.config.validate import validate_model
from clineval.errors import ConfigError
from clineval.workflow.plan.build import build_plan

CONF = Path(__file__).resolve().parents[2] / "conf"
ONE_SHOT = {"exemplars": 1}


def _local(tmp_path: Path, tokenizer_config: dict | None) -> dict:
    if tokenizer_config is not None:
        (tmp_path / "tokenizer_config.json").write_text(json.dumps(tokenizer_config))
    return {"backend": "vllm", "path": str(tmp_path)}


def test_auto_follows_the_chat_template(tmp_path):
    assert prompt_kind("base", _local(tmp_path, {"bos_token": "<s>"})) == "completion"
    assert prompt_kind("inst", _local(tmp_path, {"chat_template": "{{ x }}"})) == "chat"
    (tmp_path / "tokenizer_config.json").unlink()
    (tmp_path / "chat_template.jinja").write_text("{{ x }}")
    assert prompt_kind("inst", _local(tmp_path, None)) == "chat"
    assert prompt_kind("absent", {"backend": "vllm", "path": str(tmp_path / "no")}) == "chat"
    assert prompt_kind("api", {"backend": "openai"}) == "chat"
    assert prompt_kind("tiny", {"backend": "transformers", "build": {"seed": 0}}) == "chat"
    assert prompt_kind("forced", {**_local(tmp_path, None), "prompt_kind": "completion"}) == (
        "completion")
    assert prompt_kind("templated", {"backend": "vllm", "path": str(tmp_path / "no"),
                                     "engine": {"chat_template": "t.jinja"}}) == "chat"


def test_validation_names_the_key():
    model = {"id": "x", "revision": "1", "backend": "openai", "display_name": "X",
             "sampling": {"temperature": 0, "max_tokens": 5, "seed": 0},
             "api": {"base_url": "http://h", "model": "m"},
             "access": {"allow_credentialed_data": False}}
    with pytest.raises(ConfigError, match=r"prompt_kind='base': unknown value; valid prompt "
                                          r"kinds: auto, chat, completion"):
        validate_model("x", {**model, "prompt_kind": "base"})
    with pytest.raises(ConfigError, match=r"prompt_kind=completion: the openai backend"):
        validate_model("x", {**model, "prompt_kind": "completion"})


def test_the_kind_changes_only_that_models_requests(tmp_path):
    select = ("grid.select.tasks=[meddisk_en,medcalc] grid.select.models=[tiny_llama,oracle] "
              "grid.select.tables=null")
    args = {"results": tmp_path / "results", "data_root": tmp_path / "data"}
    chat = build_plan(CONF, select, **args)
    base = build_plan(CONF, select + " +models.tiny_llama.prompt_kind=completion", **args)
    changed = {k for k in chat.identities if chat.identities[k]["sha"] != base.identities.get(
        k, {}).get("sha")}
    assert "tiny_llama/meddisk_en/one_shot/requests" in changed
    assert all(k.startswith(("tiny_llama/", "tables/", "export-eee/tiny_llama/")) for k in changed)
    assert not any(k.startswith("oracle/") for k in changed)
    ident = base.identities["tiny_llama/meddisk_en/one_shot/requests"]["identity"]
    assert ident["prompt_kind"] == "completion"
    assert "prompt_kind" not in chat.identities[
        "tiny_llama/meddisk_en/one_shot/requests"]["identity"]  # chat: earlier identities kept


def test_meddisk_prompt_follows_the_model_unless_overridden(tmp_path):
    examples, exemplars, _ = demo(tmp_path, "en")
    auto = {**task("en"), "prompt": {"kind": "auto"}}
    chat = prompts.build_requests(auto, ONE_SHOT, TEMPLATES, examples, exemplars, "chat")
    base = prompts.build_requests(auto, ONE_SHOT, TEMPLATES, examples, exemplars, "completion")
    text = base[0]["messages"][0]["content"]
    assert base[0]["completion"] is True and "completion" not in chat[0]
    assert text.split("\n")[-1] == "The patient population of type 2 diabetes includes"
    assert chat[0]["messages"][0]["content"] != text
    assert base[0]["request_sha"] != request_record("x", base[0]["messages"], [])["request_sha"]
    forced = {**task("en"), "prompt": {"kind": "completion"}}
    over = prompts.build_requests(forced, ONE_SHOT, TEMPLATES, examples, exemplars, "chat")
    assert over[0]["messages"][0]["content"] == text and "completion" not in over[0]
    instruction = {**task("en"), "prompt": {"kind": "instruction"}}
    assert prompts.build_requests(instruction, ONE_SHOT, TEMPLATES, examples, exemplars,
                                  "completion")[0]["messages"] == chat[0]["messages"]
