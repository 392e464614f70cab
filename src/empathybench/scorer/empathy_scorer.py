"""The empathy scorer: frozen encoder + regression head → cognitive, emotional, behavioral.

Each component is on the seed study's 1–3 scale and ``empathy`` is their mean. Two methods,
both a trained head on a frozen encoder: ``signals`` (the default; the embedding plus the reply
signals of ``scorer.signals``: repetition, formulaic warmth, exploring questions, focus,
bounded length, interpretation and self-disclosure phrases, dismissive and stock phrases,
overlap with the message) and ``seed`` (the seed study's: the embedding alone). A head records
the signal names it was trained on, so heads of older signal versions keep working. Shipped
heads: ``empathy-v4`` (signals-v2, ridge, empathy-labels-v4; the default), ``empathy-seed-v2``
(seed); ``empathy-v6``, ``empathy-v5`` and ``empathy-v3`` (the same recipe on v6, v5 and v3
labels),
``empathy-v2`` (signals-v1) and
``empathy-v1`` (seed, v1 labels) are kept.
``train_empathy_scorer`` trains a new one, ``evaluate_empathy_scorer`` measures test MSE
beside a mean-predictor baseline (``scorer.agreement`` gives Spearman beside length and
lexicon baselines), and
``score_responses`` scores texts in batches (for reports, or as a reward function).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

from empathybench import __version__
from empathybench.errors import UserError
from empathybench.records import Record
from empathybench.scorer.empathy_data import COMPONENTS, EmpathyLabel, LabelSet, bundled_data_path
from empathybench.scorer.encoder import BUNDLED_ENCODER, Embeddings, load_encoder
from empathybench.scorer.heads import (
    HeadConfig,
    Matrix,
    RegressionHead,
    TrainingSettings,
    head_label,
    load_head,
    train_head,
)
from empathybench.scorer.perturbations import PERTURBATIONS, perturb
from empathybench.scorer.signals import (
    SIGNAL_NAMES,
    SIGNALS_VERSION,
    STOCK_PHRASES,
    reply_signals,
)

METHODS = ("signals", "seed")
"""``signals``: embedding + reply signals (the default); ``seed``: the seed study's method,
the frozen encoder's embedding alone."""
DEFAULT_METHOD = "signals"
BUNDLED_HEADS = {"signals": "empathy-v4", "seed": "empathy-seed-v2"}
"""The shipped head of each method. ``empathy-v4`` (signals-v2, linear ridge head, train split
of empathy-labels-v4) is the default. Other heads load by name (``--head empathy-v5``):
``empathy-v6`` and ``empathy-v5`` (the same recipe on v6 and v5 labels; not the default:
each separates looping replies from good ones by less, see docs/scorer.md),
``empathy-v3`` (the same recipe on v3 labels), ``empathy-v2`` (signals-v1,
MLP, v2 labels), ``empathy-seed-v2`` and
``empathy-v1`` (seed method, v1 labels)."""
BUNDLED_EMPATHY_HEAD = BUNDLED_HEADS[DEFAULT_METHOD]
SEED_STUDY_MSE = 0.3525
"""Overall test MSE reported by the seed study (frozen BERT, 100 hand-labelled examples)."""


class EmpathyScores(Record):
    cognitive: float
    emotional: float
    behavioral: float
    empathy: float
    """The mean of the three components (1–3)."""


class Encodes(Protocol):
    """What the head's features need of an encoder (a ``TextEncoder``, or a cache of one)."""

    @property
    def dimension(self) -> int: ...

    def encode(self, texts: Sequence[str], *, batch_size: int = 64) -> Embeddings: ...


_STOCK: dict[int, tuple[Encodes, Matrix]] = {}


def _stock_embeddings(encoder: Encodes) -> Matrix:
    """The stock phrases' embeddings, once per encoder (the encoder is kept, so its id is)."""
    kept = _STOCK.get(id(encoder))
    if kept is None or kept[0] is not encoder:
        kept = _STOCK[id(encoder)] = (encoder, encoder.encode(list(STOCK_PHRASES)))
    return kept[1]


def _encode_unique(encoder: Encodes, texts: Sequence[str], batch_size: int) -> Matrix:
    """Embeddings of ``texts``, each distinct text encoded once (messages repeat a lot)."""
    unique = list(dict.fromkeys(texts))
    rows = encoder.encode(unique, batch_size=batch_size)
    index = {text: i for i, text in enumerate(unique)}
    return rows[[index[t] for t in texts]] if texts else rows


def design_matrix(
    method: str,
    encoder: Encodes,
    texts: Sequence[str],
    embeddings: Matrix,
    message_embeddings: Matrix | None,
    *,
    messages: Sequence[str] | None = None,
    signal_names: Sequence[str] = SIGNAL_NAMES,
) -> Matrix:
    """The head's input: the embedding (seed) or the embedding and the reply signals
    ``signal_names`` (a head's own list; the messages' text feeds the overlap signals)."""
    if method == "seed":
        return embeddings
    signals = reply_signals(
        texts,
        embeddings,
        _stock_embeddings(encoder),
        message_embeddings,
        messages=messages,
        names=signal_names,
    )
    return np.concatenate([embeddings, signals], axis=1).astype(np.float32)


