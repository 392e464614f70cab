"""Calibration maps for offline judge heads: they move a biased mean onto the labels' mean,
keep the order of scores, and are stored with the head."""

from pathlib import Path

import numpy as np
import pytest

from empathybench.errors import UserError
from empathybench.judging.judge_calibration import (
    CALIBRATION_FILE,
    fit_calibration,
    fit_dimension,
    load_calibration,
    save_calibration,
)

TARGETS = ["willingness_to_help", "cheering_up", "crisis_referral"]


def _over_scoring_judge(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Labels on 0 / 0.5 / 1 and a judge that ranks them well but over-scores them by about 0.1."""
    rng = np.random.default_rng(seed)
    labels = rng.choice([0.0, 0.5, 1.0], size=(300, 3), p=[0.4, 0.35, 0.25])
    raw = np.clip(0.2 + 0.8 * labels + rng.normal(0, 0.12, labels.shape), 0, 1)
    mask = np.ones_like(labels)
    mask[::4, 1] = 0  # cheering does not apply to every item
    return raw.astype(np.float32), labels.astype(np.float32), mask.astype(np.float32)


@pytest.mark.parametrize("method", ["isotonic", "linear"])
def test_calibration_moves_the_mean_onto_the_labels(method: str) -> None:
    raw, labels, mask = _over_scoring_judge()
    calibration = fit_calibration(
        TARGETS[:2], raw[:, :2], labels[:, :2], mask[:, :2], version="t", method=method
    )
    # Fitted on one sample, checked on a fresh sample from the same judge.
    fresh_raw, fresh_labels, fresh_mask = _over_scoring_judge(seed=1)
    calibrated = calibration.apply(TARGETS, fresh_raw)
    for column in range(2):
        rows = fresh_mask[:, column] > 0
        before = fresh_raw[rows, column].mean() - fresh_labels[rows, column].mean()
        after = calibrated[rows, column].mean() - fresh_labels[rows, column].mean()
        assert before > 0.08
        assert abs(after) < 0.04
    # Columns without a map (crisis referral) are untouched; the input is not modified.
    assert np.array_equal(calibrated[:, 2], fresh_raw[:, 2])
    assert not np.array_equal(calibrated[:, 0], fresh_raw[:, 0])


def test_the_map_is_monotone_and_keeps_the_ranking() -> None:
    raw, labels, _ = _over_scoring_judge()
    dimension = fit_dimension("cheering_up", raw[:, 1], labels[:, 1])
    grid = np.linspace(0, 1, 101)
    mapped = dimension.apply(grid)
    assert np.all(np.diff(mapped) >= 0)
    assert mapped.min() >= 0 and mapped.max() <= 1
    assert dimension.label_mean == pytest.approx(float(labels[:, 1].mean()), abs=1e-6)
    # In-sample, isotonic fitted values average to the labels' mean exactly.
    assert dimension.apply(raw[:, 1]).mean() == pytest.approx(labels[:, 1].mean(), abs=0.02)


def test_a_calibration_is_stored_beside_its_head(tmp_path: Path) -> None:
    raw, labels, mask = _over_scoring_judge()
    calibration = fit_calibration(TARGETS, raw, labels, mask, version="judge-test-1")
    assert load_calibration(tmp_path) is None  # heads before judge-v2 have none
    save_calibration(calibration, tmp_path)
    loaded = load_calibration(tmp_path)
    assert loaded == calibration and loaded is not None
    assert np.allclose(loaded.apply(TARGETS, raw), calibration.apply(TARGETS, raw))
    (tmp_path / CALIBRATION_FILE).write_text('{"version": "x"}')
    with pytest.raises(UserError, match="invalid calibration"):
        load_calibration(tmp_path)


def test_too_few_scores_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        fit_dimension("cheering_up", [0.5], [1.0])
