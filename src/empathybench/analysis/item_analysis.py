"""Item analysis: how hard each item is, whether it separates models, and whether it looks flawed.

Over runs of one suite (one run per model, each with any number of epochs):

- **difficulty** is the mean item score over every model and epoch (classical test theory's
  p-value: 1 = everyone gets it fully right, 0 = nobody does), with the share of answers
  that picked the keyed emotion and gave the keyed yes/no on help;
- **discrimination** is the corrected item-rest correlation across models: Pearson's r
  between each model's score on the item (averaged over its epochs) and its mean score on
  every other item. It needs 3+ models whose scores vary; below that it is not reported.
  With few models it is noisy, so it is flagged only at -0.3 or below with 5+ models.
  Epochs are averaged rather than counted as separate takers, because the spread between
  epochs of one model is sampling noise, not a difference in ability;
- **epoch spread** is the mean over models of the range of the item's score across epochs;
- **flags** mark items to audit: every model fully right or fully wrong (2+ models), no
  model picking the keyed emotion, negative discrimination, a large epoch spread, and keys
  a judge disputes (``key_check``: a judge answering the item blind disagrees with its key).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from empathybench.analysis.summary import item_overall, score_items
from empathybench.errors import UserError
from empathybench.judging.key_check import KeyCheck, key_disputes
from empathybench.records import Record
from empathybench.runtime.run_data import RunData

ITEM_ANALYSIS_SCHEMA = 1
MIN_MODELS_FOR_FLAGS = 2
MIN_MODELS_FOR_DISCRIMINATION = 3
MIN_MODELS_FOR_DISCRIMINATION_FLAG = 5
NEGATIVE_DISCRIMINATION = -0.3
UNSTABLE_EPOCH_SPREAD = 0.5

FLAG_ALL_RIGHT = "every model fully right"
FLAG_ALL_WRONG = "every model fully wrong"
FLAG_NO_KEYED_EMOTION = "no model picks the keyed emotion"
FLAG_NEGATIVE_DISCRIMINATION = "negative discrimination"
FLAG_UNSTABLE = "unstable across epochs"
FLAG_KEY_DISPUTED = "a judge disputes the key"


class ItemStatistics(Record):
    scenario_id: str
    kind: str
    responses: int
    """Answers with an item score (models x epochs)."""
    models: int
    difficulty: float | None
    emotion_accuracy: float | None
    help_accuracy: float | None
    discrimination: float | None
    epoch_spread: float | None
    model_scores: dict[str, float]
    """Each run's item score, averaged over its epochs (by run label)."""
    key_disputes: list[str]
    flags: list[str]


class ItemAnalysis(Record):
    schema_version: int = ITEM_ANALYSIS_SCHEMA
    suite: str
    suite_sha256: str
    runs: list[str]
    """Run labels, one per model column."""
    epochs: dict[str, int]
    judges: dict[str, list[str]]
    """Each run's judge panel (item scores of runs with different panels are less comparable)."""
    key_judges: list[str]
    items: list[ItemStatistics]

    @property
    def flagged(self) -> list[ItemStatistics]:
        return [item for item in self.items if item.flags]


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    if len(x) < MIN_MODELS_FOR_DISCRIMINATION:
        return None
    xa, ya = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if float(xa.std()) == 0.0 or float(ya.std()) == 0.0:
        return None
    return float(np.corrcoef(xa, ya)[0, 1])


def _check_same_suite(runs: Sequence[RunData]) -> None:
    if not runs:
        raise UserError("item analysis needs at least one run")
    hashes = {run.suite.sha256 for run in runs}
    if len(hashes) > 1:
        listed = ", ".join(f"{run.directory} ({run.suite.sha256[:12]})" for run in runs)
        raise UserError(f"item analysis needs runs of one suite; these differ: {listed}")


