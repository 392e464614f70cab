"""Rank agreement of empathy scores with labels, beside trivial baselines, with bootstrap CIs.

For each target (cognitive, emotional, behavioral and ``empathy``, their mean) the Spearman
correlation between a scorer's predictions and the labels, with a seeded percentile-bootstrap
interval that resamples whole messages (replies to one message are not independent). Two
baselines are scored the same way, with no training:

- ``length``: the reply's word count (longer = more empathic);
- ``lexicon``: feeling words + second-person words + question marks (``signals.lexicon_score``).

A scorer that does not beat them by a clear margin has learnt little beyond length.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
import numpy.typing as npt
from scipy.stats import rankdata

from empathybench.analysis.text_metrics import words
from empathybench.records import Record
from empathybench.scorer.empathy_data import COMPONENTS, EmpathyLabel
from empathybench.scorer.heads import Matrix
from empathybench.scorer.signals import lexicon_score

TARGETS = (*COMPONENTS, "empathy")
BASELINES = {
    "length": "reply length in words",
    "lexicon": "feeling words + second-person words + question marks",
}


class SpearmanEstimate(Record):
    rho: float | None
    low: float | None
    high: float | None
    n: int


class ScorerAgreement(Record):
    """Spearman per target for one scorer or baseline."""

    name: str
    description: str
    spearman: dict[str, SpearmanEstimate]


class AgreementReport(Record):
    labels: str
    selection: str
    n: int
    messages: int
    confidence: float
    resamples: int
    rows: list[ScorerAgreement]


def _rho(x: np.ndarray, y: np.ndarray) -> float | None:
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    rx, ry = rankdata(x), rankdata(y)
    return float(np.corrcoef(rx, ry)[0, 1])


def spearman_interval(
    predicted: npt.ArrayLike,
    truth: npt.ArrayLike,
    clusters: Sequence[Hashable],
    *,
    seed: int = 0,
    resamples: int = 1000,
    confidence: float = 0.95,
) -> SpearmanEstimate:
    """Spearman's rho with a bootstrap CI over clusters (None where it is undefined)."""
    x = np.asarray(predicted, dtype=np.float64)
    y = np.asarray(truth, dtype=np.float64)
    rho = _rho(x, y)
    groups: dict[Hashable, list[int]] = {}
    for i, cluster in enumerate(clusters):
        groups.setdefault(cluster, []).append(i)
    members = [np.array(v) for v in groups.values()]
    if rho is None or len(members) < 2:
        return SpearmanEstimate(rho=rho, low=None, high=None, n=len(x))
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(resamples):
        picked = np.concatenate([members[i] for i in rng.integers(0, len(members), len(members))])
        value = _rho(x[picked], y[picked])
        if value is not None:
            draws.append(value)
    tail = (1 - confidence) / 2
    low, high = np.quantile(draws, [tail, 1 - tail]) if draws else (None, None)
    return SpearmanEstimate(
        rho=round(rho, 4),
        low=None if low is None else round(float(low), 4),
        high=None if high is None else round(float(high), 4),
        n=len(x),
    )


def with_mean(predictions: Matrix) -> Matrix:
    """(cognitive, emotional, behavioral) rows plus their mean as a fourth column."""
    return np.concatenate([predictions, predictions.mean(axis=1, keepdims=True)], axis=1)


def baseline_predictions(texts: Sequence[str]) -> dict[str, Matrix]:
    """The trivial baselines' scores, the same score for every target."""
    length = np.array([len(words(t)) for t in texts], dtype=np.float32)
    lexicon = np.array([lexicon_score(t) for t in texts], dtype=np.float32)
    return {
        "length": np.repeat(length[:, None], len(TARGETS), axis=1),
        "lexicon": np.repeat(lexicon[:, None], len(TARGETS), axis=1),
    }


def agreement_report(
    records: Sequence[EmpathyLabel],
    scorers: dict[str, tuple[str, Matrix]],
    *,
    labels: str,
    selection: str,
    seed: int = 0,
    resamples: int = 1000,
    confidence: float = 0.95,
) -> AgreementReport:
    """Spearman per target of each scorer (name → (description, rows of TARGETS)) and of the
    length and lexicon baselines, on ``records``, clustered by message."""
    truth = with_mean(np.array([[r.labels[c] for c in COMPONENTS] for r in records], np.float32))
    clusters = [r.prompt_id for r in records]
    table = dict(scorers)
    for name, values in baseline_predictions([r.response for r in records]).items():
        table[name] = (BASELINES[name], values)
    rows = [
        ScorerAgreement(
            name=name,
            description=description,
            spearman={
                target: spearman_interval(
                    values[:, i],
                    truth[:, i],
                    clusters,
                    seed=seed,
                    resamples=resamples,
                    confidence=confidence,
                )
                for i, target in enumerate(TARGETS)
            },
        )
        for name, (description, values) in table.items()
    ]
    return AgreementReport(
        labels=labels,
        selection=selection,
        n=len(records),
        messages=len(set(clusters)),
        confidence=confidence,
        resamples=resamples,
        rows=rows,
    )
