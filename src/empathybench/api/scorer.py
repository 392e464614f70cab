"""The offline empathy scorer and offline judge heads from Python: score a text, train a head
on a frozen encoder (``api.scorer_training``), evaluate it on held-out labels and stress it with
perturbations (``api.scorer_evaluation``); ``empathybench score`` and ``empathybench scorer
train | eval | robustness`` call these.

Parameters are checked before any encoding or training starts (a typo must not start hours
of work); results come back typed, and a given ``output`` receives them as files. This module
holds what both share: the tasks, the parameter bounds and an offline judge's agreement.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from empathybench.api.paths import PathArg, optional_path
from empathybench.errors import UserError
from empathybench.jsonl import atomic_write_text

if TYPE_CHECKING:
    from empathybench.judging.calibration import CalibrationReport, LabelledResponse
    from empathybench.judging.offline_judge import OfflineJudge
    from empathybench.scorer.empathy_scorer import EmpathyScores

Task = Literal["empathy", "judge"]
Split = Literal["test", "train", "all"]

MAX_EPOCHS = 10_000
MAX_RESAMPLES = 100_000
MAX_BATCH_SIZE = 65_536
MAX_HIDDEN_SIZE = 65_536


@dataclass(frozen=True)
class JudgeAgreement:
    """An offline judge's agreement with labelled responses it was not trained on, by the
    name of the labels (its own test split first, then the bundled calibration set)."""

    judge_id: str
    reports: dict[str, CalibrationReport]

    def to_json(self) -> dict[str, Any]:
        return {name: report.model_dump(mode="json") for name, report in self.reports.items()}


def write_json(output: Path | None, data: dict[str, Any]) -> None:
    if output is not None:
        atomic_write_text(output, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def score_text(
    text: str,
    *,
    head: PathArg | None = None,
    method: str = "signals",
    message: str | None = None,
) -> EmpathyScores:
    """Cognitive, emotional and behavioral empathy (1–3) of one reply, and their mean;
    ``message`` is what the reply answers, ``head`` a trained head (default: the bundled head
    of ``method``, ``signals`` or ``seed``)."""
    from empathybench.scorer.empathy_scorer import load_empathy_scorer

    if not text.strip():
        raise UserError("nothing to score: the text is empty")
    scorer = load_empathy_scorer(optional_path(head), method=method)
    [scores] = scorer.score([text], messages=[message] if message else None)
    return scores


def offline_judge_agreement(
    judge: OfflineJudge, test: list[LabelledResponse], test_name: str
) -> JudgeAgreement:
    """Held-out agreement of an offline judge: its test split, and the calibration set."""
    from empathybench.judging.calibration import BUNDLED_LABELS, load_labels
    from empathybench.judging.offline_judge import evaluate_offline_judge

    reports = {}
    if test:
        reports[test_name] = evaluate_offline_judge(judge, test, labels_name=test_name)
    reports[BUNDLED_LABELS] = evaluate_offline_judge(
        judge, load_labels(BUNDLED_LABELS), labels_name=BUNDLED_LABELS
    )
    return JudgeAgreement(judge.id, reports)
