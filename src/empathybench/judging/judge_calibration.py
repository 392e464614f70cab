"""Calibrating an offline judge head so its scores mean what the labels mean.

A head trained with MSE ranks replies but its mean drifts from the labels' mean (judge-v1
over-scored independent labels by 0.09–0.15). A calibration is one monotone, piecewise-linear
map per dimension from the head's raw score to a calibrated score, fitted on predictions the
head made for labelled replies it was **not** trained on (cross-fitted: folds grouped by
scenario, each fold predicted by a head trained on the others). Two methods:

- ``isotonic``: weighted isotonic regression (pool-adjacent-violators, scipy) of the labels on
  the raw scores; the knots are the blocks' mean raw score and mean label, joined by straight
  lines, so ties are few and the map stays monotone.
- ``linear``: least squares ``a + b·raw`` (two knots, at 0 and 1), clipped to 0–1.

Either map is then shifted so its scores average to the labels' mean on the fitting data
(joining block centres by lines, and clipping, would otherwise move the mean by up to ~0.02).

It is stored beside the head as ``calibration.json`` (``JudgeCalibration``, versioned) and
applied after the head, before scores are rounded and written.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import Field, ValidationError

from empathybench.errors import UserError
from empathybench.jsonl import atomic_write_text
from empathybench.records import Record

CALIBRATION_FILE = "calibration.json"
CALIBRATION_SCHEMA = 1
Method = Literal["isotonic", "linear"]
FloatArray = npt.NDArray[np.float64]


class DimensionCalibration(Record):
    dimension: str
    knots_raw: list[float] = Field(min_length=1)
    knots_calibrated: list[float] = Field(min_length=1)
    n: int
    label_mean: float
    raw_mean: float
    """Mean raw (uncalibrated) score on the data the map was fitted on."""

    def apply(self, raw: npt.NDArray[Any]) -> FloatArray:
        values = np.interp(np.asarray(raw, dtype=np.float64), self.knots_raw, self.knots_calibrated)
        return np.clip(values, 0.0, 1.0)


class JudgeCalibration(Record):
    schema_version: int = CALIBRATION_SCHEMA
    version: str
    """Name of this calibration (``judge-v2-calibration-1`` …), recorded in reports."""
    method: Method
    fitted_on: dict[str, Any] = Field(default_factory=dict)
    """Labels, folds and how the raw scores were produced."""
    dimensions: list[DimensionCalibration]

    def apply(self, targets: Sequence[str], predictions: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """Calibrated copy of ``predictions`` (one column per target; others untouched)."""
        calibrated = np.array(predictions, dtype=np.float32, copy=True)
        for dimension in self.dimensions:
            if dimension.dimension in targets:
                column = list(targets).index(dimension.dimension)
                calibrated[:, column] = dimension.apply(calibrated[:, column])
        return calibrated


def fit_dimension(
    dimension: str, raw: Sequence[float], labels: Sequence[float], method: Method = "isotonic"
) -> DimensionCalibration:
    """The map for one dimension from held-out raw scores and their labels."""
    x = np.asarray(raw, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    if len(x) != len(y) or len(x) < 2:
        raise ValueError(f"{dimension}: need at least 2 paired scores to calibrate")
    if method == "linear":
        slope, intercept = np.polyfit(x, y, 1) if np.ptp(x) > 0 else (0.0, float(y.mean()))
        knots_raw, knots_calibrated = [0.0, 1.0], [intercept, intercept + slope]
    else:
        knots_raw, knots_calibrated = _isotonic_knots(x, y)
    knots_calibrated = _match_mean(x, y, knots_raw, knots_calibrated)
    return DimensionCalibration(
        dimension=dimension,
        knots_raw=[round(float(v), 6) for v in knots_raw],
        knots_calibrated=[round(float(v), 6) for v in knots_calibrated],
        n=len(x),
        label_mean=round(float(y.mean()), 6),
        raw_mean=round(float(x.mean()), 6),
    )


def _match_mean(
    x: FloatArray, y: FloatArray, knots_raw: Sequence[float], knots_calibrated: Sequence[float]
) -> list[float]:
    """Shift the knots so the mapped scores average to the labels' mean on the fitting data
    (joining block centres by lines, and clipping to 0–1, move it a little)."""
    knots = np.asarray(knots_calibrated, dtype=np.float64)
    for _ in range(5):
        mapped = np.clip(np.interp(x, knots_raw, knots), 0.0, 1.0)
        gap = float(y.mean() - mapped.mean())
        if abs(gap) < 1e-4:
            break
        knots = np.clip(knots + gap, 0.0, 1.0)
    return [float(v) for v in knots]


def _isotonic_knots(x: FloatArray, y: FloatArray) -> tuple[list[float], list[float]]:
    from scipy.optimize import isotonic_regression

    unique, inverse = np.unique(x, return_inverse=True)
    weights = np.bincount(inverse).astype(np.float64)
    means = np.bincount(inverse, weights=y) / weights
    fitted = isotonic_regression(means, weights=weights).x
    knots_raw: list[float] = []
    knots_calibrated: list[float] = []
    start = 0
    for end in range(1, len(unique) + 1):
        if end == len(unique) or fitted[end] != fitted[start]:
            block = slice(start, end)
            knots_raw.append(float(np.average(unique[block], weights=weights[block])))
            knots_calibrated.append(float(fitted[start]))
            start = end
    return knots_raw, knots_calibrated


def fit_calibration(
    targets: Sequence[str],
    raw: npt.NDArray[Any],
    labels: npt.NDArray[Any],
    mask: npt.NDArray[Any],
    *,
    version: str,
    method: Method = "isotonic",
    fitted_on: dict[str, Any] | None = None,
) -> JudgeCalibration:
    """One map per target that has labels (``mask`` marks which rows have each)."""
    dimensions = []
    for column, target in enumerate(targets):
        rows = mask[:, column] > 0
        if rows.sum() >= 2:
            dimensions.append(
                fit_dimension(target, raw[rows, column], labels[rows, column], method)
            )
    return JudgeCalibration(
        version=version, method=method, fitted_on=fitted_on or {}, dimensions=dimensions
    )


def save_calibration(calibration: JudgeCalibration, directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    atomic_write_text(
        directory / CALIBRATION_FILE,
        json.dumps(calibration.model_dump(mode="json"), indent=2) + "\n",
    )


def load_calibration(directory: Path) -> JudgeCalibration | None:
    """The calibration stored with a head, or None (heads before judge-v2 have none)."""
    path = directory / CALIBRATION_FILE
    if not path.is_file():
        return None
    try:
        calibration = JudgeCalibration.model_validate_json(path.read_text(encoding="utf-8"))
    except ValidationError as error:
        raise UserError(f"{path}: invalid calibration ({error.errors()[0]['msg']})") from None
    if calibration.schema_version != CALIBRATION_SCHEMA:
        raise UserError(
            f"{path}: calibration schema {calibration.schema_version}, need {CALIBRATION_SCHEMA}"
        )
    return calibration
