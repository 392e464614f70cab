"""Regression heads on frozen encoder features: their config, training, saving and loading.

A head directory holds ``config.json`` (``HeadConfig``: what the head predicts, from which
features, how it was trained and how well it did) and ``head.safetensors`` (its weights).
Training follows the seed study's defaults — AdamW, learning rate 2e-4, 50 epochs, MSE — on
precomputed embeddings, seeded, with a masked loss so an item may lack some targets (a
dimension that does not apply to it).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import Field

from empathybench.errors import ParameterError, UserError
from empathybench.jsonl import atomic_write_text, read_json_record
from empathybench.models.local_weights import import_optional
from empathybench.records import Record
from empathybench.scorer.signals import SIGNAL_NAMES
from empathybench.validation import check_existing_directory

HEAD_SCHEMA = 1
CONFIG_FILE = "config.json"
WEIGHTS_FILE = "head.safetensors"

Matrix = npt.NDArray[np.float32]


class TrainingSettings(Record):
    epochs: int = Field(default=50, ge=1)
    learning_rate: float = Field(default=2e-4, gt=0)
    batch_size: int = Field(default=16, ge=1)
    weight_decay: float = Field(default=0.01, ge=0)
    seed: int = 0
    augment: bool = False
    """Also train on perturbed copies of each training text (same labels)."""
    solver: Literal["adamw", "ridge"] = "adamw"
    """``adamw``: the seed's recipe (masked MSE by AdamW, the settings above). ``ridge``:
    closed-form least squares with an L2 penalty on standardised features, per target over
    the rows that have it — a linear head (``hidden_size`` 0); epochs and rates are unused."""
    ridge_penalty: float = Field(default=3000.0, gt=0)


class HeadConfig(Record):
    schema_version: int = HEAD_SCHEMA
    task: Literal["empathy", "judge"]
    encoder: str
    encoder_dimension: int
    features: Literal[
        "response",
        "response+context",
        "response+signals",
        "response+context+signals",
        "response+context+signals+fit",
    ]
    signals: list[str] = Field(default_factory=list)
    """For ``response+signals``: the names of the reply signals after the embedding, in order."""
    targets: list[str]
    target_low: float
    target_high: float
    hidden_size: int = Field(default=256, ge=0)
    """0 means a single linear layer (the seed's head)."""
    dropout: float = Field(default=0.1, ge=0, lt=1)
    input_dimension: int
    training: TrainingSettings = TrainingSettings()
    data: dict[str, Any] = Field(default_factory=dict)
    """Where the labels came from: name, sha256, sizes, split."""
    metrics: dict[str, Any] = Field(default_factory=dict)
    """Held-out figures measured when the head was trained."""
    loss_history: list[float] = Field(default_factory=list)
    package_version: str = ""


def build_module(config: HeadConfig) -> Any:
    nn = import_optional("torch").nn
    outputs = len(config.targets)
    if config.hidden_size == 0:
        return nn.Linear(config.input_dimension, outputs)
    return nn.Sequential(
        nn.Linear(config.input_dimension, config.hidden_size),
        nn.GELU(),
        nn.Dropout(config.dropout),
        nn.Linear(config.hidden_size, outputs),
    )


@dataclass
class RegressionHead:
    """A trained head: its config and its torch module (always in eval mode)."""

    config: HeadConfig
    module: Any

    def predict(self, features: Matrix, *, batch_size: int = 4096) -> Matrix:
        """Predictions clipped to the target range, one row per feature row."""
        torch = import_optional("torch")
        rows = []
        with torch.inference_mode():
            for start in range(0, len(features), batch_size):
                chunk = torch.from_numpy(np.ascontiguousarray(features[start : start + batch_size]))
                rows.append(self.module(chunk).numpy())
        if not rows:
            return np.zeros((0, len(self.config.targets)), dtype=np.float32)
        predictions = np.concatenate(rows).astype(np.float32)
        return np.clip(predictions, self.config.target_low, self.config.target_high)

    def save(self, directory: Path) -> None:
        from safetensors.torch import save_file

        directory.mkdir(parents=True, exist_ok=True)
        state = {name: tensor.contiguous() for name, tensor in self.module.state_dict().items()}
        save_file(state, str(directory / WEIGHTS_FILE), metadata={"format": "pt"})
        atomic_write_text(
            directory / CONFIG_FILE,
            json.dumps(self.config.model_dump(mode="json"), indent=2) + "\n",
        )


def check_head_dir(parameter: str, directory: Path | None) -> None:
    """``directory`` holds a trained head's files (checked without loading torch)."""
    if directory is None:
        return
    check_existing_directory(parameter, directory)
    if not (directory / CONFIG_FILE).is_file() or not (directory / WEIGHTS_FILE).is_file():
        raise ParameterError.about(
            parameter, f"{directory} is not a scorer head (needs {CONFIG_FILE} and {WEIGHTS_FILE})"
        )


def head_label(directory: Path) -> str:
    """A head folder's name and the first 8 hex digits of a SHA-256 over its files (names
    and bytes), ``judge-v3 (1a2b3c4d)``: a user's folder called ``judge-v3`` is told apart
    from the bundled head."""
    digest = hashlib.sha256()
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        digest.update(path.relative_to(directory).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return f"{directory.name} ({digest.hexdigest()[:8]})"


def load_head(directory: Path) -> RegressionHead:
    config_path, weights_path = directory / CONFIG_FILE, directory / WEIGHTS_FILE
    if not config_path.is_file() or not weights_path.is_file():
        raise UserError(f"{directory}: not a scorer head (needs {CONFIG_FILE} and {WEIGHTS_FILE})")
    config = read_json_record(config_path, HeadConfig)
    if config.schema_version != HEAD_SCHEMA:
        raise UserError(f"{config_path}: head schema {config.schema_version}, need {HEAD_SCHEMA}")
    unknown = [name for name in config.signals if name not in SIGNAL_NAMES]
    if unknown:
        raise UserError(
            f"{config_path}: unknown reply signals {', '.join(unknown)} "
            "(a head trained by a newer empathybench?)"
        )
    from safetensors.torch import load_file

    module = build_module(config)
    try:
        module.load_state_dict(load_file(str(weights_path)))
    except Exception as error:  # safetensors' own errors, or weights of another shape
        raise UserError(
            f"{weights_path}: cannot be read as this head's weights ({error})"
        ) from None
    module.eval()
    return RegressionHead(config=config, module=module)


def train_head(
    config: HeadConfig,
    features: Matrix,
    targets: Matrix,
    mask: Matrix | None = None,
    *,
    on_epoch: Callable[[int, float], None] | None = None,
) -> RegressionHead:
    """Fit a new head on ``features`` → ``targets`` (masked MSE); the loss per epoch is kept."""
    torch = import_optional("torch")
    settings = config.training
    if len(features) == 0:
        raise UserError("no training examples")
    if mask is None:
        mask = np.ones_like(targets, dtype=np.float32)
    if settings.solver == "ridge":
        return _train_ridge(config, features, targets, mask)
    torch.manual_seed(settings.seed)
    generator = torch.Generator().manual_seed(settings.seed)
    module = build_module(config)
    final = module if config.hidden_size == 0 else module[-1]
    with torch.no_grad():  # start at the mean label, so early epochs are not wasted on the bias
        counts = mask.sum(axis=0)
        means = (targets * mask).sum(axis=0) / np.maximum(counts, 1)
        final.bias.copy_(torch.from_numpy(means.astype(np.float32)))
    optimizer = torch.optim.AdamW(
        module.parameters(), lr=settings.learning_rate, weight_decay=settings.weight_decay
    )
    x, y, m = (
        torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32))
        for a in (features, targets, mask)
    )
    history: list[float] = []
    for epoch in range(settings.epochs):
        module.train()
        order = torch.randperm(len(x), generator=generator)
        total = weight = 0.0
        for start in range(0, len(order), settings.batch_size):
            index = order[start : start + settings.batch_size]
            batch_mask = m[index]
            squared = (module(x[index]) - y[index]) ** 2 * batch_mask
            count = batch_mask.sum()
            if float(count) == 0:
                continue
            loss = squared.sum() / count
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * float(count)
            weight += float(count)
        history.append(total / max(weight, 1.0))
        if on_epoch is not None:
            on_epoch(epoch, history[-1])
    module.eval()
    trained = config.model_copy(update={"loss_history": [round(v, 6) for v in history]})
    return RegressionHead(config=trained, module=module)


