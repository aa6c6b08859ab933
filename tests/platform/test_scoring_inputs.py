"""Files a benchmark's scoring reads are part of the scoring identity by content, and large
files are hashed once while their size and modification time stay the same."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from clineval.errors import ConfigError
from clineval.metrics.embedding import bundled_path
from clineval.provenance import record as record_module
from clineval.provenance.filehash import FileHashCache
from clineval.provenance.record import FileHashes
from clineval.workflow.plan.build import build_plan

REPO = Path(__file__).resolve().parents[2]
BERT_TASKS = ("clue_meqsum", "clue_problem_summary", "clue_medisumqa")


@pytest.fixture
def encoder(tmp_path) -> Path:
    copy = tmp_path / "encoder"
    shutil.copytree(bundled_path(), copy)
    return copy


def plan(tmp_path: Path, encoder: Path):
    overrides = [f"tasks.{t}.scoring.bertscore.model={encoder}" for t in BERT_TASKS]
    return build_plan(REPO / "conf", overrides, results=tmp_path / "results",
                      data_root=tmp_path / "data")


def test_scoring_identity_holds_the_encoders_file_hashes(tmp_path, encoder):
    p = plan(tmp_path, encoder)
    inputs = p.identities["tiny_llama/clue_meqsum/one_shot/scoring"]["identity"]["inputs"]
    assert inputs["encoder:config.json"]["path"] == str(encoder / "config.json")
    assert len(inputs["encoder:config.json"]["sha256"]) == 64
    assert any(role.endswith(".safetensors") or role.endswith(".bin") for role in inputs)
    mednli = p.identities["tiny_llama/clue_mednli/one_shot/scoring"]["identity"]["inputs"]
    assert mednli == {}  # accuracy reads no encoder
    assert p.scoring_inputs("clue_meqsum") == {role: Path(e["path"]) for role, e in inputs.items()}


def test_a_changed_encoder_file_changes_only_the_scoring_of_its_tasks(tmp_path, encoder):
    before = plan(tmp_path, encoder).identities
    config = encoder / "config.json"
    config.write_text(json.dumps(json.loads(config.read_text()), indent=4))  # same JSON, new bytes
    after = plan(tmp_path, encoder).identities
    changed = {k for k in before if before[k]["sha"] != after[k]["sha"]}
    # the tables follow through their new score summaries, not through an identity
    assert changed == {key for m in ("smollm2_135m", "tiny_llama", "clue_baseline")
                       for t in BERT_TASKS
                       for key in (f"{m}/{t}/one_shot/scoring", f"export-eee/{m}/{t}")}


def test_a_missing_encoder_stops_the_plan_naming_the_setting(tmp_path):
    message = r"tasks\.clue_\w+\.scoring\.bertscore\.model: encoder .* not found"
    with pytest.raises(ConfigError, match=message):
        plan(tmp_path, tmp_path / "nowhere")


def test_large_files_are_read_once_while_size_and_mtime_hold(tmp_path, monkeypatch):
    big = tmp_path / "labevents.csv"
    big.write_text("subject_id,itemid\n1,50912\n")
    cache = FileHashCache(tmp_path / "hashes.json")
    first = cache.sha256(big, "source")
    cache.save()
    reads = []
    real = record_module.sha256_file
    monkeypatch.setattr(record_module, "sha256_file", lambda p: reads.append(p) or real(p))
    monkeypatch.setattr("clineval.provenance.filehash.sha256_file",
                        lambda p: reads.append(p) or real(p))
    reloaded = FileHashCache(tmp_path / "hashes.json")
    assert FileHashes(reloaded)(big) == first and reads == []  # known, unchanged: not read
    artifact = tmp_path / "scores.jsonl"
    artifact.write_text("{}\n")
    FileHashes(reloaded)(artifact)
    assert reads == [artifact]  # workflow artifacts are always read
    stat = big.stat()
    big.write_text("subject_id,itemid\n2,50912\n")  # same size
    os.utime(big, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert FileHashes(reloaded)(big) != first and reads[-1] == big
    assert FileHashes()(big) == FileHashes(reloaded)(big)  # --rehash reads it: same answer


def test_a_demos_scoring_files_lie_under_the_plans_data_root(tmp_path, encoder):
    """CliBench's demo ontology files are written by the workflow under the data root the plan
    was given: the plan names them there and leaves their hash to the score record."""
    p = plan(tmp_path, encoder)
    inputs = p.identities["tiny_llama/clibench_diagnoses/zero_shot/scoring"]["identity"]["inputs"]
    entry = inputs["d_icd_diagnoses"]
    assert Path(entry["path"]).is_relative_to(tmp_path / "data" / "demo" / "clibench_diagnoses")
    assert entry["sha256"] is None
    assert p.scoring_inputs("clibench_diagnoses")["d_icd_diagnoses"] == Path(entry["path"])


def test_packaged_files_are_named_the_same_in_every_environment(tmp_path):
    """The bundled encoder and clineval's own package files live under the Python environment,
    whose path differs between machines: identities name them from their root, so they do not
    change when the project is cloned elsewhere, and the name finds the file again."""
    from clineval.benchmarks.clibench.abbreviations import HAND_TABLE
    from clineval.provenance.location import located, portable

    p = build_plan(REPO / "conf", [], results=tmp_path / "results", data_root=tmp_path / "data")
    inputs = p.identities["tiny_llama/clue_meqsum/one_shot/scoring"]["identity"]["inputs"]
    config = inputs["encoder:config.json"]
    assert config["path"].startswith("<site-packages>/") and str(REPO) not in config["path"]
    assert located(config["path"]) == bundled_path().resolve() / "config.json"
    own = portable(HAND_TABLE)
    assert own == "<clineval>/benchmarks/clibench/lab_abbreviations.csv"
    assert located(own) == HAND_TABLE.resolve()
    assert portable(Path("data/x.csv")) == "data/x.csv"
    assert portable(tmp_path / "x.csv") == str(tmp_path / "x.csv")
