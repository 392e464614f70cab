"""Probe projections against empathy scores, and the agreement of probes across models.

Scores come from a scoring callable (texts -> floats; by default the offline empathy scorer)
or from a JSONL file of ``{"id": TEXT_ID, "score": FLOAT}`` lines (e.g. judge verdicts).
Pearson and Spearman come with Fisher-z 95% intervals (Bonett-Wright standard error for
Spearman) and p-values from scipy.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from empathybench.errors import UserError
from empathybench.jsonl import read_json_objects
from empathybench.records import Record

Scorer = Callable[[list[str]], list[float]]
Values = Sequence[float] | np.ndarray[Any, Any]
Z_95 = 1.959963984540054


class Correlation(Record):
    n: int
    pearson: float | None
    pearson_ci: tuple[float, float] | None
    pearson_p: float | None
    spearman: float | None
    spearman_ci: tuple[float, float] | None
    spearman_p: float | None


def _interval(r: float, n: int, spearman: bool) -> tuple[float, float] | None:
    if n <= 3 or not math.isfinite(r) or abs(r) >= 1.0:
        return None
    se = math.sqrt((1 + r * r / 2) / (n - 3)) if spearman else 1 / math.sqrt(n - 3)
    z = math.atanh(r)
    return (math.tanh(z - Z_95 * se), math.tanh(z + Z_95 * se))


def correlate(x: Values, y: Values) -> Correlation:
    """Pearson and Spearman of the finite pairs of ``x`` and ``y``."""
    a, b = np.asarray(x, np.float64), np.asarray(y, np.float64)
    keep = np.isfinite(a) & np.isfinite(b)
    a, b = a[keep], b[keep]
    n = int(a.size)
    if n < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return Correlation(
            n=n,
            pearson=None,
            pearson_ci=None,
            pearson_p=None,
            spearman=None,
            spearman_ci=None,
            spearman_p=None,
        )
    pearson = stats.pearsonr(a, b)
    spearman = stats.spearmanr(a, b)
    r_p, r_s = float(pearson.statistic), float(spearman.statistic)
    return Correlation(
        n=n,
        pearson=r_p,
        pearson_ci=_interval(r_p, n, spearman=False),
        pearson_p=float(pearson.pvalue),
        spearman=r_s,
        spearman_ci=_interval(r_s, n, spearman=True),
        spearman_p=float(spearman.pvalue),
    )


def within_group(values: Values, groups: Sequence[object] | np.ndarray[Any, Any]) -> list[float]:
    """``values`` minus the mean of their group (NaNs stay NaN and are ignored in means)."""
    data = np.asarray(values, np.float64)
    out = data.copy()
    labels = list(groups)
    for group in set(labels):
        rows = [i for i, g in enumerate(labels) if g == group]
        finite = data[rows][np.isfinite(data[rows])]
        out[rows] = data[rows] - (finite.mean() if finite.size else 0.0)
    return [float(v) for v in out]


def load_scores(path: Path) -> dict[str, float]:
    """``{id: score}`` from JSONL lines ``{"id": ..., "score": ...}`` (other keys ignored)."""
    if not path.is_file():
        raise UserError(f"{path}: no such scores file")
    scores: dict[str, float] = {}
    for number, record in read_json_objects(path):
        try:
            scores[str(record["id"])] = float(record["score"])
        except (ValueError, KeyError, TypeError):
            raise UserError(
                f'{path}:{number}: expected {{"id": TEXT_ID, "score": NUMBER}}'
            ) from None
    return scores


def default_scorer() -> Scorer:
    """The offline empathy scorer's mean empathy (1-3) per text, imported on first use.

    Raises UserError when the scorer is not available (no torch, or no trained head).
    """
    try:
        module: Any = importlib.import_module("empathybench.scorer")
    except ImportError as error:
        raise UserError(f"the offline empathy scorer is not available: {error}") from None
    score_texts = getattr(module, "score_texts", None) or getattr(module, "score_responses", None)
    if score_texts is None:
        raise UserError("the offline empathy scorer has no score_texts function")

    def score(texts: list[str]) -> list[float]:
        return [float(s.empathy) for s in score_texts(texts)] if texts else []

    try:
        score(["Checking that the scorer loads."])
    except (UserError, ImportError, OSError) as error:
        raise UserError(f"the offline empathy scorer cannot run: {error}") from None
    return score
