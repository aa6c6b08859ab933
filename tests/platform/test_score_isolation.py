"""A model-based score is a function of its own pair: not of its batch mates, the thread count,
or the other cells scored in the same job (BERTScore, sentence embeddings, code matching)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from workflow_run import REPO

from clineval.metrics import embedding
from clineval.metrics.bertscore import BertScoreSettings, bertscore_f1
from clineval.metrics.code_mapping import Candidates
from clineval.workflow.plan.build import build_plan
from clineval.workflow.plan.layout import Cell
from clineval.workflow.steps import entry as steps

PREDICTIONS = [
    "What are the side effects of metformin?",
    "Is it safe to take ibuprofen during pregnancy?",
    "How is type 2 diabetes treated in older adults with kidney disease?",
    "no",
    "What causes a persistent dry cough at night after a cold?",
]
REFERENCES = [
    "What are the adverse effects of metformin?",
    "Can ibuprofen be taken while pregnant?",
    "What is the treatment of diabetes mellitus type 2 in elderly patients with CKD?",
    "Does aspirin interact with warfarin?",
    "What causes chronic nocturnal cough?",
]
#: Texts of other lengths that share a call with the pairs above.
OTHERS = [
    "Chest pain radiating to the left arm with sweating and nausea since this morning",
    "rash",
    "How much vitamin D should an adult with osteoporosis take every day, and for how long?",
]


@pytest.fixture
def threads():
    """Set torch's thread count for a call, and restore it afterwards."""
    before = torch.get_num_threads()
    yield torch.set_num_threads
    torch.set_num_threads(before)


def test_bertscore_alone_equals_among_others_and_any_thread_count(threads) -> None:
    settings = BertScoreSettings()
    pairs = zip(PREDICTIONS, REFERENCES, strict=True)
    alone = [bertscore_f1([p], [r], settings)[0][0] for p, r in pairs]
    for count in (1, 2, 3):
        threads(count)
        together, _ = bertscore_f1(OTHERS + PREDICTIONS, REFERENCES[::-1][:3] + REFERENCES,
                                   settings)
        assert together[len(OTHERS):] == alone, count
    assert all(0 < s < 100 for s in alone)
    assert torch.get_num_threads() == 3  # the thread count of the caller is restored


def test_bertscore_counts_only_the_pair_own_tokens() -> None:
    """In a padded batch, a token whose best cosine is negative would take 0 from padding."""
    settings = BertScoreSettings()
    short = bertscore_f1(["no"], ["Does aspirin interact with warfarin?"], settings)[0][0]
    beside_long = bertscore_f1(["no", OTHERS[2]], ["Does aspirin interact with warfarin?",
                                                  OTHERS[0]], settings)[0][0]
    assert short == beside_long


def test_embeddings_and_cosines_do_not_depend_on_batch_or_threads(threads) -> None:
    alone = np.stack([embedding.embed([t])[0] for t in PREDICTIONS])
    pairs = zip(PREDICTIONS, REFERENCES, strict=True)
    cos_alone = [embedding.cosine_pairs([p], [r])[0] for p, r in pairs]
    for count in (1, 2, 3):
        threads(count)
        together = embedding.embed(OTHERS + PREDICTIONS)[len(OTHERS):]
        np.testing.assert_allclose(together, alone, rtol=0, atol=1e-12)
        assert embedding.cosine_pairs(OTHERS + PREDICTIONS, OTHERS + REFERENCES)[3:] == cos_alone


def test_use_encoder_computes_in_float64_whatever_the_blas_threads() -> None:
    """USE's own float32 pass differs between processors by ~1e-8 (MedDisK's recorded cosines
    did); in float64 the 10 decimals kept cannot depend on the BLAS kernel or its threads."""
    from threadpoolctl import threadpool_limits

    texts = ["糖尿病肾病", "diabetic nephropathy, diabetic retinopathy", *PREDICTIONS[:2]]
    model = embedding._use_model()
    weights = vars(model._model)
    assert weights["proj_W"].dtype == np.float64 and weights["w1"][0].dtype == np.float64
    with threadpool_limits(1, user_api="blas"):
        one = embedding.embed(texts, embedding.BUNDLED_USE)
        cos_one = embedding.cosine_pairs(texts[:2], texts[2:], embedding.BUNDLED_USE)
    with threadpool_limits(2, user_api="blas"):
        two = embedding.embed(texts[::-1], embedding.BUNDLED_USE)[::-1]
        cos_two = embedding.cosine_pairs(texts[:2], texts[2:], embedding.BUNDLED_USE)
    np.testing.assert_allclose(two, one, rtol=0, atol=1e-14)
    assert cos_one == cos_two
    np.testing.assert_allclose(np.linalg.norm(one, axis=1), 1, rtol=0, atol=1e-12)


def test_nearest_code_does_not_depend_on_the_other_queries() -> None:
    bank = Candidates.from_titles({"E11": "Type 2 diabetes mellitus", "I10": "Essential "
                                   "hypertension", "R05": "Cough", "O26": "Pregnancy care"})
    alone = [embedding.nearest([q], bank.vectors) for q in PREDICTIONS]
    together = embedding.nearest(OTHERS + PREDICTIONS, bank.vectors)[len(OTHERS):]
    assert together == [a[0] for a in alone]
    assert [bank.codes[i] for i, _ in together][2] == ("E11",)


@pytest.mark.slow
def test_a_cell_scored_alone_equals_the_cell_scored_in_its_job(demo: Path, tmp_path: Path,
                                                               monkeypatch) -> None:
    """The demo's CLUE score job scored every cell of a model together, under Snakemake's
    thread count; one cell scored again alone, on more threads, gives the same bytes."""
    monkeypatch.chdir(demo)
    plan = build_plan(REPO / "conf")
    cell = Cell("clue_baseline", "clue_meqsum", "one_shot")
    assert cell in plan.cells
    job = steps.ScoreJob(
        identity=plan.identity_file(*cell.path.split("/"), "scoring"),
        examples=plan.derived(cell.task)["examples"],
        requests=plan.artifact("requests", cell),
        generations=plan.artifact("generations", cell),
        rows=tmp_path / "rows.jsonl", summary=tmp_path / "summary.json",
        record=tmp_path / "record.json")
    before = torch.get_num_threads()
    torch.set_num_threads(3)
    try:
        steps.score([job])
    finally:
        torch.set_num_threads(before)
    assert job.rows.read_bytes() == plan.artifact("scores", cell).read_bytes()
    assert job.summary.read_bytes() == plan.artifact("scores", cell, ".json").read_bytes()
