"""``eb.score_text``, ``eb.train_scorer``, ``eb.evaluate_scorer`` and ``eb.scorer_robustness``:
bad parameters are refused by name before any encoding or training, and the command line
shows the same refusal with its flags."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import empathybench as eb
from empathybench.cli import main


@pytest.mark.parametrize(
    ("call", "parameters"),
    [
        (lambda out: eb.train_scorer(out, epochs=0), ("epochs",)),
        (lambda out: eb.train_scorer(out, learning_rate=2.0), ("learning_rate",)),
        (lambda out: eb.train_scorer(out, solver="ridge"), ("solver", "hidden_size")),
        (lambda out: eb.train_scorer(out, judge="mock/j"), ("judge", "task")),
        (lambda out: eb.train_scorer(out, task="judge", judge="mock/j"), ("judge", "from_run")),
        (lambda out: eb.train_scorer(out, task="judge", augment=True), ("augment",)),
        (lambda out: eb.train_scorer(out, from_run=out.parent), ("from_run", "judge")),
        (lambda out: eb.evaluate_scorer(resamples=10), ("resamples",)),
        (lambda out: eb.scorer_robustness(seed=-1), ("seed",)),
    ],
)
def test_bad_parameters_are_named(
    call: Callable[[Path], object], parameters: tuple[str, ...], tmp_path: Path
) -> None:
    with pytest.raises(eb.ParameterError) as caught:
        call(tmp_path / "head")
    assert caught.value.parameters == parameters
    assert "--" not in str(caught.value)
    assert not (tmp_path / "head").exists()


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--judge", "mock/j"], "error: --judge is for judge heads: use --task judge"),
        (["--task", "judge", "--judge", "x"], "error: --judge is only used with --from-run"),
        (["--solver", "ridge"], "error: --solver ridge fits a linear head: add --hidden-size 0"),
        (["--task", "judge", "--augment"], "error: --augment applies to the empathy scorer only"),
        (["--lr", "0"], "error: --lr: must be greater than 0, got 0"),
    ],
)
def test_the_command_line_shows_the_parameters_as_its_flags(
    args: list[str], line: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["scorer", "train", "-o", str(tmp_path / "head"), *args])
    assert stop.value.code == 2
    assert capsys.readouterr().err.strip() == line


def test_empty_text_is_refused() -> None:
    with pytest.raises(eb.UserError, match="nothing to score"):
        eb.score_text("   ")


@pytest.mark.torch
def test_score_text_and_robustness_are_typed(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    scores = eb.score_text("That sounds exhausting. Do you want to talk it through?")
    assert isinstance(scores, eb.EmpathyScores)
    parts = (scores.cognitive, scores.emotional, scores.behavioral)
    assert all(1.0 <= value <= 3.0 for value in parts)
    assert scores.empathy == pytest.approx(sum(parts) / 3, abs=1e-6)


def test_evaluate_takes_several_batches() -> None:
    """``batch="w3,w4"`` keeps the test rows of either batch (and only those)."""
    from empathybench.scorer.empathy_data import load_empathy_labels

    test = load_empathy_labels().part("test")
    both = eb.evaluate_scorer(batch="w3,w4", resamples=100).agreement
    one = eb.evaluate_scorer(batch="w3", resamples=100).agreement
    assert both is not None and one is not None
    assert one.n == sum(r.batch == "w3" for r in test) > 100
    assert both.n == sum(r.batch in ("w3", "w4") for r in test) > one.n


def test_training_never_writes_into_a_folder_that_holds_something_else(tmp_path: Path) -> None:
    """Found by a bad-input sweep: ``scorer train -o`` replaced another folder's config.json."""
    folder = tmp_path / "a-model"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "llama"}', encoding="utf-8")
    with pytest.raises(eb.UserError, match="holds no scorer head"):
        eb.train_scorer(folder, epochs=1)
    assert (folder / "config.json").read_text(encoding="utf-8") == '{"model_type": "llama"}'
    assert sorted(p.name for p in folder.iterdir()) == ["config.json"]


@pytest.mark.parametrize(
    "call",
    [
        lambda out: eb.train_scorer(out, features="bogus"),
        lambda out: eb.train_scorer(out, calibration="bogus"),
        lambda out: eb.evaluate_scorer(task="bogus"),  # type: ignore[arg-type]
    ],
)
def test_unknown_settings_are_refused_whatever_the_task(
    call: Callable[[Path], object], tmp_path: Path
) -> None:
    """Found by a bad-input sweep: with the empathy task these were silently ignored."""
    with pytest.raises(eb.UserError, match="unknown"):
        call(tmp_path / "head")
    assert not (tmp_path / "head").exists()