def _train_ridge(
    config: HeadConfig, features: Matrix, targets: Matrix, mask: Matrix
) -> RegressionHead:
    """Closed-form ridge per target on standardised features, folded into one linear layer."""
    torch = import_optional("torch")
    if config.hidden_size != 0:
        raise UserError("the ridge solver fits a linear head: use hidden_size 0")
    x = features.astype(np.float64)
    centre, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
    z = (x - centre) / scale
    penalty = config.training.ridge_penalty * np.eye(z.shape[1])
    weights = np.zeros((z.shape[1], targets.shape[1]))
    intercepts = np.zeros(targets.shape[1])
    for column in range(targets.shape[1]):
        rows = mask[:, column] > 0
        if not rows.any():
            continue
        zr, y = z[rows], targets[rows, column].astype(np.float64)
        z_mean, y_mean = zr.mean(axis=0), y.mean()
        centred = zr - z_mean
        weights[:, column] = np.linalg.solve(
            centred.T @ centred + penalty, centred.T @ (y - y_mean)
        )
        intercepts[column] = y_mean - z_mean @ weights[:, column]
    module = build_module(config)
    with torch.no_grad():
        module.weight.copy_(torch.from_numpy((weights / scale[:, None]).T.astype(np.float32)))
        module.bias.copy_(
            torch.from_numpy((intercepts - (centre / scale) @ weights).astype(np.float32))
        )
    module.eval()
    head = RegressionHead(config=config, module=module)
    error = ((head.predict(features) - targets) ** 2 * mask).sum() / max(float(mask.sum()), 1.0)
    return RegressionHead(
        config=config.model_copy(update={"loss_history": [round(float(error), 6)]}), module=module
    )