def method_of(config: HeadConfig) -> str:
    return "signals" if config.features == "response+signals" else "seed"


@dataclass
class EmpathyScorer:
    encoder: Encodes
    head: RegressionHead
    head_name: str | None = None
    """The head's folder name and a digest of its files (``empathy-v4 (1a2b3c4d)``) when it
    was loaded from a folder; None for a head not saved yet."""

    @property
    def scored_by(self) -> str:
        """What stored scores record: ``empathy-v4 (1a2b3c4d) on minilm, onnx``; the
        encoder's backend matters because bfloat16 moves scores by up to 0.01."""
        settings = getattr(self.encoder, "settings", None)
        backend = getattr(self.encoder, "backend", None)
        encoder = ", ".join(
            str(part) for part in (getattr(settings, "name", None), backend) if part is not None
        )
        return f"{self.head_name or 'an unsaved head'}" + (f" on {encoder}" if encoder else "")

    @property
    def method(self) -> str:
        return method_of(self.head.config)

    def score(
        self,
        texts: Sequence[str],
        *,
        messages: Sequence[str] | None = None,
        batch_size: int = 64,
    ) -> list[EmpathyScores]:
        predictions = self.predict(texts, messages=messages, batch_size=batch_size)
        return [
            EmpathyScores(
                cognitive=float(row[0]),
                emotional=float(row[1]),
                behavioral=float(row[2]),
                empathy=float(row.mean()),
            )
            for row in predictions
        ]

    def predict(
        self,
        texts: Sequence[str],
        *,
        messages: Sequence[str] | None = None,
        batch_size: int = 64,
    ) -> Matrix:
        """Rows of (cognitive, emotional, behavioral), each clipped to 1–3.

        ``messages`` (one per text, the message each replies to) feed the signals method's
        message–reply similarity; the seed method ignores them.
        """
        if messages is not None and len(messages) != len(texts):
            raise ValueError(f"{len(texts)} texts but {len(messages)} messages")
        embeddings = self.encoder.encode(texts, batch_size=batch_size)
        context = None
        if messages is not None and self.method == "signals":
            context = _encode_unique(self.encoder, messages, batch_size)
        features = design_matrix(
            self.method,
            self.encoder,
            texts,
            embeddings,
            context,
            messages=messages if context is not None else None,
            signal_names=self.head.config.signals,
        )
        return self.head.predict(features)


def bundled_head_dir(name: str) -> Path:
    return bundled_data_path(f"heads/{name}")


def resolve_head_dir(head: Path) -> Path:
    """``head`` itself, or the bundled head of that name (``empathy-v2``) when no such
    directory exists but a bundled head does."""
    if not head.exists() and head.name == str(head) and bundled_head_dir(head.name).is_dir():
        return bundled_head_dir(head.name)
    return head


def load_empathy_scorer(
    head_dir: Path | None = None, *, method: str | None = None
) -> EmpathyScorer:
    """The scorer saved in ``head_dir`` (a directory, or a bundled head's name), else the
    bundled head of ``method`` (default signals)."""
    if head_dir is not None:
        head_dir = resolve_head_dir(head_dir)
    if head_dir is None:
        if (method or DEFAULT_METHOD) not in BUNDLED_HEADS:
            raise UserError(f"unknown scorer method {method!r}: use {' or '.join(METHODS)}")
        head_dir = bundled_head_dir(BUNDLED_HEADS[method or DEFAULT_METHOD])
    head = load_head(head_dir)
    if head.config.task != "empathy":
        raise UserError(f"{head_dir}: a {head.config.task} head, not an empathy scorer")
    return EmpathyScorer(
        encoder=load_encoder(head.config.encoder), head=head, head_name=head_label(head_dir)
    )


@lru_cache(maxsize=2)
def bundled_scorer(method: str = DEFAULT_METHOD) -> EmpathyScorer:
    """The bundled scorer of ``method``, loaded once."""
    return load_empathy_scorer(method=method)


def score_responses(
    responses: Sequence[str],
    *,
    messages: Sequence[str] | None = None,
    scorer: EmpathyScorer | None = None,
    method: str = DEFAULT_METHOD,
    batch_size: int = 64,
) -> list[EmpathyScores]:
    """Score replies in batches with the bundled scorer of ``method`` (loaded once) or ``scorer``.

    ``messages``, when given, are the messages the replies answer (one per reply).
    """
    chosen = scorer or bundled_scorer(method)
    return chosen.score(responses, messages=messages, batch_size=batch_size)


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


