import math

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats  # type: ignore[import-untyped]

from empathybench.analysis.statistics import (
    Estimate,
    bin_scores,
    bootstrap_difference,
    bootstrap_mean,
    cohen_kappa,
    krippendorff_alpha,
    spearman,
)


def _width(e: Estimate) -> float:
    assert e.low is not None and e.high is not None
    return e.high - e.low


# --------------------------------------------------------------------------- bootstrap_mean


def test_bootstrap_is_deterministic_per_seed_and_varies_across_seeds() -> None:
    values = list(np.random.default_rng(1).random(200))
    assert bootstrap_mean(values, seed=3) == bootstrap_mean(values, seed=3)
    assert bootstrap_mean(values, seed=3) != bootstrap_mean(values, seed=4)
    clusters = [i % 40 for i in range(200)]
    first = bootstrap_mean(values, clusters=clusters, seed=3)
    assert first == bootstrap_mean(values, clusters=clusters, seed=3)
    assert first != bootstrap_mean(values, clusters=clusters, seed=4)


def test_known_case_half_ones() -> None:
    est = bootstrap_mean([0.0, 1.0] * 500)
    assert est.mean == 0.5
    assert est.n == 1000 and est.clusters == 1000
    assert est.low is not None and est.high is not None
    # Standard error sqrt(0.25 / 1000) = 0.0158, so the 95% CI is about 0.469-0.531.
    assert est.low == pytest.approx(0.469, abs=0.01)
    assert est.high == pytest.approx(0.531, abs=0.01)


def test_ci_contains_mean_and_narrows_with_more_data() -> None:
    rng = np.random.default_rng(7)
    small = bootstrap_mean(list(rng.random(50)))
    large = bootstrap_mean(list(rng.random(5000)))
    for est in (small, large):
        assert est.mean is not None and est.low is not None and est.high is not None
        assert est.low < est.mean < est.high
    assert _width(large) < _width(small) / 5


def test_confidence_level_changes_width() -> None:
    values = list(np.random.default_rng(2).random(300))
    assert _width(bootstrap_mean(values, confidence=0.8)) < _width(bootstrap_mean(values))


def test_cluster_bootstrap_is_wider_for_identical_repeats() -> None:
    per_item = list(np.random.default_rng(5).random(20))
    values = [v for v in per_item for _ in range(5)]  # 20 items, 5 identical epochs each
    clusters = [i for i in range(20) for _ in range(5)]
    naive = bootstrap_mean(values)
    clustered = bootstrap_mean(values, clusters=clusters)
    items = bootstrap_mean(per_item)
    assert naive.mean == pytest.approx(clustered.mean) == pytest.approx(items.mean)
    assert clustered.n == 100 and clustered.clusters == 20
    assert _width(clustered) > 1.8 * _width(naive)  # about sqrt(5) wider
    # With identical copies, resampling clusters is resampling items.
    assert _width(clustered) == pytest.approx(_width(items), rel=0.15)


def test_cluster_labels_may_be_any_hashable_and_unequal_sizes() -> None:
    values = [1.0, 1.0, 1.0, 0.0, 0.5, 0.5]
    est = bootstrap_mean(values, clusters=["a", "a", "a", ("b", 1), None, None])
    assert est.clusters == 3 and est.n == 6
    assert est.mean == pytest.approx(4 / 6)
    assert est.low is not None and est.high is not None
    assert 0.0 <= est.low <= est.high <= 1.0


def test_edge_cases() -> None:
    assert bootstrap_mean([]) == Estimate(None, None, None, 0, 0)
    assert bootstrap_mean([0.7]) == Estimate(0.7, None, None, 1, 1)
    one_cluster = bootstrap_mean([0.2, 0.4, 0.6], clusters=["x"] * 3)
    assert one_cluster.mean == pytest.approx(0.4)
    assert one_cluster == Estimate(one_cluster.mean, None, None, 3, 1)
    assert bootstrap_mean([0.1] * 30) == Estimate(0.1, 0.1, 0.1, 30, 30)
    assert bootstrap_mean([0.1] * 30, clusters=[i % 3 for i in range(30)]) == Estimate(
        0.1, 0.1, 0.1, 30, 3
    )


