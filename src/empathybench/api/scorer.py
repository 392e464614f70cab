"""The offline empathy scorer and offline judge heads from Python: score a text, train a head
on a frozen encoder, evaluate it on held-out labels, and stress it with perturbations
(``empathybench score`` and ``empathybench scorer train | eval | robustness`` call these).

Parameters are checked before any encoding or training starts (a typo must not start hours
of work); results come back typed, and a given ``output`` receives them as files.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from empathybench.api.paths import PathArg, optional_path
from empathybench.errors import ParameterError, UserError
from empathybench.jsonl import atomic_write_text

if TYPE_CHECKING:
    from empathybench.judging.calibration import CalibrationReport, LabelledResponse
    from empathybench.judging.offline_judge import OfflineJudge
    from empathybench.scorer.agreement import AgreementReport
    from empathybench.scorer.empathy_scorer import EmpathyEvaluation, EmpathyScores
    from empathybench.scorer.heads import RegressionHead
    from empathybench.scorer.robustness import PerturbationRow, RobustnessSummary

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


@dataclass(frozen=True)
class ScorerTraining:
    """A head trained by ``train_scorer`` and saved in ``output``."""

    task: Task
    output: Path
    loss_history: list[float]
    evaluation: EmpathyEvaluation | None = None
    """Empathy scorer: its test MSE beside the train-mean baseline."""
    judge_agreement: JudgeAgreement | None = None
    """Offline judge: its held-out agreement (also stored in the head's metrics)."""


@dataclass(frozen=True)
class ScorerEvaluation:
    """Held-out figures of a head: an empathy scorer's Spearman agreement (beside length and
    lexicon baselines) and test MSE, or an offline judge's agreement with labels."""

    task: Task
    agreement: AgreementReport | None = None
    mse: EmpathyEvaluation | None = None
    judge_agreement: JudgeAgreement | None = None
    output: Path | None = None

    def to_json(self) -> dict[str, Any]:
        """What ``output`` receives."""
        if self.judge_agreement is not None:
            return self.judge_agreement.to_json()
        data: dict[str, Any] = {}
        if self.agreement is not None:
            data["agreement"] = self.agreement.model_dump(mode="json")
        if self.mse is not None:
            data["mse"] = self.mse.model_dump(mode="json")
        return data


@dataclass(frozen=True)
class RobustnessCheck:
    """One text under each perturbation, and mean changes over the labels' test replies."""

    rows: list[PerturbationRow]
    summary: RobustnessSummary
    output: Path | None = field(default=None)

    def to_json(self) -> dict[str, Any]:
        return {
            "table": [row.model_dump(mode="json") for row in self.rows],
            "summary": self.summary.model_dump(mode="json"),
        }


def _write_json(output: Path | None, data: dict[str, Any]) -> None:
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


def _judge_training_data(
    data: str | None, from_run: Path | None, judge: str | None
) -> tuple[list[LabelledResponse], list[LabelledResponse], dict[str, Any]]:
    from empathybench.judging.offline_data import DEFAULT_JUDGE_TRAINING, load_judge_labels
    from empathybench.judging.offline_runs import labels_from_run

    if from_run is not None:
        if not judge:
            raise ParameterError(
                "from_run needs judge: the LLM judge whose verdicts to learn",
                parameters=["from_run", "judge"],
            )
        records = labels_from_run(from_run, judge)
        info: dict[str, Any] = {"name": f"{from_run.name}:{judge}", "distilled_from": judge}
    else:
        if judge:
            raise ParameterError(
                "judge is only used with from_run", parameters=["judge", "from_run"]
            )
        labels = load_judge_labels(data or ",".join(DEFAULT_JUDGE_TRAINING))
        records, info = labels.records, {"name": labels.name, "sha256": labels.sha256}
    train = [r for r in records if r.split != "test"]
    test = [r for r in records if r.split == "test"]
    info.update(train=len(train), test=len(test), split="fixed by scenario")
    return train, test, info


def train_scorer(
    output: PathArg,
    *,
    task: Task = "empathy",
    data: str | None = None,
    from_run: PathArg | None = None,
    judge: str | None = None,
    encoder: str = "minilm",
    method: str = "signals",
    epochs: int = 50,
    learning_rate: float = 2e-4,
    batch_size: int = 16,
    hidden_size: int = 256,
    dropout: float = 0.1,
    seed: int = 0,
    augment: bool = False,
    features: str = "response+context+signals",
    calibration: str = "linear",
    solver: str = "adamw",
    ridge_penalty: float = 3000.0,
) -> ScorerTraining:
    """Train a head on a frozen encoder (AdamW, MSE; defaults from the seed study) and save it
    in ``output``: the empathy scorer (``task="empathy"``, on ``data`` or the bundled labels)
    or an offline judge (``task="judge"``; ``from_run`` and ``judge`` distil that LLM judge's
    verdicts on a run)."""
    from empathybench.scorer.heads import TrainingSettings
    from empathybench.validation import (
        check_count,
        check_directory_target,
        check_number,
        check_seed,
    )

    output, from_run = Path(output), optional_path(from_run)
    # Before any encoding or training: a typo must not start hours of work.
    check_directory_target("output", output)
    check_count("epochs", epochs, maximum=MAX_EPOCHS)
    check_count("batch_size", batch_size, maximum=MAX_BATCH_SIZE)
    check_count("hidden_size", hidden_size, minimum=0, maximum=MAX_HIDDEN_SIZE)
    check_number("learning_rate", learning_rate, above=0, maximum=1.0)
    check_number("ridge_penalty", ridge_penalty, above=0)
    check_seed("seed", seed)
    if from_run is not None:
        task = "judge"
    if task not in ("empathy", "judge"):
        raise UserError(f"unknown task {task!r}: use empathy or judge")
    if solver not in ("adamw", "ridge"):
        raise UserError(f"unknown solver {solver!r}: use adamw or ridge")
    if solver == "ridge" and hidden_size != 0:
        raise ParameterError(
            'solver="ridge" fits a linear head: add hidden_size=0',
            parameters=["solver", "hidden_size"],
        )
    settings = TrainingSettings(
        epochs=epochs,
        learning_rate=learning_rate,
        batch_size=batch_size,
        seed=seed,
        augment=augment,
        solver=solver,
        ridge_penalty=ridge_penalty,
    )
    if task == "empathy":
        from empathybench.scorer.empathy_data import BUNDLED_EMPATHY_LABELS, load_empathy_labels
        from empathybench.scorer.empathy_scorer import EmpathyEvaluation, train_empathy_scorer

        if from_run is not None or judge:
            raise ParameterError(
                "judge is for judge heads: use task=judge", parameters=["judge", "task"]
            )
        labels = load_empathy_labels(data or BUNDLED_EMPATHY_LABELS)
        scorer = train_empathy_scorer(
            labels,
            method=method,
            encoder_name=encoder,
            settings=settings,
            hidden_size=hidden_size,
            dropout=dropout,
        )
        scorer.head.save(output)
        config = scorer.head.config
        evaluation = EmpathyEvaluation.model_validate(config.metrics)
        return ScorerTraining("empathy", output, config.loss_history, evaluation=evaluation)
    from empathybench.judging.offline_judge import train_offline_judge

    if augment:
        raise ParameterError("augment applies to the empathy scorer only", parameters=["augment"])
    if calibration not in ("isotonic", "linear", "none"):
        raise UserError(f"unknown calibration {calibration!r}: use isotonic, linear or none")
    train, test, info = _judge_training_data(data, from_run, judge)
    trained = train_offline_judge(
        train,
        data=info,
        encoder_name=encoder,
        settings=settings,
        hidden_size=hidden_size,
        dropout=dropout,
        feature_set=features,
        calibration=None if calibration == "none" else calibration,  # type: ignore[arg-type]
        calibration_version=f"{output.name}-calibration",
    )
    trained.id = f"offline:{output.name}"
    agreement = offline_judge_agreement(trained, test, f"{info['name']} (test split)")
    trained.head.config = trained.head.config.model_copy(update={"metrics": agreement.to_json()})
    trained.save(output)
    return ScorerTraining(
        "judge", output, trained.head.config.loss_history, judge_agreement=agreement
    )


def _load_any_head(head: Path | None, task: str, method: str) -> RegressionHead:
    from empathybench.scorer.empathy_scorer import resolve_head_dir
    from empathybench.scorer.heads import load_head

    if head is not None:
        return load_head(resolve_head_dir(head))
    from empathybench.judging.offline_judge import BUNDLED_JUDGE_HEAD
    from empathybench.scorer.empathy_data import bundled_data_path
    from empathybench.scorer.empathy_scorer import BUNDLED_HEADS, METHODS

    if task == "judge":
        return load_head(bundled_data_path(f"heads/{BUNDLED_JUDGE_HEAD}"))
    if method not in BUNDLED_HEADS:
        raise UserError(f"unknown scorer method {method!r}: use {' or '.join(METHODS)}")
    return load_head(bundled_data_path(f"heads/{BUNDLED_HEADS[method]}"))


def _evaluate_empathy_head(
    loaded: RegressionHead,
    data: str | None,
    split: str,
    batch: str | None,
    messages: bool,
    resamples: int,
) -> ScorerEvaluation:
    from empathybench.scorer.agreement import agreement_report, with_mean
    from empathybench.scorer.empathy_data import BUNDLED_EMPATHY_LABELS, load_empathy_labels
    from empathybench.scorer.empathy_scorer import EmpathyScorer, evaluate_empathy_scorer
    from empathybench.scorer.encoder import load_encoder

    labels = load_empathy_labels(data or BUNDLED_EMPATHY_LABELS)
    scorer = EmpathyScorer(encoder=load_encoder(loaded.config.encoder), head=loaded)
    records = labels.records if split == "all" else labels.part(split)
    if batch is not None:
        records = [r for r in records if (r.batch or "").startswith(batch)]
    if len(records) < 3:
        raise UserError(f"{labels.name}: fewer than 3 labelled replies in that selection")
    predicted = scorer.predict(
        [r.response for r in records], messages=[r.prompt for r in records] if messages else None
    )
    selection = f"{split} split" + (f", batch {batch}*" if batch else "")
    selection += ", replies with their messages" if messages else ", replies alone"
    report = agreement_report(
        records,
        {
            f"{scorer.method} head": (
                f"{scorer.method} method, trained on {loaded.config.data.get('name', '?')}",
                with_mean(predicted),
            )
        },
        labels=labels.name,
        selection=selection,
        resamples=resamples,
    )
    mse = evaluate_empathy_scorer(scorer, labels) if split == "test" and batch is None else None
    return ScorerEvaluation("empathy", agreement=report, mse=mse)


def evaluate_scorer(
    head: PathArg | None = None,
    *,
    task: Task = "empathy",
    method: str = "signals",
    data: str | None = None,
    split: Split = "test",
    batch: str | None = None,
    messages: bool = True,
    resamples: int = 1000,
    output: PathArg | None = None,
) -> ScorerEvaluation:
    """Held-out figures of ``head`` (default: the bundled head of ``task``/``method``) on
    ``data`` (default: the bundled labels); ``output`` receives them as JSON.

    Empathy heads: Spearman with the labels of ``split`` (optionally only the writing
    ``batch`` starting so) beside length and lexicon baselines, with ``resamples`` bootstrap
    resamples, and test MSE. Judge heads: agreement with the labels' test split and the
    calibration set.
    """
    from empathybench.validation import check_count, check_file_target

    head, output = optional_path(head), optional_path(output)
    check_file_target("output", output)
    check_count("resamples", resamples, minimum=100, maximum=MAX_RESAMPLES)
    if split not in ("test", "train", "all"):
        raise UserError(f"unknown split {split!r}: use test, train or all")
    loaded = _load_any_head(head, task, method)
    if loaded.config.task == "empathy":
        evaluation = _evaluate_empathy_head(loaded, data, split, batch, messages, resamples)
    else:
        from empathybench.judging.judge_calibration import load_calibration
        from empathybench.judging.offline_data import DEFAULT_JUDGE_TRAINING, load_judge_labels
        from empathybench.judging.offline_judge import OfflineJudge, head_directory

        judge = OfflineJudge(
            loaded,
            judge_id=f"offline:{head.name}" if head else "offline",
            calibration=load_calibration(head if head else head_directory("offline")),
        )
        labels = load_judge_labels(data or ",".join(DEFAULT_JUDGE_TRAINING))
        test = [r for r in labels.records if r.split == "test"]
        agreement = offline_judge_agreement(judge, test, f"{labels.name} (test split)")
        evaluation = ScorerEvaluation("judge", judge_agreement=agreement)
    _write_json(output, evaluation.to_json())
    return replace(evaluation, output=output)


def scorer_robustness(
    text: str | None = None,
    *,
    head: PathArg | None = None,
    data: str | None = None,
    seed: int = 0,
    output: PathArg | None = None,
) -> RobustnessCheck:
    """The seed study's adversarial table for ``text`` (default: its example), and the mean
    change of each perturbation over the test replies of ``data`` (default: bundled labels)."""
    from empathybench.scorer.empathy_data import BUNDLED_EMPATHY_LABELS, load_empathy_labels
    from empathybench.scorer.empathy_scorer import load_empathy_scorer
    from empathybench.scorer.robustness import EXAMPLE_TEXT, robustness_summary, robustness_table
    from empathybench.validation import check_file_target, check_seed

    head, output = optional_path(head), optional_path(output)
    check_file_target("output", output)
    check_seed("seed", seed)
    scorer = load_empathy_scorer(head)
    rows = robustness_table(scorer, text or EXAMPLE_TEXT, seed=seed)
    labels = load_empathy_labels(data or BUNDLED_EMPATHY_LABELS)
    texts = [r.response for r in labels.part("test")] or [r.response for r in labels.records]
    check = RobustnessCheck(rows, robustness_summary(scorer, texts, seed=seed), output)
    _write_json(output, check.to_json())
    return check
