"""CliBench's careful reading against a hand-graded set of real model outputs (issue 34).

``tests/fixtures/clibench_graded/`` (README.md there) holds real SmolLM2-135M outputs on the four
CliBench demo tasks in several settings (``outputs.jsonl``) and, per output and its answer
items, the grade a careful grader following the paper gives it (``grades.jsonl``, each item's
grade in the output grade's ``context``): whether the item is a
decision, and which candidate codes of the demo dictionaries it names (none: no decision, or a
decision that no candidate title names). Each item's nearest candidate and similarity are stored
(the mapping inputs; for a lab item the careful reading writes out, ``read_as``: the written-out
text's), so the check needs no encoder; one test recomputes them. The demo dictionaries are
written once (the careful reading reads the candidates' titles: abbreviations, opposites).

An item agrees when the codes the harness keeps for it under the careful reading (the rules of
:mod:`clineval.benchmarks.clibench.decisions` and the similarity floor) are the grade's codes.
Agreement is counted once per distinct item of an output: a repeated line is one decision, and
so are items that differ only in their numbers ("C-RBC: 9.5", "C-RBC: 10.5": one test ordered
with made-up values); such a group agrees when each of its items does.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from clibench_graded_set import _outputs, demo_dictionaries, scorer_of, stored_items

from clineval.benchmarks.clibench import scoring
from clineval.metrics.code_mapping import Item


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    """The demo dictionaries (what the set's items were mapped to)."""
    return demo_dictionaries(tmp_path_factory.mktemp("clibench-demo"))


def _same_mapping(found: list[Item], stored: list[Item], key: str) -> None:
    assert [(i.text, i.codes, i.how) for i in found] == [(i.text, i.codes, i.how)
                                                         for i in stored], key
    assert [i.similarity for i in found] == pytest.approx([i.similarity for i in stored],
                                                          abs=1e-6), key


@pytest.mark.slow
def test_the_stored_nearest_mapping_is_the_encoders(demo: Path) -> None:
    """The stored mapping inputs are what the matcher gives on the demo dictionaries: each
    item's nearest title, and the written-out text's for an item the careful reading writes
    out."""
    records = _outputs()
    for kind in {r["task"] for r in records}:
        mapper = scorer_of({"task": kind, "mode": "zero_shot"}, demo, None).mapper()
        mine = [r for r in records if r["task"] == kind]
        texts = [scoring.answer_text(r["output"], r["mode"] == "cot") for r in mine]
        for record, items in zip(mine, mapper.map_all(texts), strict=True):
            stored, read = stored_items(record)
            _same_mapping(items, stored, record["key"])
            found = scorer_of(record, demo, None).read_as(mapper, [items])
            assert sorted(found) == sorted(read), record["key"]
            _same_mapping([found[t] for t in sorted(found)], [read[t] for t in sorted(read)],
                          record["key"])
