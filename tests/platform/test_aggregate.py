"""Declared aggregates (clineval.metrics.aggregate): a value on rows, and the same value on
every bootstrap resample at once, equal to the value on the resample's rows exactly."""

from __future__ import annotations

import math
from statistics import fmean

import numpy as np
import pytest

from clineval.metrics.aggregate import (
    Count,
    Mean,
    Share,
    Shown,
    Sums,
    combine,
    mean_of_present,
    replicates,
    value,
    values,
)
from clineval.metrics.bootstrap import BootstrapSettings, resamples

RNG = np.random.default_rng(3)
ROWS = [{"id": f"r{i}", "part": "a" if i < 7 else "b", "x": float(RNG.random()) / 3,
         "ok": bool(RNG.random() < 0.5), "counts": [int(v) for v in RNG.integers(0, 5, 2)]}
        for i in range(10)]


def _in(part: str):
    return lambda row: row["part"] == part


def test_kinds_on_rows():
    a = [r for r in ROWS if r["part"] == "a"]
    assert value(Count(lambda r: r["ok"]), ROWS) == sum(r["ok"] for r in ROWS)
    assert value(Sums(lambda r: r["counts"], 2), ROWS) == [
        sum(r["counts"][0] for r in ROWS), sum(r["counts"][1] for r in ROWS)]
    assert value(Mean(lambda r: r["x"], _in("a")), ROWS) == fmean(r["x"] for r in a)
    assert value(Share(lambda r: r["ok"], _in("a")), ROWS) == fmean(r["ok"] for r in a)
    assert value(combine(lambda k, n: k / n, Count(lambda r: r["ok"]), Count()), ROWS) == \
        sum(r["ok"] for r in ROWS) / len(ROWS)


def test_undefined_values():
    assert value(Mean(lambda r: r["x"], _in("c")), ROWS) is None  # no rows
    assert value(Mean(lambda r: None if r["id"] == "r2" else r["x"]), ROWS) is None  # a gap
    assert value(Share(lambda r: r["ok"]), []) is None
    assert value(Count(), []) == 0
    assert value(Sums(lambda r: r["counts"], 2), []) == [0, 0]
    with pytest.raises(ValueError, match="row 'r0': 2 values where the aggregate sums 3"):
        value(Sums(lambda r: r["counts"], 3), ROWS)


def test_mean_of_present_parts():
    parts = [(Mean(lambda r, p=p: r["x"], _in(p)), Count(_in(p))) for p in ("a", "b", "c")]
    expected = fmean([value(parts[0][0], ROWS), value(parts[1][0], ROWS)])
    assert value(mean_of_present(parts), ROWS) == expected
    assert value(mean_of_present(parts), []) is None


def test_replicates_equal_values_on_each_resample_and_skip_absent_parts():
    mean_b = Mean(lambda r: r["x"], _in("b"))
    shared = Count(lambda r: r["ok"])
    headline = {
        "mean.a": Shown(Mean(lambda r: r["x"], _in("a")), _in("a")),
        "mean.b": Shown(mean_b, _in("b")),
        "ok": Shown(combine(lambda k, n: k / n, shared, Count())),
        "ok_twice": Shown(combine(lambda k: 2 * k, shared)),
        "sums": Shown(combine(lambda s: s[0] - s[1], Sums(lambda r: r["counts"], 2))),
    }
    drawn = resamples(len(ROWS), BootstrapSettings(samples=300, seed=1))
    got = replicates(headline, ROWS, drawn)
    expected: dict[str, list] = {}
    for indices in drawn:
        rows = [ROWS[i] for i in indices]
        for name, shown in headline.items():
            if any(shown.part(r) for r in rows):
                expected.setdefault(name, []).append(value(shown.aggregate, rows))
    assert got == expected  # exact
    assert len(got["mean.b"]) < len(drawn)  # some resamples draw no row of part b
    assert values({"x": mean_b}, ROWS) == {"x": value(mean_b, ROWS)}


def test_float_sums_are_exact_in_any_order():
    rows = [{"x": v} for v in (0.1, 0.2, 0.3, 1e16, -1e16)]
    assert value(Mean(lambda r: r["x"]), rows) == math.fsum(r["x"] for r in rows) / 5
    drawn = np.array([[4, 3, 2, 1, 0]])
    assert replicates({"m": Shown(Mean(lambda r: r["x"]))}, rows, drawn)["m"] == [
        value(Mean(lambda r: r["x"]), rows)]
