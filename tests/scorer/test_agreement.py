"""Spearman with bootstrap CIs over messages, beside the length and lexicon baselines."""

import numpy as np
import pytest

from empathybench.scorer.agreement import (
    TARGETS,
    agreement_report,
    baseline_predictions,
    spearman_interval,
)
from empathybench.scorer.empathy_data import EmpathyLabel


def _record(i: int, response: str, level: int) -> EmpathyLabel:
    return EmpathyLabel(
        id=f"r{i}",
        prompt_id=f"m{i // 3}",
        prompt="?",
        response=response,
        labels={"cognitive": level, "emotional": level, "behavioral": 4 - level},
    )


def test_interval_brackets_rho_and_is_seeded() -> None:
    rng = np.random.default_rng(1)
    truth = rng.integers(1, 4, 60).astype(float)
    predicted = truth + rng.normal(0, 0.8, 60)
    clusters = [i // 4 for i in range(60)]
    first = spearman_interval(predicted, truth, clusters, seed=3, resamples=300)
    again = spearman_interval(predicted, truth, clusters, seed=3, resamples=300)
    assert first == again
    assert first.low is not None and first.high is not None and first.rho is not None
    assert first.low < first.rho < first.high and first.rho > 0.5
    assert spearman_interval([1, 1, 1], [1, 2, 3], [0, 1, 2]).rho is None


def test_report_has_the_model_and_both_baselines_per_target() -> None:
    records = [
        _record(i, " ".join(["word"] * (i + 1)) + (" you feel?" if i % 2 else ""), 1 + i % 3)
        for i in range(12)
    ]
    model = np.array(
        [[r.labels[c] for c in ("cognitive", "emotional", "behavioral")] for r in records],
        dtype=np.float32,
    )
    model = np.concatenate([model, model.mean(axis=1, keepdims=True)], axis=1)
    report = agreement_report(
        records, {"oracle": ("the labels", model)}, labels="x", selection="all", resamples=200
    )
    rows = {row.name: row for row in report.rows}
    assert list(rows) == ["oracle", "length", "lexicon"]
    assert report.messages == 4 and report.n == 12
    assert rows["oracle"].spearman["cognitive"].rho == pytest.approx(1.0)
    assert set(rows["length"].spearman) == set(TARGETS)
    lengths = baseline_predictions([r.response for r in records])["length"][:, 0]
    assert lengths.tolist() == [len(r.response.split()) for r in records]
