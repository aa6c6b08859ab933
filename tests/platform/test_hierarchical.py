"""Hierarchical micro P/R/F1 against an independent, literal implementation of the paper's
definition (CliBench §3.6; spec §6)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clineval.metrics import hierarchical

# Levels over toy codes "ABCD": prefixes of 1, 2 and 4 characters; "X..." codes map to nothing
# at level 1 and to two codes at level 2 (as an NDC with two ATC classes).
LEVELS = [
    ("l1", lambda c: set() if c.startswith("X") else {c[:1]}),
    ("l2", lambda c: {c[:2], c[:2] + "'"} if c.startswith("X") else {c[:2]}),
    ("l3", lambda c: {c}),
]


def reference(gold, predicted, drop_empty=False):
    """Per level: sum TP, |P|, |G| over admissions of de-duplicated level sets; micro P/R/F1;
    averages = arithmetic means over levels."""
    out = []
    for _, fn in LEVELS:
        tp = n_p = n_g = 0
        for g, p in zip(gold, predicted, strict=True):
            if drop_empty and len(p) == 0:
                continue
            gs = set().union(*[fn(c) for c in g]) if g else set()
            ps = set().union(*[fn(c) for c in p]) if p else set()
            tp += len(gs & ps)
            n_p += len(ps)
            n_g += len(gs)
        prec = tp / n_p if n_p else 0.0
        rec = tp / n_g if n_g else 0.0
        f = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        out.append((prec, rec, f))
    avg = tuple(sum(v[i] for v in out) / len(out) for i in range(3))
    return out, avg


codes = st.text(alphabet="ABX12", min_size=4, max_size=4)
admissions = st.lists(st.tuples(st.lists(codes, max_size=6), st.lists(codes, max_size=6)),
                      min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(admissions, st.booleans())
def test_matches_the_reference_to_1e_9(pairs, drop):
    gold = [g for g, _ in pairs]
    predicted = [p for _, p in pairs]
    _, scores = hierarchical.score(gold, predicted, LEVELS, "drop" if drop else "zero")
    levels, avg = reference(gold, predicted, drop)
    for ours, (p, r, f) in zip(scores.levels, levels, strict=True):
        assert ours.micro.precision == pytest.approx(p, abs=1e-9)
        assert ours.micro.recall == pytest.approx(r, abs=1e-9)
        assert ours.micro.f1 == pytest.approx(f, abs=1e-9)
    assert scores.average.precision == pytest.approx(avg[0], abs=1e-9)
    assert scores.average.recall == pytest.approx(avg[1], abs=1e-9)
    assert scores.average.f1 == pytest.approx(avg[2], abs=1e-9)


def test_worked_example():
    gold = [["AB12", "AB21", "B111"], ["X111"]]
    predicted = [["AB12", "AB99", "AB98"], []]
    counts, scores = hierarchical.score(gold, predicted, LEVELS)
    # level 1: adm 1 gold {A, B}, pred {A} -> tp 1; adm 2 gold {} (X maps to none), pred {}.
    l1, l2, l3 = scores.levels
    assert (l1.tp, l1.predicted, l1.gold) == (1, 1, 2)
    # level 2: adm 1 gold {AB, B1}, pred {AB}; adm 2 gold {X1, X1'} -> tp 1, |P| 1, |G| 4.
    assert (l2.tp, l2.predicted, l2.gold) == (1, 1, 4)
    assert (l3.tp, l3.predicted, l3.gold) == (1, 3, 4)
    assert l3.micro.precision == pytest.approx(1 / 3)
    assert l3.micro.recall == pytest.approx(1 / 4)
    assert scores.average.f1 == pytest.approx((2 / 3 + 2 / 5 + 2 / 7) / 3)
    assert counts[1] is not None and scores.n_scored == 2


def test_empty_output_counts_as_zero_predictions_or_is_dropped():
    gold = [["AB12"], ["B111"]]
    predicted = [["AB12"], []]
    _, zero = hierarchical.score(gold, predicted, LEVELS, "zero")
    counts, drop = hierarchical.score(gold, predicted, LEVELS, "drop")
    assert zero.levels[2].micro.recall == 0.5
    assert drop.levels[2].micro.recall == 1.0
    assert counts[1] is None and drop.n_dropped == 1 and drop.n_scored == 1


def test_duplicates_collapse_after_mapping():
    _, scores = hierarchical.score([["AB12", "AB13"]], [["AB14", "AB14", "AB15"]], LEVELS)
    assert (scores.levels[1].tp, scores.levels[1].predicted, scores.levels[1].gold) == (1, 1, 1)


def test_macro_f1_is_the_mean_of_per_admission_f1():
    _, scores = hierarchical.score([["AB12"], ["B111", "B222"]], [["AB12"], ["B111"]], LEVELS)
    assert scores.levels[2].macro_f1 == pytest.approx((1 + 2 / 3) / 2)


def test_rejects_an_unknown_policy_and_misaligned_input():
    with pytest.raises(ValueError, match="empty="):
        hierarchical.score([["A"]], [["A"]], LEVELS, "skip")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="gold sets"):
        hierarchical.score([["A"]], [], LEVELS)
