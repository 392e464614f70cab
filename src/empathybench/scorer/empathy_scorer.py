"""The empathy scorer: frozen encoder + regression head → cognitive, emotional, behavioral.

Each component is on the seed study's 1–3 scale and ``empathy`` is their mean. The package
ships a head trained on the bundled labels (``data/scorer/heads/empathy-v1``);
``train_empathy_scorer`` trains a new one, ``evaluate_empathy_scorer`` measures test MSE beside
a mean-predictor baseline, and ``score_responses`` scores texts in batches (for reports, or as
a reward function).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from empathybench import __version__
from empathybench.errors import UserError
from empathybench.scorer.empathy_data import COMPONENTS, EmpathyLabel, LabelSet, bundled_data_path
from empathybench.scorer.encoder import BUNDLED_ENCODER, TextEncoder, load_encoder
from empathybench.scorer.heads import (
    HeadConfig,
    Matrix,
    RegressionHead,
    TrainingSettings,
    load_head,
    train_head,
)
from empathybench.scorer.perturbations import PERTURBATIONS, perturb
from empathybench.types import Record

BUNDLED_EMPATHY_HEAD = "empathy-v1"
SEED_STUDY_MSE = 0.3525
"""Overall test MSE reported by the seed study (frozen BERT, 100 hand-labelled examples)."""


class EmpathyScores(Record):
    cognitive: float
    emotional: float
    behavioral: float
    empathy: float
    """The mean of the three components (1–3)."""


@dataclass
class EmpathyScorer:
    encoder: TextEncoder
    head: RegressionHead

    def score(self, texts: Sequence[str], *, batch_size: int = 64) -> list[EmpathyScores]:
        predictions = self.predict(texts, batch_size=batch_size)
        return [
            EmpathyScores(
                cognitive=float(row[0]),
                emotional=float(row[1]),
                behavioral=float(row[2]),
                empathy=float(row.mean()),
            )
            for row in predictions
        ]

    def predict(self, texts: Sequence[str], *, batch_size: int = 64) -> Matrix:
        """Rows of (cognitive, emotional, behavioral), each clipped to 1–3."""
        return self.head.predict(self.encoder.encode(texts, batch_size=batch_size))


def bundled_head_dir(name: str) -> Path:
    return bundled_data_path(f"heads/{name}")


def load_empathy_scorer(head_dir: Path | None = None) -> EmpathyScorer:
    """The scorer saved in ``head_dir`` (default: the bundled head), with its encoder."""
    head = load_head(head_dir or bundled_head_dir(BUNDLED_EMPATHY_HEAD))
    if head.config.task != "empathy":
        raise UserError(f"{head_dir}: a {head.config.task} head, not an empathy scorer")
    return EmpathyScorer(encoder=load_encoder(head.config.encoder), head=head)


@lru_cache(maxsize=1)
def _default_scorer() -> EmpathyScorer:
    return load_empathy_scorer()


def score_responses(
    responses: Sequence[str], *, scorer: EmpathyScorer | None = None, batch_size: int = 64
) -> list[EmpathyScores]:
    """Score replies in batches with the bundled scorer (loaded once) or ``scorer``."""
    return (scorer or _default_scorer()).score(responses, batch_size=batch_size)


def _targets(records: Sequence[EmpathyLabel]) -> Matrix:
    return np.array([[r.labels[c] for c in COMPONENTS] for r in records], dtype=np.float32)


def augmented_texts(
    records: Sequence[EmpathyLabel], seed: int
) -> tuple[list[str], list[EmpathyLabel]]:
    """Each training text plus one copy under every perturbation (labels unchanged)."""
    texts, sources = [], []
    for record in records:
        texts.append(record.response)
        sources.append(record)
        for name in PERTURBATIONS:
            texts.append(perturb(record.response, name, seed=seed))
            sources.append(record)
    return texts, sources


def train_empathy_scorer(
    labels: LabelSet,
    *,
    encoder_name: str = BUNDLED_ENCODER,
    settings: TrainingSettings | None = None,
    hidden_size: int = 256,
    dropout: float = 0.1,
    on_epoch: Callable[[int, float], None] | None = None,
) -> EmpathyScorer:
    """Train a head on the ``train`` split of ``labels`` and record its test figures."""
    settings = settings or TrainingSettings()
    encoder = load_encoder(encoder_name)
    train = labels.part("train")
    if settings.augment:
        texts, sources = augmented_texts(train, settings.seed)
    else:
        texts, sources = [r.response for r in train], list(train)
    features = encoder.encode(texts)
    config = HeadConfig(
        task="empathy",
        encoder=encoder_name,
        encoder_dimension=encoder.dimension,
        features="response",
        targets=list(COMPONENTS),
        target_low=1.0,
        target_high=3.0,
        hidden_size=hidden_size,
        dropout=dropout,
        input_dimension=encoder.dimension,
        training=settings,
        data={
            "name": labels.name,
            "sha256": labels.sha256,
            "train": len(train),
            "train_texts": len(texts),
            "test": len(labels.part("test")),
            "split": "fixed by prompt",
        },
        package_version=__version__,
    )
    head = train_head(config, features, _targets(sources), on_epoch=on_epoch)
    scorer = EmpathyScorer(encoder=encoder, head=head)
    evaluation = evaluate_empathy_scorer(scorer, labels)
    head.config = head.config.model_copy(update={"metrics": evaluation.model_dump(mode="json")})
    return scorer


class EmpathyEvaluation(Record):
    """Test-split mean squared errors (1–3 scale) beside a predictor of the training mean."""

    labels: str
    n_test: int
    mse: dict[str, float]
    """cognitive, emotional, behavioral, overall (mean of the three) and empathy (the mean)."""
    baseline_mse: dict[str, float]
    seed_study_mse: float = SEED_STUDY_MSE


def _mse_table(predicted: Matrix, truth: Matrix) -> dict[str, float]:
    errors = (predicted - truth) ** 2
    table = {c: float(errors[:, i].mean()) for i, c in enumerate(COMPONENTS)}
    table["overall"] = float(errors.mean())
    table["empathy"] = float(((predicted.mean(axis=1) - truth.mean(axis=1)) ** 2).mean())
    return {k: round(v, 4) for k, v in table.items()}


def evaluate_empathy_scorer(scorer: EmpathyScorer, labels: LabelSet) -> EmpathyEvaluation:
    test, train = labels.part("test"), labels.part("train")
    if not test:
        raise UserError(f"{labels.name}: no test split to evaluate on")
    truth = _targets(test)
    predicted = scorer.predict([r.response for r in test])
    baseline = np.broadcast_to(_targets(train).mean(axis=0), truth.shape).astype(np.float32)
    return EmpathyEvaluation(
        labels=labels.name,
        n_test=len(test),
        mse=_mse_table(predicted, truth),
        baseline_mse=_mse_table(baseline, truth),
    )
