"""Batched chat generation with Hugging Face transformers, on CPU or GPU."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clineval.inference.base import Generation, completion_text, with_sampling_max_tokens
from clineval.inference.registry import BackendSpec, Inputs


@dataclass
class TransformersEngine:
    """``engine:`` of a transformers model (the config's schema; field metadata: the range)."""

    device: str = "cpu"  # a torch device: cpu, cuda, cuda:1, mps
    dtype: str = "float32"  # a torch dtype name
    batch_size: int = field(default=8, metadata={"ge": 1})  # requests per batch, by length
    #: the padding a prompt may take in its batch, as a share of the batch's longest prompt
    #: (a shorter one starts the next batch): padded tokens cost as much as real ones
    max_padding: float = field(default=0.25, metadata={"ge": 0, "le": 1})


class LoopStop:
    """Ends a sequence whose last ``span`` generated tokens repeat themselves with a period of
    at most ``span // 2`` tokens (so at least three times), a number counting as any number
    ("6. Hypoglycemia\n7. Hypoglycemia\n…", "- ALT 9.5 mg/L\n- ALT 10.5 mg/L\n…"): a greedy
    model in such a loop never leaves it, and the tokens it would add until ``max_tokens``
    repeat what the output already holds. Records, per row of the batch, the length at which
    it stopped (``stopped``)."""

    def __init__(self, prompt_width: int, span: int, digits: frozenset[int], eos: int | None):
        self.width, self.span, self.digits, self.eos = prompt_width, span, digits, eos
        self.stopped: dict[int, int] = {}

    def looping(self, tokens: list[int]) -> bool:
        """Whether ``tokens`` end in such a loop (a run of digit tokens is one token)."""
        longest = self.span // 2
        tail: list[int] = []
        for t in tokens[-3 * (self.span + longest):]:
            if t not in self.digits:
                tail.append(t)
            elif not tail or tail[-1] != -1:
                tail.append(-1)
        if len(tail) <= self.span:
            return False
        last = tail[-self.span:]
        return any(last == tail[-self.span - p : -p] for p in range(1, longest + 1)
                   if len(tail) >= self.span + p)

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        import torch

        done = torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)
        length = input_ids.shape[1] - self.width
        if length < self.span + 1 or length % 4:
            return done  # checked every fourth token: a loop is seen at most 3 tokens late
        for row, ids in enumerate(input_ids[:, self.width :].tolist()):
            if row in self.stopped or self.eos in ids:
                continue  # stopped, or ended: padding follows its end of sequence
            if self.looping(ids):
                self.stopped[row] = length
                done[row] = True
        return done


