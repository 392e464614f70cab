"""The steering sweep: alphas x prompts x seeds at one or more layers, scored and checked.

Every row is generated with ``alpha * sigma * u`` added at its layer (all alphas of a layer
share batches: the coefficient is per row). Each completion is then re-read by the unsteered
model, giving its perplexity and its projection on the probe in sigma units from the training
threshold. Success for ``alpha != 0``: the empathy score of a (prompt, seed) moved from its
``alpha = 0`` score in the sign of alpha. An empty completion is never scored (it is counted,
and incoherent).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from empathybench.analysis.statistics import bootstrap_mean
from empathybench.errors import UserError
from empathybench.probes.activations import Example, encode_prompt, read_examples
from empathybench.probes.coherence import (
    PERPLEXITY_FACTOR,
    check_text,
    is_coherent,
    perplexity,
)
from empathybench.probes.correlation import Scorer, correlate
from empathybench.probes.loading import LoadedModel
from empathybench.probes.pairs import ContrastivePair, PairSet
from empathybench.probes.results import (
    AlphaSummary,
    LayerSteering,
    SteeringResult,
    SteeringSample,
)
from empathybench.probes.steering import SteeringPlan, generate
from empathybench.probes.training import TrainedProbe

DEFAULT_ALPHAS = (-20.0, -10.0, -5.0, -2.0, 0.0, 2.0, 5.0, 10.0, 20.0)


@dataclass(frozen=True)
class SweepSettings:
    layers: tuple[int, ...]
    alphas: tuple[float, ...] = DEFAULT_ALPHAS
    seeds: tuple[int, ...] = (0, 1, 2)
    max_new_tokens: int = 50
    temperature: float = 0.7
    top_p: float = 0.95
    batch_size: int = 32


def held_out_prompts(pairs: PairSet, scenarios: Sequence[str], count: int) -> list[ContrastivePair]:
    """``count`` pairs from the held-out scenarios, taken round-robin across scenarios."""
    by_scenario = [[p for p in pairs.pairs if p.scenario == s] for s in sorted(scenarios)]
    chosen: list[ContrastivePair] = []
    for depth in range(max((len(g) for g in by_scenario), default=0)):
        chosen += [group[depth] for group in by_scenario if depth < len(group)]
    if not chosen:
        raise UserError("no held-out prompts to steer on")
    return chosen[:count]


def stop_token_ids(loaded: LoadedModel) -> set[int]:
    ids = (
        {int(loaded.tokenizer.eos_token_id)} if loaded.tokenizer.eos_token_id is not None else set()
    )
    configured = getattr(getattr(loaded.model, "generation_config", None), "eos_token_id", None)
    if isinstance(configured, int):
        ids.add(configured)
    elif isinstance(configured, list):
        ids.update(int(i) for i in configured)
    return ids


def run_sweep(
    loaded: LoadedModel,
    trained: TrainedProbe,
    prompts: Sequence[ContrastivePair],
    settings: SweepSettings,
    *,
    scorer: Scorer | None = None,
    scorer_name: str | None = None,
    scorer_note: str | None = None,
    probe_source: str = "",
) -> SteeringResult:
    """Generate, re-read, check and score every (layer, alpha, prompt, seed) row."""
    record = trained.record
    tokenizer, pad_id = loaded.tokenizer, int(loaded.tokenizer.pad_token_id)
    prompt_ids = {p.id: encode_prompt(tokenizer, p.prompt, record.prompt_format) for p in prompts}
    stops = stop_token_ids(loaded)
    samples: list[SteeringSample] = []
    seconds = {"generate": 0.0, "reread": 0.0, "score": 0.0}
    for layer in settings.layers:
        info, direction = record.layer(layer), trained.direction(layer)
        rows = [(a, p.id, s) for a in settings.alphas for p in prompts for s in settings.seeds]
        outputs: list[list[int]] = []
        started = time.perf_counter()
        for i in range(0, len(rows), settings.batch_size):
            chunk = rows[i : i + settings.batch_size]
            outputs += generate(
                loaded.model,
                [prompt_ids[pid] for _, pid, _ in chunk],
                pad_id=pad_id,
                stop_ids=stops,
                max_new_tokens=settings.max_new_tokens,
                seeds=[seed for _, _, seed in chunk],
                temperature=settings.temperature,
                top_p=settings.top_p,
                plan=SteeringPlan(layer, direction, [a * info.sigma for a, _, _ in chunk]),
                layers_path=record.layers_path,
            )
        seconds["generate"] += time.perf_counter() - started
        started = time.perf_counter()
        examples = [
            Example(tuple(prompt_ids[pid]), tuple(out))
            for (_, pid, _), out in zip(rows, outputs, strict=True)
        ]
        readout = read_examples(
            loaded.model,
            examples,
            [layer],
            pad_id=pad_id,
            pooling=record.pooling,
            batch_size=settings.batch_size,
            layers_path=record.layers_path,
            with_nll=True,
        )
        seconds["reread"] += time.perf_counter() - started
        assert readout.nll is not None
        projections = (readout.activations[:, 0] @ direction - info.threshold) / info.sigma
        layer_samples = []
        for k, ((alpha, pid, seed), out) in enumerate(zip(rows, outputs, strict=True)):
            text = tokenizer.decode(out, skip_special_tokens=True)
            checks = check_text(text, out)
            layer_samples.append(
                SteeringSample(
                    id=f"L{layer}:a{alpha:g}:{pid}:s{seed}",
                    layer=layer,
                    alpha=alpha,
                    prompt_id=pid,
                    seed=seed,
                    text=text,
                    n_tokens=len(out),
                    empty=checks.empty,
                    distinct_1=checks.distinct_1,
                    distinct_2=checks.distinct_2,
                    repetition=checks.repetition,
                    perplexity=perplexity(float(readout.nll[k])),
                    projection=None
                    if checks.empty or not math.isfinite(projections[k])
                    else float(projections[k]),
                    coherent=False,
                )
            )
        samples += _mark_coherence(layer_samples)
    started = time.perf_counter()
    if scorer is not None:
        samples = score_samples(samples, scorer)
    seconds["score"] = time.perf_counter() - started
    result = SteeringResult(
        model=record.model,
        probe=probe_source,
        prompt_format=record.prompt_format,
        prompts={p.id: p.prompt for p in prompts},
        settings={
            "alphas": ",".join(f"{a:g}" for a in settings.alphas),
            "seeds": ",".join(str(s) for s in settings.seeds),
            "max_new_tokens": settings.max_new_tokens,
            "temperature": settings.temperature,
            "top_p": settings.top_p,
            "steered_positions": "generated tokens only (the prompt is not steered)",
            "sigma_unit": "std of training projections on the probe direction at the layer",
        },
        scorer=scorer_name if scorer is not None else None,
        scorer_note=scorer_note,
        layers=[],
        summary=[],
        samples=samples,
        seconds={k: round(v, 2) for k, v in seconds.items()},
    )
    return summarise(result, {layer: record.layer(layer).sigma for layer in settings.layers})


def _mark_coherence(samples: list[SteeringSample]) -> list[SteeringSample]:
    """Coherence needs the layer's alpha = 0 median perplexity, so it is marked per layer."""
    baseline = [s.perplexity for s in samples if s.alpha == 0 and s.perplexity is not None]
    limit = PERPLEXITY_FACTOR * float(np.median(baseline)) if baseline else math.inf
    return [
        s.model_copy(update={"coherent": is_coherent(s.empty, s.repetition, s.perplexity, limit)})
        for s in samples
    ]


