"""Regression heads: training lowers the loss, masks are honoured, save/load is exact."""

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from empathybench.errors import UserError
from empathybench.scorer.heads import (
    HeadConfig,
    TrainingSettings,
    load_head,
    train_head,
)


def _config(inputs: int, targets: int, **training: object) -> HeadConfig:
    return HeadConfig(
        task="empathy",
        encoder="synthetic",
        encoder_dimension=inputs,
        features="response",
        targets=[f"t{i}" for i in range(targets)],
        target_low=1.0,
        target_high=3.0,
        hidden_size=32,
        input_dimension=inputs,
        training=TrainingSettings(**training),  # type: ignore[arg-type]
    )


def _data(n: int = 200, inputs: int = 16, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, inputs)).astype(np.float32)
    weights = rng.normal(size=(inputs, 2)).astype(np.float32) * 0.3
    y = np.clip(2.0 + x @ weights, 1.0, 3.0).astype(np.float32)
    return x, y


def test_training_lowers_the_loss_and_beats_the_mean() -> None:
    x, y = _data()
    head = train_head(_config(16, 2, epochs=40, learning_rate=3e-3), x, y)
    history = head.config.loss_history
    assert len(history) == 40 and history[-1] < history[0] * 0.5
    mean_mse = float(((y - y.mean(axis=0)) ** 2).mean())
    assert float(((head.predict(x) - y) ** 2).mean()) < mean_mse * 0.5


def test_same_seed_same_head_and_predictions_stay_in_range() -> None:
    x, y = _data()
    first = train_head(_config(16, 2, epochs=3, seed=5), x, y).predict(x)
    second = train_head(_config(16, 2, epochs=3, seed=5), x, y).predict(x)
    np.testing.assert_array_equal(first, second)
    wild = train_head(_config(16, 2, epochs=3), x * 100, y).predict(x * 100)
    assert wild.min() >= 1.0 and wild.max() <= 3.0


def test_masked_targets_do_not_pull_the_head() -> None:
    x, y = _data()
    poisoned = y.copy()
    poisoned[:, 1] = 3.0
    mask = np.ones_like(y)
    mask[:, 1] = 0.0
    mask[:20, 1] = 1.0  # only these rows carry the second target
    poisoned[:20, 1] = 1.0
    head = train_head(_config(16, 2, epochs=20, learning_rate=3e-3), x, poisoned, mask)
    assert float(head.predict(x)[:, 1].mean()) < 1.5  # learnt from the 20 real labels only


def test_save_and_load_give_identical_predictions(tmp_path: Path) -> None:
    x, y = _data()
    head = train_head(_config(16, 2, epochs=2), x, y)
    head.save(tmp_path / "head")
    loaded = load_head(tmp_path / "head")
    assert loaded.config == head.config
    np.testing.assert_array_equal(loaded.predict(x), head.predict(x))


def test_a_linear_head_is_the_seeds_single_layer(tmp_path: Path) -> None:
    x, y = _data()
    config = _config(16, 2, epochs=2).model_copy(update={"hidden_size": 0})
    head = train_head(config, x, y)
    assert sum(p.numel() for p in head.module.parameters()) == 16 * 2 + 2
    head.save(tmp_path / "linear")
    np.testing.assert_array_equal(load_head(tmp_path / "linear").predict(x), head.predict(x))


def test_loading_a_missing_or_broken_head_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="not a scorer head"):
        load_head(tmp_path)
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "head.safetensors").write_bytes(b"")
    with pytest.raises(UserError, match=r"config.json: invalid HeadConfig"):
        load_head(tmp_path)


def test_a_head_naming_a_reply_signal_this_version_lacks_is_one_clear_error(
    tmp_path: Path,
) -> None:
    import json
    import shutil

    from empathybench.scorer.empathy_data import bundled_data_path

    shutil.copytree(bundled_data_path("heads/empathy-v3"), tmp_path / "head")
    config_path = tmp_path / "head" / "config.json"
    config = json.loads(config_path.read_text())
    assert config["signals"]
    load_head(tmp_path / "head")
    config["signals"][0] = "future_signal"
    config_path.write_text(json.dumps(config))
    with pytest.raises(UserError, match="unknown reply signals future_signal"):
        load_head(tmp_path / "head")


def test_the_ridge_solver_fits_a_linear_head_in_closed_form(tmp_path: Path) -> None:
    x, y = _data()
    config = _config(16, 2, solver="ridge", ridge_penalty=1.0).model_copy(update={"hidden_size": 0})
    head = train_head(config, x, y)
    fitted = head.predict(x)
    # Nearly the least-squares fit: far below the mean predictor's error.
    baseline = float(((y - y.mean(axis=0)) ** 2).mean())
    assert float(((fitted - y) ** 2).mean()) < 0.1 * baseline
    assert len(head.config.loss_history) == 1
    # A target masked out on half the rows is fitted on the other half only.
    mask = np.ones_like(y)
    mask[:100, 1] = 0
    shifted = y.copy()
    shifted[:100, 1] = 3.0  # would pull the fit up if it were used
    masked = train_head(config, x, shifted, mask).predict(x)
    assert np.allclose(
        masked[100:, 1], train_head(config, x[100:], y[100:]).predict(x[100:])[:, 1], atol=0.05
    )
    # A heavy penalty shrinks towards the mean label.
    flat = train_head(
        config.model_copy(update={"training": TrainingSettings(solver="ridge", ridge_penalty=1e9)}),
        x,
        y,
    )
    assert np.allclose(flat.predict(x), y.mean(axis=0), atol=1e-3)
    head.save(tmp_path / "ridge")
    assert np.allclose(load_head(tmp_path / "ridge").predict(x), fitted)
    with pytest.raises(UserError, match="linear head"):
        train_head(_config(16, 2, solver="ridge"), x, y)