def test_invalid_arguments() -> None:
    with pytest.raises(ValueError, match="clusters"):
        bootstrap_mean([1.0, 2.0], clusters=[1])
    with pytest.raises(ValueError, match="finite"):
        bootstrap_mean([1.0, math.nan])
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_mean([1.0, 2.0], confidence=1.0)
    with pytest.raises(ValueError, match="resamples"):
        bootstrap_mean([1.0, 2.0], resamples=0)


@settings(max_examples=50, deadline=None)
@given(
    values=st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=60),
    n_clusters=st.integers(1, 10),
    seed=st.integers(0, 2**32 - 1),
)
def test_interval_is_ordered_and_within_range(
    values: list[float], n_clusters: int, seed: int
) -> None:
    for clusters in (None, [i % n_clusters for i in range(len(values))]):
        est = bootstrap_mean(values, clusters=clusters, seed=seed, resamples=200)
        assert est.mean is not None and min(values) <= est.mean <= max(values)
        if est.clusters < 2:
            assert est.low is None and est.high is None
            continue
        assert est.low is not None and est.high is not None
        assert min(values) <= est.low <= est.high <= max(values)


# --------------------------------------------------------------------- bootstrap_difference


def test_difference_clearly_different_groups() -> None:
    rng = np.random.default_rng(11)
    a, b = list(rng.normal(0.7, 0.1, 200)), list(rng.normal(0.5, 0.1, 200))
    est, p = bootstrap_difference(a, b)
    assert est.mean == pytest.approx(np.mean(a) - np.mean(b))
    assert est.low is not None and est.high is not None and 0 < est.low < est.high
    assert est.n == 400 and est.clusters == 400
    assert p < 0.01
    flipped, p_flipped = bootstrap_difference(b, a)
    assert est.mean is not None and flipped.mean == pytest.approx(-est.mean)
    assert p_flipped < 0.01


def test_difference_identical_groups() -> None:
    values = list(np.random.default_rng(12).random(100))
    est, p = bootstrap_difference(values, values)
    assert est.mean == 0.0 and p == 1.0
    assert est.low is not None and est.high is not None and est.low < 0 < est.high


def test_difference_similar_groups_large_p_and_deterministic() -> None:
    rng = np.random.default_rng(13)
    a = list(rng.random(150))
    b = [v + 0.002 for v in reversed(a)]  # same distribution, tiny shift
    ca, cb = [i % 30 for i in range(150)], [i % 30 for i in range(150)]
    first = bootstrap_difference(a, b, clusters_a=ca, clusters_b=cb, seed=1)
    assert first == bootstrap_difference(a, b, clusters_a=ca, clusters_b=cb, seed=1)
    assert first[0].mean == pytest.approx(-0.002)
    assert first[1] > 0.5
    assert first[0].clusters == 60


def test_difference_edge_cases() -> None:
    assert bootstrap_difference([], [1.0, 2.0]) == (Estimate(None, None, None, 2, 2), 1.0)
    assert bootstrap_difference([1.0], [0.0, 0.5]) == (Estimate(0.75, None, None, 3, 3), 1.0)
    est, p = bootstrap_difference([1.0] * 10, [0.0] * 10)
    assert est == Estimate(1.0, 1.0, 1.0, 20, 20) and p == 0.0


# ----------------------------------------------------------------------- krippendorff_alpha


def test_alpha_matches_package_with_missing_values() -> None:
    rng = np.random.default_rng(21)
    data = rng.integers(0, 5, size=(4, 30)).astype(float)
    data[rng.random(data.shape) < 0.2] = np.nan
    ratings = [[None if np.isnan(v) else float(v) for v in row] for row in data]
    for level in ("interval", "ordinal", "nominal", "ratio"):
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        assert krippendorff_alpha(ratings, level) == pytest.approx(expected)


def test_alpha_perfect_agreement_and_undefined_cases() -> None:
    assert krippendorff_alpha([[1, 2, 3, None], [1, 2, 3, 4]]) == pytest.approx(1.0)
    assert krippendorff_alpha([[1, 2, 3]]) is None  # one rater
    assert krippendorff_alpha([]) is None
    assert krippendorff_alpha([[1, 2, None], [1, None, 3]]) is None  # one pairable unit
    assert krippendorff_alpha([[2, 2, 2], [2, 2, 2]]) is None  # no variation
    assert krippendorff_alpha([[1, 1, 2], [1, 1, None]]) is None  # no pairable variation
    with pytest.raises(ValueError, match="level"):
        krippendorff_alpha([[1, 2], [1, 2]], level="bogus")
    with pytest.raises(ValueError, match="one entry per unit"):
        krippendorff_alpha([[1, 2], [1]])