def analyse_items(
    runs: Sequence[RunData],
    labels: Sequence[str],
    key_checks: dict[str, dict[str, KeyCheck]] | None = None,
) -> ItemAnalysis:
    """Item statistics over ``runs`` (one suite); ``key_checks``: judge → scenario → check."""
    _check_same_suite(runs)
    key_checks = key_checks or {}
    scenarios = runs[0].scenarios
    # per run label → scenario → list of (item score, emotion right, help right) over epochs
    scores: dict[str, dict[str, list[float]]] = {}
    emotion: dict[str, list[float]] = defaultdict(list)
    help_needed: dict[str, list[float]] = defaultdict(list)
    epoch_counts: dict[str, int] = {}
    for run, label in zip(runs, labels, strict=True):
        per_item: dict[str, list[float]] = defaultdict(list)
        for item in score_items(scenarios, run.responses, run.verdicts):
            overall = item_overall(item)
            if overall is not None:
                per_item[item.scenario_id].append(overall)
            if (value := item.values.get("emotion_recognition")) is not None:
                emotion[item.scenario_id].append(value)
            if (value := item.values.get("assistance_needed")) is not None:
                help_needed[item.scenario_id].append(value)
        scores[label] = per_item
        epoch_counts[label] = len({epoch for _, epoch in run.responses})
    model_means = {
        label: {sid: sum(v) / len(v) for sid, v in per_item.items()}
        for label, per_item in scores.items()
    }
    items = []
    for scenario_id, scenario in scenarios.items():
        answered = [label for label in labels if scenario_id in model_means[label]]
        if not answered and scenario_id not in emotion:
            continue  # no run asked this item (e.g. --limit)
        all_scores = [v for label in answered for v in scores[label][scenario_id]]
        disputes = key_disputes(scenario, {j: c.get(scenario_id) for j, c in key_checks.items()})
        statistics = ItemStatistics(
            scenario_id=scenario_id,
            kind=scenario.kind,
            responses=len(all_scores),
            models=len(answered),
            difficulty=_mean(all_scores),
            emotion_accuracy=_mean(emotion.get(scenario_id, [])),
            help_accuracy=_mean(help_needed.get(scenario_id, [])),
            discrimination=_discrimination(scenario_id, answered, model_means),
            epoch_spread=_epoch_spread([scores[label][scenario_id] for label in answered]),
            model_scores={label: model_means[label][scenario_id] for label in answered},
            key_disputes=disputes,
            flags=[],
        )
        items.append(statistics.model_copy(update={"flags": item_flags(statistics)}))
    return ItemAnalysis(
        suite=runs[0].suite.name,
        suite_sha256=runs[0].suite.sha256,
        runs=list(labels),
        epochs=epoch_counts,
        judges={label: sorted(run.verdicts) for run, label in zip(runs, labels, strict=True)},
        key_judges=sorted(key_checks),
        items=items,
    )


def _discrimination(
    scenario_id: str, answered: list[str], model_means: dict[str, dict[str, float]]
) -> float | None:
    item_scores, rest_scores = [], []
    for label in answered:
        rest = [v for sid, v in model_means[label].items() if sid != scenario_id]
        if rest:
            item_scores.append(model_means[label][scenario_id])
            rest_scores.append(sum(rest) / len(rest))
    return _pearson(item_scores, rest_scores)


def _epoch_spread(per_model: list[list[float]]) -> float | None:
    ranges = [max(values) - min(values) for values in per_model if len(values) > 1]
    return _mean(ranges)


def item_flags(item: ItemStatistics) -> list[str]:
    flags = []
    values = list(item.model_scores.values())
    if item.models >= MIN_MODELS_FOR_FLAGS:
        if item.difficulty == 1.0:
            flags.append(FLAG_ALL_RIGHT)
        elif values and max(values) == 0.0:
            flags.append(FLAG_ALL_WRONG)
        if item.emotion_accuracy == 0.0:
            flags.append(FLAG_NO_KEYED_EMOTION)
    if (
        item.discrimination is not None
        and item.models >= MIN_MODELS_FOR_DISCRIMINATION_FLAG
        and item.discrimination <= NEGATIVE_DISCRIMINATION
    ):
        flags.append(FLAG_NEGATIVE_DISCRIMINATION)
    if item.epoch_spread is not None and item.epoch_spread >= UNSTABLE_EPOCH_SPREAD:
        flags.append(FLAG_UNSTABLE)
    if item.key_disputes:
        flags.append(FLAG_KEY_DISPUTED)
    return flags
