"""Statistics for reporting benchmark results.

Bootstrap confidence intervals (optionally clustered by item), Wilson score intervals for
proportions, bootstrap tests for a
difference of means (independent groups, or paired by item), inter-rater agreement
(Krippendorff's alpha, Cohen's kappa), Spearman correlation and score binning. All
functions are pure and deterministic.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

import krippendorff
import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

# Upper bound on resamples x clusters drawn at once; bounds memory to a few tens of MB.
_CHUNK_ELEMENTS = 2_000_000
_Level = Literal["nominal", "ordinal", "interval", "ratio"]
_LEVELS: tuple[_Level, ...] = ("nominal", "ordinal", "interval", "ratio")


@dataclass(frozen=True)
class Estimate:
    """A point estimate with a percentile-bootstrap confidence interval."""

    mean: float | None  # None when n == 0
    low: float | None  # CI bounds; None when n < 2 or fewer than 2 clusters
    high: float | None
    n: int  # number of observations used
    clusters: int  # number of clusters (items) used


@dataclass(frozen=True)
class _Sample:
    """Observations reduced to per-cluster sums and counts (counts None: one per cluster)."""

    values: FloatArray
    sums: FloatArray
    counts: FloatArray | None

    @property
    def n(self) -> int:
        return int(self.values.size)

    @property
    def k(self) -> int:
        return int(self.sums.size)


def _sample(values: Sequence[float], clusters: Sequence[Hashable] | None) -> _Sample:
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(x)):
        raise ValueError("values must be finite")
    if clusters is None:
        return _Sample(x, x, None)
    if len(clusters) != x.size:
        raise ValueError(f"clusters has {len(clusters)} entries for {x.size} values")
    codes: dict[Hashable, int] = {}
    idx = np.fromiter((codes.setdefault(c, len(codes)) for c in clusters), np.intp, x.size)
    sums = np.bincount(idx, weights=x, minlength=len(codes)).astype(np.float64)
    counts = np.bincount(idx, minlength=len(codes)).astype(np.float64)
    return _Sample(x, sums, counts)


def _resampled_means(s: _Sample, rng: np.random.Generator, resamples: int) -> FloatArray:
    """Means of `resamples` bootstrap samples, each drawing `k` clusters with replacement."""
    out = np.empty(resamples, dtype=np.float64)
    step = max(1, _CHUNK_ELEMENTS // s.k)
    for start in range(0, resamples, step):  # chunks of resamples, vectorised within
        stop = min(resamples, start + step)
        idx = rng.integers(0, s.k, size=(stop - start, s.k))
        totals = s.sums[idx].sum(axis=1)
        sizes = s.counts[idx].sum(axis=1) if s.counts is not None else float(s.k)
        out[start:stop] = totals / sizes
    return out


def _check(resamples: int, confidence: float) -> None:
    if resamples < 1:
        raise ValueError("resamples must be >= 1")
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be in (0, 1)")


def _interval(draws: FloatArray, confidence: float, lo: float, hi: float) -> tuple[float, float]:
    """Percentile interval of `draws`, clipped to [lo, hi] to absorb rounding error."""
    tail = (1.0 - confidence) / 2.0
    q_low, q_high = np.quantile(draws, [tail, 1.0 - tail])
    return float(np.clip(q_low, lo, hi)), float(np.clip(q_high, lo, hi))


def bootstrap_mean(
    values: Sequence[float],
    *,
    clusters: Sequence[Hashable] | None = None,
    seed: int = 0,
    resamples: int = 2000,
    confidence: float = 0.95,
) -> Estimate:
    """Mean of `values` with a seeded percentile-bootstrap confidence interval.

    With `clusters` (one label per value, e.g. the scenario id when each item was answered
    several times), whole clusters are resampled with replacement and every observation of a
    drawn cluster is kept, so repeated answers to one item are not treated as independent.
    The CI is None when there are fewer than 2 observations or fewer than 2 clusters; the
    mean and CI bounds lie within [min(values), max(values)].
    """
    _check(resamples, confidence)
    s = _sample(values, clusters)
    if s.n == 0:
        return Estimate(None, None, None, 0, 0)
    lo, hi = float(s.values.min()), float(s.values.max())
    mean = lo if lo == hi else float(np.clip(s.values.mean(), lo, hi))
    if s.n < 2 or s.k < 2:
        return Estimate(mean, None, None, s.n, s.k)
    if lo == hi:
        return Estimate(mean, mean, mean, s.n, s.k)
    draws = _resampled_means(s, np.random.default_rng(seed), resamples)
    low, high = _interval(draws, confidence, lo, hi)
    return Estimate(mean, low, high, s.n, s.k)


def bootstrap_difference(
    a: Sequence[float],
    b: Sequence[float],
    *,
    clusters_a: Sequence[Hashable] | None = None,
    clusters_b: Sequence[Hashable] | None = None,
    seed: int = 0,
    resamples: int = 2000,
    confidence: float = 0.95,
) -> tuple[Estimate, float]:
    """Difference of means a - b with a bootstrap CI and a two-sided bootstrap p-value.

    Both groups are resampled independently (by cluster when clusters are given). The
    p-value is twice the share of resampled differences on the other side of 0 from the
    observed difference (0 included), capped at 1; it is 1.0 when the observed difference is
    0 or when either group has fewer than 2 observations or clusters (no evidence). The
    returned Estimate's n and clusters are the totals over both groups.
    """
    _check(resamples, confidence)
    sa, sb = _sample(a, clusters_a), _sample(b, clusters_b)
    n, k = sa.n + sb.n, sa.k + sb.k
    if sa.n == 0 or sb.n == 0:
        return Estimate(None, None, None, n, k), 1.0
    diff = float(sa.values.mean() - sb.values.mean())
    if min(sa.n, sa.k, sb.n, sb.k) < 2:
        return Estimate(diff, None, None, n, k), 1.0
    rng = np.random.default_rng(seed)
    draws = _resampled_means(sa, rng, resamples) - _resampled_means(sb, rng, resamples)
    lo = float(sa.values.min() - sb.values.max())
    hi = float(sa.values.max() - sb.values.min())
    low, high = _interval(draws, confidence, lo, hi)
    p = _two_sided_p(diff, draws)
    return Estimate(diff, low, high, n, k), p


def _two_sided_p(observed: float, draws: np.ndarray) -> float:
    """Twice the share of resampled values on the other side of 0 (0 included), capped at 1."""
    if observed == 0:
        return 1.0
    beyond = draws <= 0.0 if observed > 0 else draws >= 0.0
    return min(1.0, 2.0 * float(np.mean(beyond)))


def bootstrap_paired_difference(
    a: Sequence[float],
    b: Sequence[float],
    *,
    clusters: Sequence[Hashable] | None = None,
    seed: int = 0,
    resamples: int = 2000,
    confidence: float = 0.95,
) -> tuple[Estimate, float]:
    """Mean of the paired differences a[i] - b[i], with a bootstrap CI and two-sided p-value.

    Pairs (e.g. two models' scores on the same item) are resampled together, by cluster when
    ``clusters`` are given, so the test uses the items both were scored on and their
    correlation. The p-value is twice the share of resampled mean differences on the other
    side of 0 from the observed one (0 included), capped at 1; it is 1.0 when the observed
    difference is 0 or there are fewer than 2 pairs or clusters.
    """
    _check(resamples, confidence)
    if len(a) != len(b):
        raise ValueError(f"a has {len(a)} values, b has {len(b)}: pairs must line up")
    differences = [float(x) - float(y) for x, y in zip(a, b, strict=True)]
    s = _sample(differences, clusters)
    if s.n == 0:
        return Estimate(None, None, None, 0, 0), 1.0
    diff = float(s.values.mean())
    if s.n < 2 or s.k < 2:
        return Estimate(diff, None, None, s.n, s.k), 1.0
    lo, hi = float(s.values.min()), float(s.values.max())
    if lo == hi:
        return Estimate(diff, diff, diff, s.n, s.k), (1.0 if diff == 0 else 0.0)
    draws = _resampled_means(s, np.random.default_rng(seed), resamples)
    low, high = _interval(draws, confidence, lo, hi)
    p = _two_sided_p(diff, draws)
    return Estimate(diff, low, high, s.n, s.k), p


def krippendorff_alpha(
    ratings: Sequence[Sequence[float | None]], level: str = "interval"
) -> float | None:
    """Krippendorff's alpha; rows are raters (judges), columns units (items), None missing.

    Returns None when alpha is undefined: fewer than 2 raters, fewer than 2 units rated by
    at least 2 raters, or no variation among the pairable ratings. In the last case the
    expected disagreement is 0 and alpha = 1 - D_o / D_e is 0/0: the data cannot tell
    agreement from chance, so reporting 1.0 (perfect agreement) would overstate reliability.
    """
    if level not in _LEVELS:
        raise ValueError(f"level must be one of {_LEVELS}, got {level!r}")
    rows = [[np.nan if v is None else float(v) for v in row] for row in ratings]
    if len(rows) < 2:
        return None
    if len({len(row) for row in rows}) != 1:
        raise ValueError("every rater must have one entry per unit")
    data = np.asarray(rows, dtype=np.float64)
    pairable = np.sum(~np.isnan(data), axis=0) >= 2
    if int(pairable.sum()) < 2:
        return None
    values = data[:, pairable]
    values = values[~np.isnan(values)]
    if values.min() == values.max():
        return None
    try:
        with np.errstate(divide="ignore", invalid="ignore"):
            alpha = float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
    except ValueError:  # raised by the package when there is no variation to compare
        return None
    return alpha if np.isfinite(alpha) else None


def spearman(x: Sequence[float], y: Sequence[float]) -> tuple[float | None, int]:
    """Spearman's rho and n; rho is None when n < 3 or either side is constant."""
    xa = np.asarray(x, dtype=np.float64).reshape(-1)
    ya = np.asarray(y, dtype=np.float64).reshape(-1)
    if xa.size != ya.size:
        raise ValueError(f"x has {xa.size} values, y has {ya.size}")
    if not (np.all(np.isfinite(xa)) and np.all(np.isfinite(ya))):
        raise ValueError("values must be finite")
    n = int(xa.size)
    if n < 3 or xa.min() == xa.max() or ya.min() == ya.max():
        return None, n
    from scipy import stats  # lazy: importing costs ~1-2 s

    return float(stats.spearmanr(xa, ya).statistic), n


def bin_scores(values: Sequence[float], edges: Sequence[float] = (1 / 3, 2 / 3)) -> list[int]:
    """Bin scores by ascending `edges`: the bin of a value is the number of edges <= it.

    With the default edges, a score in [0, 1] maps to 0 (< 1/3), 1 (< 2/3) or 2 (>= 2/3).
    Values outside the edges fall into the first or last bin.
    """
    e = np.asarray(edges, dtype=np.float64).reshape(-1)
    if e.size and not np.all(np.diff(e) > 0):
        raise ValueError("edges must be strictly increasing")
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(v)):
        raise ValueError("values must be finite")
    return [int(i) for i in np.searchsorted(e, v, side="right")]