# -------------------------------------------------------------------------------- spearman


def test_spearman_matches_scipy() -> None:
    rng = np.random.default_rng(31)
    x = rng.random(40)
    y = x + rng.normal(0, 0.3, 40)
    y[:5] = y[0]  # ties
    rho, n = spearman(list(x), list(y))
    assert n == 40
    assert rho == pytest.approx(stats.spearmanr(x, y).statistic)


def test_spearman_undefined() -> None:
    assert spearman([1.0, 2.0], [2.0, 1.0]) == (None, 2)
    assert spearman([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]) == (None, 3)
    assert spearman([1.0, 2.0, 3.0], [5.0, 5.0, 5.0]) == (None, 3)
    rho, n = spearman([1.0, 2.0, 3.0], [3.0, 2.0, 1.0])
    assert rho == pytest.approx(-1.0) and n == 3
    with pytest.raises(ValueError):
        spearman([1.0], [1.0, 2.0])


# ------------------------------------------------------------------------------ bin_scores


def test_bin_scores_default_edges() -> None:
    values = [0.0, 0.3, 1 / 3, 0.5, 0.6666, 2 / 3, 0.9, 1.0]
    assert bin_scores(values) == [0, 0, 1, 1, 1, 2, 2, 2]
    assert bin_scores([-0.5, 1.5]) == [0, 2]
    assert bin_scores([]) == []


def test_bin_scores_custom_edges() -> None:
    assert bin_scores([0.1, 0.5, 0.9], edges=[0.5]) == [0, 1, 1]
    assert bin_scores([0.1, 0.3, 0.6, 0.9], edges=(0.25, 0.5, 0.75)) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="increasing"):
        bin_scores([0.5], edges=(0.6, 0.3))


# ----------------------------------------------------------------------------- cohen_kappa


def _from_table(table: list[list[int]]) -> tuple[list[int], list[int]]:
    a: list[int] = []
    b: list[int] = []
    for i, row in enumerate(table):
        for j, count in enumerate(row):
            a += [i] * count
            b += [j] * count
    return a, b


def test_kappa_textbook_binary() -> None:
    # Wikipedia: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no -> p_o 0.7, p_e 0.5, kappa 0.4.
    a, b = _from_table([[20, 5], [10, 15]])
    assert cohen_kappa(a, b) == pytest.approx(0.4)


def test_kappa_hand_computed_three_categories() -> None:
    # Marginals 5/4/3 on both sides, n = 12; all disagreements are one step apart.
    a, b = _from_table([[4, 1, 0], [1, 2, 1], [0, 1, 2]])
    assert cohen_kappa(a, b) == pytest.approx(23 / 47)  # (2/3 - 25/72) / (1 - 25/72)
    assert cohen_kappa(a, b, "linear") == pytest.approx(19 / 31)  # 1 - (1/3) / (31/36)
    assert cohen_kappa(a, b, "quadratic") == pytest.approx(17 / 23)  # 1 - (1/3) / (23/18)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_kappa_matches_sklearn(weights: str | None) -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(41)
    a = rng.integers(0, 4, 80)
    b = np.clip(a + rng.integers(-1, 2, 80), 0, 3)
    expected = metrics.cohen_kappa_score(a, b, weights=weights)
    assert cohen_kappa(list(a), list(b), weights) == pytest.approx(expected)


def test_kappa_undefined_and_degenerate() -> None:
    assert cohen_kappa([], []) is None
    assert cohen_kappa([1, 1, 1], [1, 1, 1]) is None
    assert cohen_kappa([1, 1, 1], [1, 1, 1], "quadratic") is None
    assert cohen_kappa([0, 0, 0, 0], [0, 1, 0, 1]) == pytest.approx(0.0)
    assert cohen_kappa([0, 1, 2], [0, 1, 2], "linear") == pytest.approx(1.0)
    with pytest.raises(ValueError, match="weights"):
        cohen_kappa([0], [0], weights="cubic")
    with pytest.raises(ValueError):
        cohen_kappa([0, 1], [0])
