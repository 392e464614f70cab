"""Evaluate a trained probe on held-out scenarios: the layer sweep and its baselines.

Per layer: test AUROC, accuracy at the training threshold, paired accuracy; random-direction
AUROCs; a label-permutation p-value; keyword ablation (the training direction on ablated test
texts, and a direction refitted on ablated training texts); the mean AUROC of
leave-one-scenario-out over all pairs. Then LOSO with the layer chosen inside each fold, the
correlation of projections with empathy scores, and the agreement of probes across models.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from empathybench.errors import UserError
from empathybench.probes.correlation import Scorer, correlate, within_group
from empathybench.probes.pairs import PairSet, scenario_folds, split_by_scenario
from empathybench.probes.probe import (
    auroc,
    evaluate,
    fit_mean_difference,
    permutation_p_value,
    random_direction_aurocs,
    rank_layers_by_scenario_cv,
)
from empathybench.probes.results import (
    Agreement,
    LayerEvaluation,
    LosoFold,
    ProbeEvaluation,
    RandomBaseline,
)
from empathybench.probes.training import PairActivations, TrainedProbe, split_rows

Array = np.ndarray[Any, np.dtype[Any]]


@dataclass(frozen=True)
class EvaluationSettings:
    random_directions: int = 200
    permutations: int = 1000
    seed: int = 0


def _activations(trained: TrainedProbe, pairs: PairSet) -> PairActivations:
    if trained.activations is None:
        raise UserError("this probe has no stored activations: re-run probe train")
    if trained.record.pairs_sha256 != pairs.sha256:
        raise UserError("the probe was trained on a different pair file than the one given")
    return trained.activations


def _layer_row(
    acts: PairActivations,
    slot: int,
    layer: int,
    rows: tuple[list[int], list[int]],
    folds: list[tuple[list[int], list[int], str]],
    settings: EvaluationSettings,
) -> LayerEvaluation:
    train, test = rows
    e, n = acts.empathic[:, slot], acts.non_empathic[:, slot]
    ae, an = acts.ablated_empathic[:, slot], acts.ablated_non_empathic[:, slot]
    fit = fit_mean_difference(e[train], n[train])
    metrics = evaluate(fit, e[test], n[test])
    seed = settings.seed * 1000 + layer
    randoms = random_direction_aurocs(
        (e[train], n[train]), (e[test], n[test]), settings.random_directions, seed
    )
    p_value = permutation_p_value(
        (e[train], n[train]), (e[test], n[test]), metrics.auroc, settings.permutations, seed
    )
    refit = fit_mean_difference(ae[train], an[train])
    loso = [evaluate(fit_mean_difference(e[tr], n[tr]), e[te], n[te]).auroc for tr, te, _ in folds]
    return LayerEvaluation(
        layer=layer,
        auroc=metrics.auroc,
        accuracy=metrics.accuracy,
        paired_accuracy=metrics.paired_accuracy,
        random=RandomBaseline(
            count=len(randoms),
            mean=float(randoms.mean()),
            p95=float(np.quantile(randoms, 0.95)),
            max=float(randoms.max()),
        ),
        permutation_p=p_value,
        ablated_auroc=evaluate(fit, ae[test], an[test]).auroc,
        ablated_retrained_auroc=evaluate(refit, ae[test], an[test]).auroc,
        loso_auroc=float(np.mean(loso)),
    )


def _loso(acts: PairActivations, scenarios: list[str], layers: list[int]) -> list[LosoFold]:
    """Per held-out scenario: layer chosen by CV inside the other scenarios, then tested."""
    result = []
    for train, test, name in scenario_folds(scenarios):
        e, n = acts.empathic, acts.non_empathic
        slot = rank_layers_by_scenario_cv(e[train], n[train], [scenarios[i] for i in train])[0][0]
        fit = fit_mean_difference(e[train, slot], n[train, slot])
        metrics = evaluate(fit, e[test, slot], n[test, slot])
        result.append(
            LosoFold(
                scenario=name,
                n_pairs=len(test),
                selected_layer=layers[slot],
                auroc=metrics.auroc,
                accuracy=metrics.accuracy,
                paired_accuracy=metrics.paired_accuracy,
            )
        )
    return result


def held_out_projections(trained: TrainedProbe, pairs: PairSet, layer: int) -> tuple[Array, Array]:
    """Projections of every test completion (empathic side first) and their labels (1/0)."""
    acts = _activations(trained, pairs)
    _, test = split_rows(pairs, split_by_scenario(pairs, trained.record.test_scenarios))
    slot, direction = trained.index(layer), trained.direction(layer)
    points = np.concatenate([acts.empathic[test, slot], acts.non_empathic[test, slot]])
    return points @ direction, np.r_[np.ones(len(test)), np.zeros(len(test))]


def held_out_texts(trained: TrainedProbe, pairs: PairSet) -> list[tuple[str, str]]:
    """``(text id, completion)`` of the test completions, in ``held_out_projections`` order."""
    split = split_by_scenario(pairs, trained.record.test_scenarios)
    return [(p.text_id("empathic"), p.empathic) for p in split.test] + [
        (p.text_id("non_empathic"), p.non_empathic) for p in split.test
    ]


def cross_model_agreement(probes: Sequence[TrainedProbe], pairs: PairSet) -> list[Agreement]:
    """Correlate the projections of the same test texts by every two probes (their selected
    layers), over all texts and within each class."""
    views = []
    for probe in probes:
        layer = probe.record.selected_layer
        projections, labels = held_out_projections(probe, pairs, layer)
        views.append((probe.record.model, layer, projections, labels))
    agreements = []
    for i in range(len(views)):
        for j in range(i + 1, len(views)):
            (model_a, layer_a, a, labels), (model_b, layer_b, b, _) = views[i], views[j]
            agreements.append(
                Agreement(
                    models=(model_a, model_b),
                    layers=(layer_a, layer_b),
                    all_texts=correlate(a, b),
                    within_class=correlate(within_group(a, labels), within_group(b, labels)),
                )
            )
    return agreements


def evaluate_probe(
    trained: TrainedProbe,
    pairs: PairSet,
    *,
    settings: EvaluationSettings | None = None,
    scores: dict[str, float] | None = None,
    scorer: Scorer | None = None,
    scores_source: str | None = None,
    others: Sequence[TrainedProbe] = (),
) -> ProbeEvaluation:
    """The full evaluation of ``trained`` on its held-out scenarios (see the module doc)."""
    started = time.perf_counter()
    settings = settings or EvaluationSettings()
    acts = _activations(trained, pairs)
    record = trained.record
    split = split_by_scenario(pairs, record.test_scenarios)
    rows = split_rows(pairs, split)
    scenarios = [p.scenario for p in pairs.pairs]
    folds = scenario_folds(scenarios)
    layers = [row.layer for row in record.layers]
    table = [
        _layer_row(acts, slot, layer, rows, folds, settings) for slot, layer in enumerate(layers)
    ]
    sweep_s = time.perf_counter() - started
    loso = _loso(acts, scenarios, layers)
    test = rows[1]
    lengths = np.concatenate([acts.empathic_tokens[test], acts.non_empathic_tokens[test]])
    labels = np.r_[np.ones(len(test)), np.zeros(len(test))]
    evaluation = ProbeEvaluation(
        model=record.model,
        pairs=pairs.name,
        pairs_sha256=pairs.sha256,
        test_scenarios=record.test_scenarios,
        n_test_pairs=len(test),
        selected_layer=record.selected_layer,
        best_test_layer=max(table, key=lambda r: (r.auroc, r.paired_accuracy, -r.layer)).layer,
        layers=table,
        length_baseline_auroc=auroc(lengths.astype(np.float64), labels),
        loso=loso,
        loso_mean_auroc=float(np.mean([f.auroc for f in loso])),
        loso_mean_accuracy=float(np.mean([f.accuracy for f in loso])),
        correlation_source=None,
        cross_model=cross_model_agreement([trained, *others], pairs) if others else [],
        settings={
            "random_directions": settings.random_directions,
            "permutations": settings.permutations,
            "seed": settings.seed,
        },
    )
    if scores is not None or scorer is not None:
        evaluation = _with_correlation(evaluation, trained, pairs, scores, scorer, scores_source)
    seconds = {"sweep": round(sweep_s, 2), "total": round(time.perf_counter() - started, 2)}
    return evaluation.model_copy(update={"seconds": seconds})


def _with_correlation(
    evaluation: ProbeEvaluation,
    trained: TrainedProbe,
    pairs: PairSet,
    scores: dict[str, float] | None,
    scorer: Scorer | None,
    source: str | None,
) -> ProbeEvaluation:
    texts = held_out_texts(trained, pairs)
    if scores is not None:
        values = [scores.get(text_id, float("nan")) for text_id, _ in texts]
        if all(np.isnan(values)):
            raise UserError(
                "no test text id found in the scores file (ids look like PAIR:empathic)"
            )
    else:
        assert scorer is not None
        values = list(scorer([text for _, text in texts]))
    projections, labels = held_out_projections(trained, pairs, trained.record.selected_layer)
    return evaluation.model_copy(
        update={
            "correlation_source": source,
            "correlation": correlate(projections, values),
            "correlation_within_class": correlate(
                within_group(projections, labels), within_group(values, labels)
            ),
        }
    )
