"""``train_scorer``: an empathy scorer head or an offline judge head trained on a frozen
encoder, saved in ``output`` with its held-out figures (``empathybench scorer train``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from empathybench.api.paths import PathArg, optional_path
from empathybench.api.scorer import (
    MAX_BATCH_SIZE,
    MAX_EPOCHS,
    MAX_HIDDEN_SIZE,
    JudgeAgreement,
    Task,
    offline_judge_agreement,
)
from empathybench.errors import ParameterError, UserError

if TYPE_CHECKING:
    from empathybench.judging.calibration import LabelledResponse
    from empathybench.scorer.empathy_scorer import EmpathyEvaluation


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
    features: str = "response+context+signals+fit",
    calibration: str = "linear",
    solver: str = "adamw",
    ridge_penalty: float = 3000.0,
    force: bool = False,
) -> ScorerTraining:
    """Train a head on a frozen encoder (AdamW, MSE; defaults from the seed study) and save it
    in ``output``: the empathy scorer (``task="empathy"``, on ``data`` or the bundled labels)
    or an offline judge (``task="judge"``; ``from_run`` and ``judge`` distil that LLM judge's
    verdicts on a run). ``output`` must be new, empty or hold a head already, unless
    ``force``."""
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
    from empathybench.runtime.output_guard import check_output_directory
    from empathybench.scorer.heads import WEIGHTS_FILE

    check_output_directory(output, kind="scorer head", markers=(WEIGHTS_FILE,), force=force)
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
    from empathybench.judging.offline_features import FEATURE_SETS

    # Judge heads read these; an empathy head does not, but a typo there is still refused.
    if features not in FEATURE_SETS:
        raise UserError(f"unknown feature set {features!r}: use {', '.join(FEATURE_SETS)}")
    if calibration not in ("isotonic", "linear", "none"):
        raise UserError(f"unknown calibration {calibration!r}: use isotonic, linear or none")
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
