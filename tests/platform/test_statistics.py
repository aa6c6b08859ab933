"""Bootstrap intervals, paired comparisons and table statistics settings, checked against
independent numpy and scipy computations of the documented scheme (docs/statistics.md)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from clineval.benchmarks import get_benchmark
from clineval.metrics.bootstrap import BootstrapSettings, intervals, percentile_interval
from clineval.metrics.paired import bootstrap_p, mcnemar_exact, paired_bootstrap
from clineval.metrics.significance import adjust
from clineval.tables import statistics
from clineval.workflow.steps.statistics import comparisons, statistic


def _reference_mean_ci(values, samples, seed, level):
    """The documented scheme, written out with numpy only."""
    data = np.asarray(values, dtype=float)
    idx = np.random.default_rng(seed).integers(0, data.size, size=(samples, data.size))
    reps = data[idx].mean(axis=1)
    return tuple(np.percentile(reps, [50 * (1 - level), 50 * (1 + level)]))


def test_mean_interval_matches_an_independent_numpy_implementation():
    values = np.random.default_rng(7).random(40)
    boot = BootstrapSettings(samples=500, seed=3, level=0.9)
    got = intervals(lambda i: {"mean": float(values[i].mean())}, values.size, boot)["mean"]
    assert got == pytest.approx(_reference_mean_ci(values, 500, 3, 0.9), abs=1e-12)


def test_corpus_statistic_is_recomputed_not_averaged():
    # micro precision sum(tp)/sum(pred): the ratio of resampled sums, not a mean of ratios
    tp = np.array([1, 0, 3, 2, 5])
    pred = np.array([2, 1, 3, 4, 5])
    boot = BootstrapSettings(samples=200, seed=0)
    got = intervals(lambda i: {"p": tp[i].sum() / pred[i].sum()}, 5, boot)["p"]
    idx = np.random.default_rng(0).integers(0, 5, size=(200, 5))
    reps = tp[idx].sum(axis=1) / pred[idx].sum(axis=1)
    assert got == pytest.approx(tuple(np.percentile(reps, [2.5, 97.5])))


def test_undefined_replicates_are_left_out_and_no_examples_give_no_interval():
    assert percentile_interval([None, 1.0, float("nan"), 3.0], 0.5) == (1.5, 2.5)
    assert percentile_interval([None], 0.95) is None
    assert intervals(lambda i: {"x": 1.0}, 0, BootstrapSettings()) == {}


def test_interval_is_seeded_and_contains_the_estimate_of_a_constant():
    boot = BootstrapSettings(samples=100, seed=11)
    values = np.arange(30.0)

    def stat(i):
        return {"m": float(values[i].mean())}

    assert intervals(stat, 30, boot) == intervals(stat, 30, boot)
    assert intervals(stat, 30, boot) != intervals(stat, 30, BootstrapSettings(100, 12))
    assert intervals(lambda i: {"c": 2.0}, 30, boot)["c"] == (2.0, 2.0)


def test_mcnemar_exact_is_a_binomial_test_on_discordant_pairs():
    a = [1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1]
    b = [0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0]
    only_a = sum(x and not y for x, y in zip(a, b, strict=True))
    only_b = sum(y and not x for x, y in zip(a, b, strict=True))
    expected = binomtest(only_a, only_a + only_b, 0.5).pvalue
    assert mcnemar_exact(a, b) == pytest.approx(expected)
    assert mcnemar_exact(a, a) == 1.0
    with pytest.raises(ValueError, match="pair them"):
        mcnemar_exact([1], [1, 0])


def test_paired_bootstrap_resamples_both_systems_at_the_same_positions():
    rng = np.random.default_rng(5)
    a, b = rng.random(25), rng.random(25) * 0.5
    boot = BootstrapSettings(samples=300, seed=2)
    found = paired_bootstrap(lambda i: {"m": float(a[i].mean())},
                             lambda i: {"m": float(b[i].mean())}, 25, boot)["m"]
    idx = np.random.default_rng(2).integers(0, 25, size=(300, 25))
    reps = a[idx].mean(axis=1) - b[idx].mean(axis=1)
    assert found.difference == pytest.approx(a.mean() - b.mean())
    assert (found.low, found.high) == pytest.approx(tuple(np.percentile(reps, [2.5, 97.5])))
    assert found.p == pytest.approx(min(1.0, 2 * min(np.mean(reps <= 0), np.mean(reps >= 0))))
    assert bootstrap_p([0.0, 0.0]) == 1.0


def _medcalc_rows(model_correct):
    return [{"id": f"e{i}", "category": "lab", "official": {"correct": c, "status": "ok"}}
            for i, c in enumerate(model_correct)]


def test_table_comparisons_use_mcnemar_for_accuracies_and_adjust_across_the_table():
    task = {"benchmark": "medcalc", "scoring": {"extractions": ["official"]}}
    a = [1] * 14 + [0] * 6
    b = [0] * 10 + [1] * 4 + [0] * 6
    c = [1] * 15 + [0] * 5
    cells = [{"cell": f"{m}/medcalc/zero_shot", "model": m, "task": "medcalc",
              "mode": "zero_shot", "rows": _medcalc_rows(v)}
             for m, v in (("a", a), ("b", b), ("c", c))]
    spec = statistics.comparison_settings(
        {"reference": "a", "metrics": ["accuracy.*"], "correction": "holm"}, ["a", "b", "c"],
        ["a", "b", "c"])
    found = comparisons(cells, {"medcalc": task}, spec, BootstrapSettings(samples=200))
    assert [(f["a"], f["b"], f["test"]) for f in found] == [("a", "b", "mcnemar"),
                                                             ("a", "c", "mcnemar")]
    assert found[0]["p"] == pytest.approx(binomtest(10, 10, 0.5).pvalue)
    assert found[0]["difference"] == pytest.approx(0.5)
    assert [f["p_adjusted"] for f in found] == adjust([f["p"] for f in found], "holm")


def test_medcalc_statistic_recomputes_the_headline_from_resampled_rows():
    task = {"benchmark": "medcalc", "scoring": {"extractions": ["official"]}}
    rows = _medcalc_rows([1, 0, 0, 1, 1])
    stat = statistic("medcalc", task, rows)
    assert stat(np.array([0, 0, 3])) == {"accuracy.official": 1.0}
    assert get_benchmark("medcalc").outcomes(task, rows)["accuracy.official"]["e1"] == 0


@pytest.mark.parametrize(("given", "message"), [
    ({"uncertainty": "ci95"}, "uncertainty='ci95'; use one of se, ci, both, none"),
    ({"bootstrap": {"resamples": 5}}, "unknown bootstrap setting"),
    ({"bootstrap": {"level": 1.5}}, "a level between 0 and 1"),
    ({"comparisons": {"pairs": [["a", "a"]]}}, "two different models"),
    ({"comparisons": {"reference": "z"}}, "grid does not define"),
    ({"comparisons": {"reference": "a", "correction": "bonferroni"}}, "none, holm, bh"),
    ({"comparisons": {"reference": "a", "pairs": [["a", "b"]]}}, "exactly one of"),
])
def test_statistics_settings_errors_name_the_choices(given, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        statistics.settings(given, ["a", "b"], ["a", "b"])


def test_statistics_defaults_and_layout_without_se_under_ci():
    resolved = statistics.settings({}, ["a"], ["a"])
    assert resolved == {"uncertainty": "se", "comparisons": None, "bootstrap": {
        "samples": 1000, "seed": 0, "level": 0.95, "method": "percentile"}}
    spec = {"std_error": {"show": True, "decimals": 2}}
    assert statistics.layout_spec(spec, "ci", 0.95)["std_error"]["show"] is False
    assert statistics.layout_spec(spec, "both", 0.95)["std_error"]["show"] is True
    assert statistics.layout_spec(spec, "both", 0.9)["interval_level"] == 0.9
    assert "interval_level" not in statistics.layout_spec(spec, "se", 0.95)