def cohen_kappa(a: Sequence[int], b: Sequence[int], weights: str | None = None) -> float | None:
    """Cohen's kappa between two raters' integer category labels.

    `weights` is None (unweighted), "linear" or "quadratic". Weighted disagreement uses the
    distance between label values (labels are treated as points on an ordinal scale; this
    equals scikit-learn's index-based weights when the observed labels are evenly spaced).
    Returns None when undefined: no pairs, or no expected disagreement (e.g. both raters
    use a single, identical category).
    """
    if weights not in (None, "linear", "quadratic"):
        raise ValueError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")
    if len(a) != len(b):
        raise ValueError(f"a has {len(a)} labels, b has {len(b)}")
    if len(a) == 0:
        return None
    labels, codes = np.unique(np.concatenate([np.asarray(a), np.asarray(b)]), return_inverse=True)
    k, n = labels.size, len(a)
    observed = np.zeros((k, k), dtype=np.float64)
    np.add.at(observed, (codes[:n], codes[n:]), 1.0)
    observed /= n
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    pos = labels.astype(np.float64)
    dist = np.abs(pos[:, None] - pos[None, :])
    if weights is None:
        w = (dist > 0).astype(np.float64)
    elif weights == "linear":
        w = dist
    else:
        w = dist**2
    denominator = float(np.sum(w * expected))
    if denominator <= 0.0:
        return None
    return 1.0 - float(np.sum(w * observed)) / denominator


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """Wilson score interval of a proportion ``successes / n`` (scipy's), None when n == 0.

    For accuracies of independent items; unlike a percentile bootstrap it stays informative
    at 0 % and 100 % (e.g. 100/100 gives [0.963, 1.0], not [1.0, 1.0]).
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be in (0, 1)")
    if n < 0 or not 0 <= successes <= max(n, 0):
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return None
    from scipy import stats  # lazy: importing costs ~1-2 s

    result = stats.binomtest(successes, n).proportion_ci(confidence, method="wilson")
    return float(result.low), float(result.high)
