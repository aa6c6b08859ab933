"""Build a tiny Llama-architecture model with random weights from config, offline.

The tokenizer is byte-level (256 byte tokens + a few special tokens, no merges) and carries a
chat template, so the model exercises the real transformers chat + generation path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clineval.io import atomic_directory, make_ordinary

CHAT_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}"
    "<|start_header|>{{ message['role'] }}<|end_header|>\n{{ message['content'] }}<|eot|>"
    "{% endfor %}{% if add_generation_prompt %}<|start_header|>assistant<|end_header|>\n{% endif %}"
)
SPECIAL_TOKENS = ("<|begin_of_text|>", "<|eot|>", "<|pad|>", "<|start_header|>", "<|end_header|>")


def build_tokenizer() -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    core = Tokenizer(models.BPE(vocab={ch: i for i, ch in enumerate(alphabet)}, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    core.decoder = decoders.ByteLevel()
    core.add_special_tokens(list(SPECIAL_TOKENS))
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core,
        bos_token="<|begin_of_text|>",
        eos_token="<|eot|>",
        pad_token="<|pad|>",
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def build(settings: dict[str, Any], out_dir: Path) -> None:
    """Write weights, config and tokenizer into ``out_dir`` (atomically, as one directory)."""
    import torch
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM

    if settings.get("architecture", "llama") != "llama":
        raise ValueError(
            f"tiny model architecture {settings['architecture']!r}; only 'llama' is built"
        )
    tokenizer = build_tokenizer()
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=int(settings["hidden_size"]),
        intermediate_size=int(settings["intermediate_size"]),
        num_hidden_layers=int(settings["num_hidden_layers"]),
        num_attention_heads=int(settings["num_attention_heads"]),
        num_key_value_heads=int(settings["num_key_value_heads"]),
        max_position_embeddings=int(settings["max_position_embeddings"]),
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=False,
    )
    torch.manual_seed(int(settings["seed"]))
    model = LlamaForCausalLM(config).eval()
    model.generation_config = GenerationConfig(
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    with atomic_directory(out_dir) as tmp:
        model.save_pretrained(tmp, safe_serialization=True)
        tokenizer.save_pretrained(tmp)
        make_ordinary(tmp)  # safetensors writes model.safetensors 0600
