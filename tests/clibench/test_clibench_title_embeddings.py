"""CliBench's title embeddings are a derived artifact: built once per task by the workflow,
identified by the scoring inputs they are made from, read back by scoring (issue 26)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from clineval.benchmarks.clibench import pools
from clineval.io import DataError, write_json
from clineval.metrics import embedding
from clineval.metrics.code_mapping import Candidates
from clineval.provenance.record import FileHashes, prov_path
from clineval.workflow.plan.build import build_plan
from clineval.workflow.steps.entry import checked_inputs

REPO = Path(__file__).resolve().parents[2]
CLIBENCH = ("clibench_diagnoses", "clibench_labs", "clibench_prescriptions",
            "clibench_procedures")
ROLE = pools.EMBEDDINGS
TITLES = ["Essential (primary) hypertension", "Type 2 diabetes mellitus without complications",
          "Acute kidney failure, unspecified", "Pneumonia, unspecified organism"]


def plan(tmp_path: Path, *overrides: str):
    return build_plan(REPO / "conf", list(overrides), results=tmp_path / "results",
                      data_root=tmp_path / "data")


def test_stored_vectors_read_back_as_the_cached_ones(tmp_path, monkeypatch):
    monkeypatch.setenv("CLINEVAL_EMBEDDING_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "titles.npy"
    meta = embedding.write_vectors(out, TITLES)
    assert meta == {"key": embedding.cache_key(TITLES, embedding.BUNDLED),
                    "encoder": embedding.BUNDLED_NAME, "texts": 4}
    vectors, key = embedding.read_vectors(out, TITLES)
    cached, cached_key = embedding.embed_cached(TITLES)
    assert key == cached_key == meta["key"]
    assert vectors.tobytes() == cached.tobytes()
    again = tmp_path / "again.npy"
    embedding.write_vectors(again, TITLES)
    assert again.read_bytes() == out.read_bytes()  # byte-identical on every rebuild


def test_stored_vectors_of_other_texts_are_refused_naming_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("CLINEVAL_EMBEDDING_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "titles.npy"
    embedding.write_vectors(out, TITLES[:3])
    with pytest.raises(ValueError, match=rf"{out}: expected the float64 embeddings of 4 texts"):
        embedding.read_vectors(out, TITLES)
    out.write_bytes(b"not an array")
    with pytest.raises(ValueError, match=rf"{out}: stored text embeddings cannot be read"):
        embedding.read_vectors(out, TITLES)


def test_candidates_with_a_stored_file_match_as_without(tmp_path, monkeypatch):
    monkeypatch.setenv("CLINEVAL_EMBEDDING_CACHE", str(tmp_path / "cache"))
    titles = {f"C{i}": t for i, t in enumerate(TITLES)}
    fresh = Candidates.from_titles(titles)
    out = tmp_path / "titles.npy"
    embedding.write_vectors(out, fresh.titles)
    stored = Candidates.from_titles(titles, vectors_file=out)
    queries = ["high blood pressure", "lung infection", "kidney injury"]
    assert (embedding.nearest(queries, stored.vectors)
            == embedding.nearest(queries, fresh.vectors))
    assert stored.embedded[1] == fresh.embedded[1]


def test_each_clibench_task_derives_its_title_embeddings_and_scoring_names_them(tmp_path):
    p = plan(tmp_path)
    for task in CLIBENCH:
        path = p.derived_inputs(task)[ROLE]
        assert path == tmp_path / "data" / "derived" / task / "title_embeddings.npy"
        derived = p.identities[f"inputs/{task}/{ROLE}"]
        assert derived["identity"]["kind"] == "scoring_input"
        assert "encoder:config.json" in derived["identity"]["inputs"]
        assert p.scoring_inputs(task)[ROLE] == path
        for model in ("smollm2_135m", "tiny_llama"):
            entry = p.identities[f"{model}/{task}/zero_shot/scoring"]["identity"]["inputs"][ROLE]
            assert entry == {"path": str(path), "sha256": None, "identity": derived["sha"]}
        assert p.record_file("scoring_input", f"{task}/{ROLE}") == prov_path(path)
    others = {c.task for c in p.cells} - set(CLIBENCH)
    assert others and not any(p.derived_inputs(t) for t in others)


def test_only_what_decides_the_vectors_rebuilds_them(tmp_path):
    key = f"inputs/clibench_labs/{ROLE}"
    before = plan(tmp_path).identities
    pool = plan(tmp_path, "tasks.clibench_labs.scoring.lab_codes=itemid").identities
    assert pool[key]["identity"]["settings"] == {"task": "labs", "encoder": "bundled-minilm",
                                                 "itemids": True}
    changed = {k for k in before if before[k]["sha"] != pool[k]["sha"]}
    assert {k for k in changed if k.startswith("inputs/")} == {key}
    assert {k for k in changed if k.endswith("/scoring")} == {
        k for k in before if k.endswith("/scoring") and "/clibench_labs/" in k}
    # a matcher setting that is no part of the vectors rescoring them, but keeps the file
    threshold = plan(tmp_path, "tasks.clibench_labs.scoring.threshold=0.6").identities
    assert threshold[key]["sha"] == before[key]["sha"]
    assert any(threshold[k]["sha"] != before[k]["sha"] for k in before
               if k.endswith("/scoring") and "/clibench_labs/" in k)


def _scoring_identity(path: Path, identity: str) -> dict:
    return {"inputs": {ROLE: {"path": str(path), "sha256": None, "identity": identity}}}


def test_scoring_refuses_embeddings_built_for_another_identity(tmp_path):
    path = tmp_path / "title_embeddings.npy"
    np.save(path, np.zeros((2, 3)))
    with pytest.raises(DataError, match=rf"{path}.*{ROLE}.*is missing, but the plan expects "
                                        "identity aaaa"):
        checked_inputs(_scoring_identity(path, "a" * 64), FileHashes())
    write_json(prov_path(path), {"identity": "b" * 64})
    with pytest.raises(DataError, match=r"was built for identity bbbb.*expects identity aaaa"):
        checked_inputs(_scoring_identity(path, "a" * 64), FileHashes())
    write_json(prov_path(path), {"identity": "a" * 64})
    assert checked_inputs(_scoring_identity(path, "a" * 64), FileHashes()) == {ROLE: path}
    assert json.loads(prov_path(path).read_text())["identity"] == "a" * 64


def test_the_step_writes_the_vectors_and_a_record_scoring_accepts(tmp_path, monkeypatch):
    from clineval.io import read_identity
    from clineval.provenance.record import read_record
    from clineval.workflow.steps import entry as steps

    monkeypatch.setenv("CLINEVAL_EMBEDDING_CACHE", str(tmp_path / "cache"))
    p = plan(tmp_path, "grid.select.tasks=[clibench_diagnoses]")
    p.write_identities()
    task = "clibench_diagnoses"
    derived = p.derived(task)
    steps.derive(p.identity_file("data", task), Path(derived["examples"]),
                 Path(derived["exemplars"]), p.record_file("data", task), write_demo=True)
    out, record_path = p.derived_inputs(task)[ROLE], p.record_file("scoring_input",
                                                                    f"{task}/{ROLE}")
    steps.derive_scoring_inputs([(p.identity_file("inputs", task, ROLE), out, record_path)])
    record = read_record(record_path)
    assert record["kind"] == "scoring_input" and record["key"] == f"{task}/{ROLE}"
    assert record["identity"] == p.identities[f"inputs/{task}/{ROLE}"]["sha"]
    assert set(record["outputs"]) == {ROLE} and "d_icd_diagnoses" in record["inputs"]
    assert record["details"]["texts"] == np.load(out).shape[0] > 0
    _, scoring = read_identity(p.identity_file("tiny_llama", task, "zero_shot", "scoring"))
    assert checked_inputs(scoring, FileHashes())[ROLE] == out