def training_matrix(
    method: str,
    encoder: Encodes,
    texts: Sequence[str],
    sources: Sequence[EmpathyLabel],
    embeddings: Matrix,
    *,
    signal_names: Sequence[str] = SIGNAL_NAMES,
) -> tuple[Matrix, Matrix]:
    """Inputs and targets; the signals method sees every reply with and without its message,
    so it scores a reply alone as well as a reply beside its message."""
    targets = _targets(sources)
    if method == "seed":
        return embeddings, targets
    prompts = [r.prompt for r in sources]
    messages = _encode_unique(encoder, prompts, 64)
    with_message = design_matrix(
        method, encoder, texts, embeddings, messages, messages=prompts, signal_names=signal_names
    )
    alone = design_matrix(method, encoder, texts, embeddings, None, signal_names=signal_names)
    return np.concatenate([with_message, alone]), np.concatenate([targets, targets])


def head_config(
    method: str,
    encoder: Encodes,
    encoder_name: str,
    settings: TrainingSettings,
    hidden_size: int,
    dropout: float,
    data: dict[str, object],
    *,
    signal_names: Sequence[str] = SIGNAL_NAMES,
) -> HeadConfig:
    signals = list(signal_names) if method == "signals" else []
    return HeadConfig(
        task="empathy",
        encoder=encoder_name,
        encoder_dimension=encoder.dimension,
        features="response+signals" if method == "signals" else "response",
        signals=signals,
        targets=list(COMPONENTS),
        target_low=1.0,
        target_high=3.0,
        hidden_size=hidden_size,
        dropout=dropout,
        input_dimension=encoder.dimension + len(signals),
        training=settings,
        data=data,
        package_version=__version__,
    )


def train_empathy_scorer(
    labels: LabelSet,
    *,
    method: str = DEFAULT_METHOD,
    encoder_name: str = BUNDLED_ENCODER,
    settings: TrainingSettings | None = None,
    hidden_size: int = 256,
    dropout: float = 0.1,
    on_epoch: Callable[[int, float], None] | None = None,
) -> EmpathyScorer:
    """Train a head on the ``train`` split of ``labels`` and record its test figures."""
    if method not in METHODS:
        raise UserError(f"unknown scorer method {method!r}: use {' or '.join(METHODS)}")
    head = fit_empathy_head(
        labels,
        load_encoder(encoder_name),
        method=method,
        encoder_name=encoder_name,
        settings=settings,
        hidden_size=hidden_size,
        dropout=dropout,
        on_epoch=on_epoch,
    )
    return EmpathyScorer(encoder=load_encoder(encoder_name), head=head)


def fit_empathy_head(
    labels: LabelSet,
    encoder: Encodes,
    *,
    method: str,
    encoder_name: str,
    settings: TrainingSettings | None = None,
    hidden_size: int = 256,
    dropout: float = 0.1,
    on_epoch: Callable[[int, float], None] | None = None,
) -> RegressionHead:
    """``train_empathy_scorer`` on a given encoder (a ``TextEncoder`` or a cache of its
    embeddings, as ``benchmarks/scorer_validity.py`` uses): the head, its test MSE recorded."""
    settings = settings or TrainingSettings()
    train = labels.part("train")
    if settings.augment:
        texts, sources = augmented_texts(train, settings.seed)
    else:
        texts, sources = [r.response for r in train], list(train)
    features, targets = training_matrix(method, encoder, texts, sources, encoder.encode(texts))
    data: dict[str, object] = {
        "name": labels.name,
        "sha256": labels.sha256,
        "train": len(train),
        "train_texts": len(texts),
        "test": len(labels.part("test")),
        "split": "fixed by prompt",
    }
    if method == "signals":
        data["signals_version"] = SIGNALS_VERSION
    config = head_config(method, encoder, encoder_name, settings, hidden_size, dropout, data)
    head = train_head(config, features, targets, on_epoch=on_epoch)
    evaluation = evaluate_empathy_scorer(EmpathyScorer(encoder, head), labels)
    head.config = head.config.model_copy(update={"metrics": evaluation.model_dump(mode="json")})
    return head


class EmpathyEvaluation(Record):
    """Test-split mean squared errors (1–3 scale) beside a predictor of the training mean."""

    labels: str
    n_test: int
    mse: dict[str, float]
    """cognitive, emotional, behavioral, overall (mean of the three) and empathy (the mean)."""
    baseline_mse: dict[str, float]
    """Empty when the labels file has no train split (the training mean is unknown)."""
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
    predicted = scorer.predict([r.response for r in test], messages=[r.prompt for r in test])
    baseline_mse: dict[str, float] = {}
    if train:  # a held-out file of test rows only has no training mean to compare with
        baseline = np.broadcast_to(_targets(train).mean(axis=0), truth.shape).astype(np.float32)
        baseline_mse = _mse_table(baseline, truth)
    return EmpathyEvaluation(
        labels=labels.name,
        n_test=len(test),
        mse=_mse_table(predicted, truth),
        baseline_mse=baseline_mse,
    )
