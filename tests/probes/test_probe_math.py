"""The mean-difference probe, its metrics and baselines, against sklearn and scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from empathybench.probes.correlation import correlate, within_group
from empathybench.probes.probe import (
    auroc,
    auroc_rows,
    evaluate,
    fit_mean_difference,
    paired_accuracy,
    permutation_p_value,
    random_direction_aurocs,
    rank_layers_by_scenario_cv,
)


def _planted(n: int, d: int, strength: float, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    shared = rng.standard_normal((n, d)) * 0.3 + 5.0  # a big common offset, like real layers
    empathic = shared + rng.standard_normal((n, d)) * 0.5 + strength * u
    non_empathic = shared + rng.standard_normal((n, d)) * 0.5
    return empathic, non_empathic, u


def test_a_planted_direction_is_recovered() -> None:
    empathic, non_empathic, u = _planted(80, 64, 3.0, seed=1)
    fit = fit_mean_difference(empathic[:50], non_empathic[:50])
    assert float(fit.direction @ u) > 0.95
    metrics = evaluate(fit, empathic[50:], non_empathic[50:])
    assert metrics.auroc > 0.99 and metrics.paired_accuracy == 1.0 and metrics.accuracy > 0.95
    p = permutation_p_value(
        (empathic[:50], non_empathic[:50]), (empathic[50:], non_empathic[50:]), metrics.auroc,
        200, seed=0,
    )  # fmt: skip
    assert p == pytest.approx(1 / 201)
    randoms = random_direction_aurocs(
        (empathic[:50], non_empathic[:50]), (empathic[50:], non_empathic[50:]), 300, seed=0
    )
    assert randoms.mean() < 0.8


def test_no_planted_direction_gives_chance() -> None:
    empathic, non_empathic, _ = _planted(400, 16, 0.0, seed=2)
    fit = fit_mean_difference(empathic[:200], non_empathic[:200])
    metrics = evaluate(fit, empathic[200:], non_empathic[200:])
    assert abs(metrics.auroc - 0.5) < 0.07
    p = permutation_p_value(
        (empathic[:200], non_empathic[:200]), (empathic[200:], non_empathic[200:]),
        metrics.auroc, 200, seed=0,
    )  # fmt: skip
    assert p > 0.05


def test_auroc_matches_sklearn_with_ties() -> None:
    from sklearn import metrics  # the oracle (scikit-learn is a core dependency)

    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, 50)
    scores = rng.integers(0, 5, 50).astype(float)  # many ties
    assert auroc(scores, labels) == pytest.approx(metrics.roc_auc_score(labels, scores))
    rows = rng.standard_normal((4, 50))
    expected = [metrics.roc_auc_score(labels, row) for row in rows]
    assert auroc_rows(rows, labels) == pytest.approx(expected)


def test_threshold_and_accuracy_come_from_training_data() -> None:
    empathic, non_empathic, _ = _planted(40, 8, 3.0, seed=3)
    fit = fit_mean_difference(empathic[:20], non_empathic[:20])
    shifted = evaluate(
        fit, empathic[20:] + 100 * fit.direction, non_empathic[20:] + 100 * fit.direction
    )
    assert shifted.auroc > 0.99 and shifted.accuracy == 0.5  # a shifted test set is not refitted
    projections = np.r_[empathic[:20] @ fit.direction, non_empathic[:20] @ fit.direction]
    assert fit.sigma == pytest.approx(projections.std())
    assert paired_accuracy(np.array([1.0, 2.0, 3.0]), np.array([0.0, 2.0, 4.0])) == pytest.approx(
        0.5
    )


def test_layer_ranking_by_scenario_cv_finds_the_informative_layer() -> None:
    rng = np.random.default_rng(4)
    n, d = 30, 16
    empathic = rng.standard_normal((n, 3, d))
    non_empathic = rng.standard_normal((n, 3, d))
    empathic[:, 1, 0] += 4.0  # only layer 1 carries the label
    scenarios = [f"s{i % 3}" for i in range(n)]
    ranking = rank_layers_by_scenario_cv(empathic, non_empathic, scenarios)
    assert ranking[0][0] == 1 and ranking[0][1] > 0.95


def test_correlation_matches_scipy_with_intervals() -> None:
    rng = np.random.default_rng(5)
    x = rng.standard_normal(40)
    y = 0.6 * x + rng.standard_normal(40)
    result = correlate(x, y)
    pearson, spearman = stats.pearsonr(x, y), stats.spearmanr(x, y)
    assert result.n == 40
    assert result.pearson == pytest.approx(pearson.statistic)
    assert result.pearson_p == pytest.approx(pearson.pvalue)
    assert result.spearman == pytest.approx(spearman.statistic)
    assert result.spearman_p == pytest.approx(spearman.pvalue)
    interval = pearson.confidence_interval(0.95)
    assert result.pearson_ci == pytest.approx((interval.low, interval.high), abs=1e-6)
    assert result.spearman_ci is not None
    assert result.spearman_ci[0] < result.spearman < result.spearman_ci[1]


def test_correlation_skips_missing_values_and_constant_input() -> None:
    result = correlate([1.0, 2.0, math.nan, 4.0, 5.0], [2.0, 1.0, 3.0, 5.0, 4.0])
    assert result.n == 4
    assert correlate([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]).pearson is None
    assert within_group([1.0, 3.0, 10.0, 14.0], [0, 0, 1, 1]) == [-1.0, 1.0, -2.0, 2.0]