class TransformersBackend:
    """Loads a local model once; generates greedily or by sampling, every parameter explicit."""

    def __init__(self, model_dir: Path, sampling: dict[str, Any], engine: dict[str, Any]):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.torch = torch
        self.sampling = dict(sampling)
        self.engine = dict(engine)
        self.device = engine.get("device", "cpu")
        dtype = getattr(torch, engine.get("dtype", "float32"))
        self.tokenizer = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.model = (
            AutoModelForCausalLM.from_pretrained(model_dir, dtype=dtype, local_files_only=True)
            .to(self.device)
            .eval()
        )
        self._digits: frozenset[int] | None = None  # token ids of digits (LoopStop)

    def effective_settings(self) -> dict[str, Any]:
        s = self.sampling
        greedy = float(s["temperature"]) == 0.0
        return {
            "backend": "transformers",
            "do_sample": not greedy,
            "temperature": None if greedy else float(s["temperature"]),
            "top_p": None if greedy else float(s.get("top_p", 1.0)),
            "top_k": None if greedy else int(s.get("top_k", 0)),
            "max_new_tokens": int(s["max_tokens"]),
            "repetition_penalty": float(s.get("repetition_penalty", 1.0)),
            "stop_loop": s.get("stop_loop"),
            "seed": int(s["seed"]),
            "device": self.device,
            "dtype": self.engine.get("dtype", "float32"),
            "batch_size": int(self.engine.get("batch_size", TransformersEngine.batch_size)),
            "max_padding": self.max_padding,
        }

    def with_max_tokens(self, max_tokens: int) -> TransformersBackend:
        return with_sampling_max_tokens(self, max_tokens)

    @property
    def max_padding(self) -> float:
        """``engine.max_padding`` (:class:`TransformersEngine`)."""
        return float(self.engine.get("max_padding", TransformersEngine.max_padding))

    def _generation_config(self) -> Any:
        from transformers import GenerationConfig

        eff = self.effective_settings()
        kwargs: dict[str, Any] = {
            "max_new_tokens": eff["max_new_tokens"],
            "do_sample": eff["do_sample"],
            "repetition_penalty": eff["repetition_penalty"],
            "eos_token_id": self.tokenizer.eos_token_id,
            "pad_token_id": self.tokenizer.pad_token_id,
        }
        if eff["do_sample"]:
            kwargs.update(temperature=eff["temperature"], top_p=eff["top_p"], top_k=eff["top_k"])
        return GenerationConfig(**kwargs)

    def _prompt_ids(self, request: dict[str, Any]) -> list[int]:
        """A chat request through the chat template (which writes its own special tokens); a
        completion request as raw text with the tokenizer's special tokens (BOS where it adds
        one)."""
        text = completion_text(request)
        if text is not None:
            return list(self.tokenizer(text)["input_ids"])
        prompt = self.tokenizer.apply_chat_template(
            request["messages"], tokenize=False, add_generation_prompt=True
        )
        return list(self.tokenizer(prompt, add_special_tokens=False)["input_ids"])

    def prompt_length(self, request: dict[str, Any]) -> int:
        """The request's prompt in tokens (generation sorts by it, so batches pad little)."""
        return len(self._prompt_ids(request))

    def generate(self, requests: list[dict[str, Any]]) -> list[Generation]:
        torch = self.torch
        batch = self.tokenizer.pad({"input_ids": [self._prompt_ids(r) for r in requests]},
                                   return_tensors="pt")
        batch = {k: v.to(self.device) for k, v in batch.items()}
        torch.manual_seed(int(self.sampling["seed"]))
        width = batch["input_ids"].shape[1]
        loop = self._loop_stop(width)
        with torch.inference_mode():
            out = self.model.generate(**batch, generation_config=self._generation_config(),
                                      stopping_criteria=[loop] if loop else None)
        results = []
        for index, row in enumerate(out[:, width:].tolist()):
            looped = loop is not None and index in loop.stopped
            if looped:
                row = row[: loop.stopped[index]]
            eos = self.tokenizer.eos_token_id
            stopped = not looped and eos in row
            tokens = row[: row.index(eos)] if stopped else row
            tokens = [t for t in tokens if t != self.tokenizer.pad_token_id]
            reason = "loop" if looped else "stop" if stopped else "length"
            results.append(
                Generation(
                    output=self.tokenizer.decode(tokens, skip_special_tokens=True),
                    finish_reason=reason,
                    prompt_tokens=int(batch["attention_mask"][index].sum()),
                    completion_tokens=len(tokens) + (1 if stopped else 0),
                )
            )
        return results

    def _loop_stop(self, width: int) -> LoopStop | None:
        """The stopping rule of ``sampling.stop_loop`` (None: off)."""
        span = self.sampling.get("stop_loop")
        if not span:
            return None
        if self._digits is None:
            vocab = self.tokenizer.get_vocab()
            self._digits = frozenset(i for text, i in vocab.items()
                                     if self.tokenizer.convert_tokens_to_string([text])
                                     .strip().isdigit())
        return LoopStop(width, int(span), self._digits, self.tokenizer.eos_token_id)


def load(inputs: Inputs) -> TransformersBackend:
    """The model of the local folder, on the engine's device."""
    model = inputs.model
    return TransformersBackend(inputs.folder(), model["sampling"], model.get("engine") or {})


BACKEND = BackendSpec(
    "transformers", load, sections={"engine": TransformersEngine}, local_weights=True,
    unsupported_sampling=frozenset({"stop", "json_schema"}),
)
