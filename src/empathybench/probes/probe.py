"""The mean-difference probe, its metrics and its baselines (numpy only).

A probe at one layer is the unit vector ``u`` from the mean non-empathic to the mean empathic
training activation. Everything it needs at test time is fixed on training data: the threshold
(midway between the two training class means projected on ``u``) and ``sigma`` (the standard
deviation of all training projections on ``u``), the unit in which steering strength is given.

Baselines: random unit directions, each oriented by the training data as the probe is, and a
label-permutation test that shuffles the training labels and refits. (Flipping labels within
training pairs is not a null here: every pair difference points roughly the same way, so any
sign pattern with a positive sum still recovers the empathy direction.) AUROC is the
Mann-Whitney statistic (ties count one half).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import rankdata

Array = np.ndarray[Any, np.dtype[np.float64]]


@dataclass(frozen=True)
class LayerFit:
    direction: Array
    """Unit vector, empathic side positive."""
    threshold: float
    sigma: float
    separation: float
    """Training class-mean gap on ``direction`` over the pooled within-class spread (d')."""


@dataclass(frozen=True)
class Metrics:
    auroc: float
    accuracy: float
    paired_accuracy: float


def fit_mean_difference(empathic: Array, non_empathic: Array) -> LayerFit:
    """Fit on (pairs, hidden) activations of the two sides of the training pairs."""
    positive, negative = np.asarray(empathic, np.float64), np.asarray(non_empathic, np.float64)
    difference = positive.mean(axis=0) - negative.mean(axis=0)
    norm = float(np.linalg.norm(difference))
    if not np.isfinite(norm) or norm == 0.0:
        raise ValueError("the two classes have the same mean: no direction to fit")
    direction = difference / norm
    pos, neg = positive @ direction, negative @ direction
    spread = float(np.concatenate([pos, neg]).std())
    within = float(np.sqrt((pos.var() + neg.var()) / 2))
    return LayerFit(
        direction=direction,
        threshold=float((pos.mean() + neg.mean()) / 2),
        sigma=spread,
        separation=float((pos.mean() - neg.mean()) / within) if within > 0 else float("inf"),
    )


def auroc(scores: Sequence[float] | Array, labels: Sequence[int] | Array) -> float:
    """Area under the ROC curve of ``scores`` for binary ``labels`` (1 = positive)."""
    return float(auroc_rows(np.asarray(scores, np.float64)[None, :], np.asarray(labels))[0])


def auroc_rows(scores: Array, labels: Any) -> Array:
    """AUROC of every row of ``scores`` (k, n) against the same ``labels`` (n,)."""
    positive = np.asarray(labels).astype(bool)
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    if n_pos == 0 or n_neg == 0:
        raise ValueError("AUROC needs both classes")
    ranks = rankdata(scores, axis=1)
    result: Array = (ranks[:, positive].sum(axis=1) - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)
    return result


def evaluate(fit: LayerFit, empathic: Array, non_empathic: Array) -> Metrics:
    """Test metrics of a fitted probe on the two sides of held-out pairs."""
    pos, neg = np.asarray(empathic) @ fit.direction, np.asarray(non_empathic) @ fit.direction
    scores, labels = np.concatenate([pos, neg]), np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    correct = np.concatenate([pos > fit.threshold, neg <= fit.threshold])
    return Metrics(
        auroc=auroc(scores, labels),
        accuracy=float(correct.mean()),
        paired_accuracy=paired_accuracy(pos, neg),
    )


def paired_accuracy(empathic_scores: Array, non_empathic_scores: Array) -> float:
    """Share of pairs whose empathic side scores higher (a tie counts one half)."""
    pos, neg = np.asarray(empathic_scores), np.asarray(non_empathic_scores)
    return float(((pos > neg) + 0.5 * (pos == neg)).mean())


def random_direction_aurocs(
    train: tuple[Array, Array], test: tuple[Array, Array], count: int, seed: int
) -> Array:
    """Test AUROCs of ``count`` random unit directions, each signed so that the training
    empathic mean projects above the non-empathic mean (as the probe is)."""
    rng = np.random.default_rng(seed)
    hidden = train[0].shape[1]
    directions = rng.standard_normal((count, hidden))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    gap = train[0].mean(axis=0) - train[1].mean(axis=0)
    directions *= np.where(directions @ gap >= 0, 1.0, -1.0)[:, None]
    return _test_aurocs(directions, test)


def permutation_p_value(
    train: tuple[Array, Array], test: tuple[Array, Array], observed: float, count: int, seed: int
) -> float:
    """P-value of ``observed`` test AUROC when the training labels are shuffled and the probe
    refitted ``count`` times (class sizes kept; the test labels stay true)."""
    rng = np.random.default_rng(seed)
    points = np.concatenate([train[0], train[1]]).astype(np.float64)
    n_pos, n_neg = len(train[0]), len(train[1])
    positive = rng.random((count, len(points))).argsort(axis=1) < n_pos
    weights = np.where(positive, 1.0 / n_pos, -1.0 / n_neg)
    directions = weights @ points
    norms = np.linalg.norm(directions, axis=1, keepdims=True)
    directions = directions / np.where(norms == 0, 1.0, norms)
    null = _test_aurocs(directions, test)
    return float((1 + np.sum(null >= observed - 1e-12)) / (1 + count))


def _test_aurocs(directions: Array, test: tuple[Array, Array]) -> Array:
    points = np.concatenate([test[0], test[1]]).astype(np.float64)
    labels = np.r_[np.ones(len(test[0])), np.zeros(len(test[1]))]
    return auroc_rows(directions @ points.T, labels)


def held_out_separation(fit: LayerFit, empathic: Array, non_empathic: Array) -> float:
    """Class-mean gap of held-out projections over their pooled within-class spread."""
    pos, neg = np.asarray(empathic) @ fit.direction, np.asarray(non_empathic) @ fit.direction
    within = float(np.sqrt((pos.var() + neg.var()) / 2))
    gap = float(pos.mean() - neg.mean())
    return gap / within if within > 0 else (float("inf") if gap > 0 else 0.0)


def rank_layers_by_scenario_cv(
    empathic: Array, non_empathic: Array, scenarios: Sequence[str]
) -> list[tuple[int, float, float]]:
    """Layers ranked by leave-one-scenario-out inside the given (training) rows only.

    ``empathic`` and ``non_empathic`` are (pairs, layers, hidden). Returns ``(layer, mean
    held-out AUROC, mean held-out separation)``, best first (AUROC to 3 decimals, then
    separation), so a layer can be chosen without looking at any test data.
    """
    from empathybench.probes.pairs import scenario_folds

    folds = scenario_folds(scenarios)
    if len(folds) < 2:
        raise ValueError("need at least two scenarios to rank layers")
    rows = []
    for layer in range(empathic.shape[1]):
        aurocs, separations = [], []
        for train, test, _ in folds:
            fit = fit_mean_difference(empathic[train, layer], non_empathic[train, layer])
            aurocs.append(evaluate(fit, empathic[test, layer], non_empathic[test, layer]).auroc)
            separations.append(
                held_out_separation(fit, empathic[test, layer], non_empathic[test, layer])
            )
        rows.append((layer, float(np.mean(aurocs)), float(np.mean(separations))))
    return sorted(rows, key=lambda row: (-round(row[1], 3), -row[2], row[0]))
