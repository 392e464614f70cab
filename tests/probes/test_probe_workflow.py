"""Train, save, load, evaluate and steer end to end on a tiny model, with an injected scorer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from empathybench.errors import UserError
from empathybench.probes.evaluation import EvaluationSettings, evaluate_probe
from empathybench.probes.loading import LoadedModel
from empathybench.probes.pairs import PairSet, load_pairs
from empathybench.probes.results import SteeringResult, SteeringSample
from empathybench.probes.sweep import SweepSettings, held_out_prompts, run_sweep, summarise
from empathybench.probes.training import TrainedProbe, load_probe, save_probe, train_probe

pytestmark = pytest.mark.torch


def kind_words(texts: list[str]) -> list[float]:
    """A deterministic stand-in scorer: 1 + share of characters that are vowels, times 2."""
    return [1.0 + 2.0 * sum(c in "aeiou" for c in t) / max(1, len(t)) for t in texts]


@pytest.fixture(scope="module")
def small_pairs(tmp_path_factory: pytest.TempPathFactory) -> PairSet:
    """Two pairs of each bundled scenario (keeps the tiny-model passes short)."""
    seen: dict[str, int] = {}
    kept = []
    for pair in load_pairs().pairs:
        seen[pair.scenario] = seen.get(pair.scenario, 0) + 1
        if seen[pair.scenario] <= 2:
            kept.append(pair.model_dump_json())
    path = tmp_path_factory.mktemp("pairs") / "small.jsonl"
    path.write_text("\n".join(kept) + "\n")
    return load_pairs(path)


@pytest.fixture(scope="module")
def trained(
    model_factory: Callable[..., LoadedModel], small_pairs: PairSet
) -> tuple[LoadedModel, TrainedProbe]:
    loaded = model_factory("llama", layers=3)
    return loaded, train_probe(loaded, small_pairs, batch_size=32)


def test_train_save_load_and_evaluate(
    trained: tuple[LoadedModel, TrainedProbe], small_pairs: PairSet, tmp_path: Path
) -> None:
    _, probe = trained
    record = probe.record
    assert [row.layer for row in record.layers] == [0, 1, 2]
    assert record.selected_layer in (0, 1, 2) and record.n_test_pairs == 6
    assert np.linalg.norm(probe.directions, axis=1) == pytest.approx(np.ones(3), abs=1e-5)
    save_probe(tmp_path, probe)
    loaded_back = load_probe(tmp_path)
    assert loaded_back.record == record
    assert loaded_back.activations is not None
    pairs = small_pairs
    evaluation = evaluate_probe(
        loaded_back,
        pairs,
        settings=EvaluationSettings(random_directions=20, permutations=50),
        scorer=kind_words,
        scores_source="vowels",
        others=[probe],
    )
    assert len(evaluation.layers) == 3 and len(evaluation.loso) == len(pairs.scenarios)
    assert all(0 <= row.auroc <= 1 and 0 < row.permutation_p <= 1 for row in evaluation.layers)
    assert evaluation.correlation is not None and evaluation.correlation.n == 12
    [agreement] = evaluation.cross_model  # the same probe twice agrees perfectly
    assert agreement.all_texts.pearson == pytest.approx(1.0)


def test_eval_rejects_a_probe_of_other_pairs(trained: tuple[LoadedModel, TrainedProbe]) -> None:
    _, probe = trained
    changed = TrainedProbe(
        record=probe.record.model_copy(update={"pairs_sha256": "0" * 64}),
        directions=probe.directions,
        activations=probe.activations,
    )
    with pytest.raises(UserError, match="different pair file"):
        evaluate_probe(changed, load_pairs())


def test_steering_sweep_scores_checks_and_summarises(
    trained: tuple[LoadedModel, TrainedProbe], small_pairs: PairSet
) -> None:
    loaded, probe = trained
    prompts = held_out_prompts(small_pairs, probe.record.test_scenarios, 2)
    assert len({p.scenario for p in prompts}) == 2
    settings = SweepSettings(layers=(1,), alphas=(-5.0, 0.0, 5.0), seeds=(0, 1), max_new_tokens=6)
    result = run_sweep(loaded, probe, prompts, settings, scorer=kind_words, scorer_name="vowels")
    assert len(result.samples) == 3 * 2 * 2
    assert all(s.n_tokens <= 6 for s in result.samples)
    assert all((s.score is None) == s.empty for s in result.samples)
    assert [row.alpha for row in result.summary] == [-5.0, 0.0, 5.0]
    assert result.layers[0].sigma == probe.record.layer(1).sigma
    zero = next(row for row in result.summary if row.alpha == 0)
    assert zero.success_rate is None and zero.median_perplexity is not None


def _sample(alpha: float, seed: int, score: float | None, empty: bool = False) -> SteeringSample:
    return SteeringSample(
        id=f"a{alpha}s{seed}", layer=3, alpha=alpha, prompt_id="p", seed=seed, text="x",
        n_tokens=1, empty=empty, distinct_1=None, distinct_2=None, repetition=0.0,
        perplexity=2.0, projection=0.0, coherent=not empty, score=score,
    )  # fmt: skip


def test_success_means_the_score_moves_with_the_sign_of_alpha() -> None:
    samples = [
        _sample(0, 0, 2.0), _sample(0, 1, 2.0),
        _sample(5, 0, 2.5), _sample(5, 1, 1.5),   # one up (success), one down
        _sample(-5, 0, 1.0), _sample(-5, 1, None, empty=True),  # down; empty is unscored
    ]  # fmt: skip
    result = SteeringResult(
        model="m", probe="p", prompt_format="plain", prompts={}, settings={}, scorer="s",
        layers=[], summary=[], samples=samples,
    )  # fmt: skip
    summary = summarise(result, {3: 1.5})
    by_alpha = {row.alpha: row for row in summary.summary}
    assert by_alpha[5].success_rate == 0.5 and by_alpha[5].success_n == 2
    assert by_alpha[-5].success_rate == 1.0 and by_alpha[-5].success_n == 1
    assert by_alpha[-5].empty_rate == 0.5 and by_alpha[-5].scored == 1
    [layer] = summary.layers
    assert layer.success_rate == pytest.approx(2 / 3)
    assert layer.success_rate_positive == 0.5 and layer.success_rate_negative == 1.0