def score_samples(samples: list[SteeringSample], scorer: Scorer) -> list[SteeringSample]:
    """Scores for the non-empty samples; empty ones stay unscored."""
    todo = [i for i, s in enumerate(samples) if not s.empty]
    values = scorer([samples[i].text for i in todo]) if todo else []
    if len(values) != len(todo):
        raise UserError(f"the scorer returned {len(values)} scores for {len(todo)} texts")
    updated = list(samples)
    for i, value in zip(todo, values, strict=True):
        updated[i] = samples[i].model_copy(update={"score": float(value)})
    return updated


def apply_scores(samples: list[SteeringSample], scores: dict[str, float]) -> list[SteeringSample]:
    """Scores from a file keyed by sample id (e.g. judge verdicts); others become unscored."""
    return [s.model_copy(update={"score": scores.get(s.id)}) for s in samples]


def summarise(result: SteeringResult, sigmas: dict[int, float]) -> SteeringResult:
    """Per (layer, alpha) summaries and per-layer success, from the samples alone."""
    summary, layers = [], []
    for layer in sorted({s.layer for s in result.samples}):
        mine = [s for s in result.samples if s.layer == layer]
        zero = {(s.prompt_id, s.seed): s.score for s in mine if s.alpha == 0}
        baseline = [s.perplexity for s in mine if s.alpha == 0 and s.perplexity is not None]
        outcomes: dict[float, list[bool]] = {}
        for alpha in sorted({s.alpha for s in mine}):
            rows = [s for s in mine if s.alpha == alpha]
            scored = [s for s in rows if s.score is not None]
            wins = []
            for s in scored if alpha != 0 else []:
                base = zero.get((s.prompt_id, s.seed))
                if base is not None and s.score is not None:
                    wins.append((s.score - base) * alpha > 0)
            outcomes[alpha] = wins
            estimate = bootstrap_mean(
                [s.score for s in scored if s.score is not None],
                clusters=[s.prompt_id for s in scored],
            )
            projections = [s.projection for s in rows if s.projection is not None]
            perplexities = [s.perplexity for s in rows if s.perplexity is not None]
            distinct = [s.distinct_2 for s in rows if s.distinct_2 is not None]
            summary.append(
                AlphaSummary(
                    layer=layer,
                    alpha=alpha,
                    n=len(rows),
                    scored=len(scored),
                    mean_score=estimate.mean,
                    score_ci=None
                    if estimate.low is None or estimate.high is None
                    else (estimate.low, estimate.high),
                    success_rate=float(np.mean(wins)) if wins else None,
                    success_n=len(wins),
                    mean_projection=float(np.mean(projections)) if projections else None,
                    empty_rate=float(np.mean([s.empty for s in rows])),
                    coherent_rate=float(np.mean([s.coherent for s in rows])),
                    median_perplexity=float(np.median(perplexities)) if perplexities else None,
                    mean_distinct_2=float(np.mean(distinct)) if distinct else None,
                    mean_repetition=float(np.mean([s.repetition for s in rows])),
                )
            )
        layers.append(_layer_success(layer, sigmas.get(layer, math.nan), mine, outcomes, baseline))
    return result.model_copy(update={"summary": summary, "layers": layers})


def _rate(values: list[bool]) -> float | None:
    return float(np.mean(values)) if values else None


def _layer_success(
    layer: int,
    sigma: float,
    samples: list[SteeringSample],
    outcomes: dict[float, list[bool]],
    baseline: list[float],
) -> LayerSteering:
    scored = [s for s in samples if s.score is not None]
    return LayerSteering(
        layer=layer,
        sigma=sigma,
        perplexity_limit=PERPLEXITY_FACTOR * float(np.median(baseline)) if baseline else None,
        success_rate=_rate([w for a, ws in outcomes.items() if a != 0 for w in ws]),
        success_rate_positive=_rate([w for a, ws in outcomes.items() if a > 0 for w in ws]),
        success_rate_negative=_rate([w for a, ws in outcomes.items() if a < 0 for w in ws]),
        alpha_score_spearman=correlate([s.alpha for s in scored], [s.score or 0.0 for s in scored])
        if scored
        else None,
    )
