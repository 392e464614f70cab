"""Linear empathy probes from Python: train one per model, evaluate it against baselines, and
steer generation along it (``empathybench probe train | eval | steer`` call these).

Every function checks its parameters before a model is loaded, writes what it made (the probe
directory, ``eval.json`` and ``layer_sweep.png``, ``steer.json`` and ``dose_response.png``) and
returns it typed. Long steps (loading a model, reading activations, generating) are reported
through ``progress`` as a task that starts (``completed=0``) and ends (``completed=total``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from empathybench.api.paths import PathArg, optional_path
from empathybench.errors import ParameterError, UserError
from empathybench.jsonl import atomic_write_text
from empathybench.progress import ProgressCallback, ProgressUpdate, report_progress

if TYPE_CHECKING:
    from empathybench.probes.correlation import Scorer
    from empathybench.probes.loading import LoadedModel
    from empathybench.probes.results import ProbeEvaluation, SteeringResult
    from empathybench.probes.training import TrainedProbe

DType = Literal["float32", "bfloat16", "float16"]
Pooling = Literal["mean", "last"]
PromptFormat = Literal["auto", "chat", "plain"]
ScorerChoice = Literal["default", "none"]

MAX_THREADS = 1024
DEFAULT_STEERING_ALPHAS = (-20.0, -10.0, -5.0, -2.0, 0.0, 2.0, 5.0, 10.0, 20.0)
OFFLINE_SCORER_NAME = "offline empathy scorer"


@dataclass(frozen=True)
class ProbeTraining:
    """A probe trained by ``train_probe`` and the directory it was saved in."""

    probe: TrainedProbe
    directory: Path


@dataclass(frozen=True)
class EvaluatedProbe:
    """One probe's held-out evaluation and the files written for it."""

    evaluation: ProbeEvaluation
    directory: Path
    evaluation_file: Path
    plot_file: Path


@dataclass(frozen=True)
class ProbeEvaluations:
    """What ``evaluate_probes`` did: the probes it trained first, then one evaluation each."""

    trained: list[ProbeTraining]
    evaluations: list[EvaluatedProbe]
    scorer_warning: str | None
    """Why the default scorer could not be used (the evaluation then has no correlation)."""


@dataclass(frozen=True)
class Steering:
    """A steering sweep (or a re-scored one) and the files written for it."""

    result: SteeringResult
    directory: Path
    steering_file: Path
    plot_file: Path
    trained: ProbeTraining | None = None
    """The probe trained first (``steer`` given a model and no probe)."""
    scorer_warning: str | None = None
    """Why the default scorer could not be used (the samples then have no scores)."""


MAX_BATCH_SIZE = 4096
"""Texts or rows per forward pass: more only risks running out of memory."""
MAX_BASELINE_DRAWS = 1_000_000
"""Random directions, permutations, seeds or prompts: beyond this a run never ends."""
MAX_NEW_TOKENS = 4096
MAX_ALPHA = 1000.0
"""Steering strength in units of the projection's standard deviation."""
MAX_TEMPERATURE = 10.0


def _slug(model_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", model_id).strip("-") or "model"


@contextmanager
def _step(progress: ProgressCallback | None, task: str) -> Iterator[None]:
    """Report ``task`` as started, then (if it did not fail) as finished."""
    report_progress(progress, ProgressUpdate(task, 0, 1))
    yield
    report_progress(progress, ProgressUpdate(task, 1, 1))


def load_model(
    model: str,
    *,
    dtype: DType = "float32",
    threads: int | None = None,
    progress: ProgressCallback | None = None,
) -> LoadedModel:
    """Load ``model`` (``local/smollm2``, ``local/PATH`` or ``hf:PATH``) for probing."""
    from empathybench.probes.loading import load_probe_model, set_threads
    from empathybench.validation import check_count

    if dtype not in ("float32", "bfloat16", "float16"):
        raise ParameterError(
            f"unknown dtype {dtype!r}: use float32, bfloat16 or float16", parameters=["dtype"]
        )
    check_count("threads", threads, maximum=MAX_THREADS)
    set_threads(threads)
    with _step(progress, f"loading {model}"):
        return load_probe_model(model, dtype)


def train_probe(
    model: str,
    output: PathArg | None = None,
    *,
    pairs: str | None = None,
    layers: str | None = None,
    pooling: Pooling = "mean",
    prompt_format: PromptFormat = "auto",
    test_scenarios: Sequence[str] | None = None,
    dtype: DType = "float32",
    batch_size: int = 16,
    layers_path: str | None = None,
    threads: int | None = None,
    loaded: LoadedModel | None = None,
    progress: ProgressCallback | None = None,
) -> ProbeTraining:
    """Fit a mean-difference probe at every layer (``layers``: ``all`` or e.g. ``4,8,12-20``)
    on the training scenarios of ``pairs`` (default: the bundled pairs), and save it in
    ``output`` (default ``runs/probes/MODEL``). ``loaded``: ``model`` already loaded."""
    from empathybench.probes.layers import decoder_layers, parse_layer_selection
    from empathybench.probes.pairs import load_pairs
    from empathybench.probes.training import save_probe
    from empathybench.probes.training import train_probe as fit_probe

    if pooling not in ("mean", "last"):
        raise ParameterError(
            f"unknown pooling {pooling!r}: use mean or last", parameters=["pooling"]
        )
    if prompt_format not in ("auto", "chat", "plain"):
        raise ParameterError(
            f"unknown prompt_format {prompt_format!r}: use auto, chat or plain",
            parameters=["prompt_format"],
        )
    from empathybench.validation import check_count

    check_count("batch_size", batch_size, maximum=MAX_BATCH_SIZE)
    pair_set = load_pairs(pairs)
    loaded = loaded or load_model(model, dtype=dtype, threads=threads, progress=progress)
    count = len(decoder_layers(loaded.model, layers_path))
    with _step(progress, f"reading activations of {4 * len(pair_set.pairs)} texts"):
        trained = fit_probe(
            loaded,
            pair_set,
            layers=parse_layer_selection(layers, count),
            pooling=pooling,
            prompt_format=prompt_format,
            test_scenarios=test_scenarios,
            batch_size=batch_size,
            layers_path=layers_path,
            dtype=dtype,
        )
    directory = optional_path(output) or Path("runs") / "probes" / _slug(model)
    save_probe(directory, trained)
    return ProbeTraining(trained, directory)


def _load_scorer(name: str) -> tuple[Scorer | None, str | None, str | None]:
    """The scoring callable, why there is none (a note), and a warning when ``default`` was
    asked for but could not be loaded."""
    from empathybench.probes.correlation import default_scorer

    if name == "none":
        return None, 'scoring turned off (scorer="none")', None
    if name != "default":
        raise ParameterError(f"unknown scorer {name!r}: use default or none", parameters=["scorer"])
    try:
        return default_scorer(), None, None
    except UserError as error:
        return None, str(error), str(error)


def evaluate_probes(
    probes: Sequence[PathArg] = (),
    models: Sequence[str] = (),
    output: PathArg | None = None,
    *,
    scores: PathArg | None = None,
    scorer: ScorerChoice = "default",
    random_directions: int = 200,
    permutations: int = 1000,
    seed: int = 0,
    threads: int | None = None,
    progress: ProgressCallback | None = None,
) -> ProbeEvaluations:
    """Layer sweep on held-out scenarios with random-direction and permutation baselines,
    keyword ablation, leave-one-scenario-out and correlations with ``scores`` (a JSONL of
    ``{"id": "PAIR:empathic", "score": x}``) or the offline ``scorer``.

    ``probes`` are probe directories; each of ``models`` gets a probe trained first. Results go
    to each probe's directory, or ``output`` (one folder per model when there are several).
    """
    from empathybench.probes.correlation import load_scores
    from empathybench.probes.evaluation import EvaluationSettings, evaluate_probe
    from empathybench.probes.pairs import load_pairs
    from empathybench.probes.plots import plot_layer_sweep
    from empathybench.probes.training import load_probe
    from empathybench.validation import check_count, check_seed

    check_count("random_directions", random_directions, maximum=MAX_BASELINE_DRAWS)
    check_count("permutations", permutations, maximum=MAX_BASELINE_DRAWS)
    check_seed("seed", seed)
    output, scores = optional_path(output), optional_path(scores)
    directories = [Path(directory) for directory in probes]
    found = [(load_probe(directory), directory) for directory in directories]
    trained: list[ProbeTraining] = []
    for model_id in models:
        target = (output / _slug(model_id)) if output and (len(models) > 1 or directories) else None
        training = train_probe(model_id, target, threads=threads, progress=progress)
        trained.append(training)
        found.append((training.probe, training.directory))
    if not found:
        raise ParameterError(
            "give probes=DIR (from probe train) or models=MODEL", parameters=["probes", "models"]
        )
    settings = EvaluationSettings(random_directions, permutations, seed)
    score_map = load_scores(scores) if scores else None
    scoring, warning = None, None
    if score_map is None:
        scoring, _, warning = _load_scorer(scorer)
    source = str(scores) if scores else (OFFLINE_SCORER_NAME if scoring else None)
    evaluations = []
    for probe, directory in found:
        others = [other for other, _ in found if other is not probe]
        evaluation = evaluate_probe(
            probe,
            load_pairs(probe.record.pairs),
            settings=settings,
            scores=score_map,
            scorer=scoring,
            scores_source=source,
            others=others,
        )
        target = (output / _slug(probe.record.model)) if output and len(found) > 1 else None
        target = target or output or directory
        evaluation_file, plot_file = target / "eval.json", target / "layer_sweep.png"
        atomic_write_text(evaluation_file, evaluation.model_dump_json(indent=2) + "\n")
        plot_layer_sweep(evaluation, plot_file)
        evaluations.append(EvaluatedProbe(evaluation, target, evaluation_file, plot_file))
    return ProbeEvaluations(trained, evaluations, warning)


def top_layers(probe: TrainedProbe, count: int, min_gap: int = 3) -> list[int]:
    """The ``count`` best layers by training-split CV, at least ``min_gap`` apart."""
    ranked = sorted(probe.record.layers, key=lambda r: (-round(r.cv_auroc, 3), -r.cv_separation))
    chosen: list[int] = []
    for row in ranked:
        if all(abs(row.layer - c) >= min_gap for c in chosen):
            chosen.append(row.layer)
        if len(chosen) == count:
            break
    return chosen


def _write_steering(result: SteeringResult, directory: Path) -> tuple[Path, Path]:
    from empathybench.probes.plots import plot_dose_response

    steering_file, plot_file = directory / "steer.json", directory / "dose_response.png"
    atomic_write_text(steering_file, result.model_dump_json(indent=2) + "\n")
    plot_dose_response(result, plot_file)
    return steering_file, plot_file


def steer(
    probe: PathArg | None = None,
    model: str | None = None,
    output: PathArg | None = None,
    *,
    layers: Sequence[int] = (),
    top_layers_count: int = 1,
    alphas: Sequence[float] = DEFAULT_STEERING_ALPHAS,
    seeds: int = 3,
    prompts: int = 4,
    max_new_tokens: int = 50,
    temperature: float = 0.7,
    top_p: float = 0.95,
    batch_size: int = 32,
    scorer: ScorerChoice = "default",
    dtype: DType = "float32",
    threads: int | None = None,
    progress: ProgressCallback | None = None,
) -> Steering:
    """Steer generation with ``alpha * sigma * u`` at ``layers`` (default: the
    ``top_layers_count`` best training layers) on held-out prompts: an alpha sweep with
    ``seeds`` samples per alpha and prompt, scored by ``scorer``.

    ``probe`` is a probe directory; with only ``model``, a probe is trained first. Results go
    to ``output`` (default: the probe's directory).
    """
    from empathybench.probes.pairs import load_pairs
    from empathybench.probes.sweep import SweepSettings, held_out_prompts, run_sweep
    from empathybench.probes.training import load_probe
    from empathybench.validation import check_count, check_number

    chosen_alphas = tuple(sorted(set(alphas)))
    if not chosen_alphas:
        raise ParameterError("alphas is empty", parameters=["alphas"])
    for alpha in chosen_alphas:
        check_number("alphas", alpha, minimum=-MAX_ALPHA, maximum=MAX_ALPHA)
    check_count("seeds", seeds, maximum=MAX_BASELINE_DRAWS)
    check_count("prompts", prompts, maximum=MAX_BASELINE_DRAWS)
    check_count("max_new_tokens", max_new_tokens, maximum=MAX_NEW_TOKENS)
    check_count("batch_size", batch_size, maximum=MAX_BATCH_SIZE)
    check_count("top_layers_count", top_layers_count, maximum=MAX_BASELINE_DRAWS)
    check_number("temperature", temperature, minimum=0, maximum=MAX_TEMPERATURE)
    check_number("top_p", top_p, above=0, maximum=1)
    probe, output = optional_path(probe), optional_path(output)
    training = None
    if probe is not None:
        trained, directory = load_probe(probe), probe
        if model is not None and model != trained.record.model:
            raise UserError(f"{probe} is a probe of {trained.record.model}, not {model}")
        loaded = load_model(trained.record.model, dtype=dtype, threads=threads, progress=progress)
    elif model is not None:
        loaded = load_model(model, dtype=dtype, threads=threads, progress=progress)
        training = train_probe(model, output, dtype=dtype, loaded=loaded, progress=progress)
        trained, directory = training.probe, training.directory
    else:
        raise ParameterError(
            "give probe=DIR (from probe train) or model=MODEL", parameters=["probe", "model"]
        )
    chosen_layers = list(layers) or top_layers(trained, top_layers_count)
    for index in chosen_layers:
        trained.record.layer(index)
    pairs = load_pairs(trained.record.pairs)
    scoring, note, warning = _load_scorer(scorer)
    settings = SweepSettings(
        layers=tuple(chosen_layers),
        alphas=chosen_alphas,
        seeds=tuple(range(seeds)),
        max_new_tokens=max_new_tokens,
        temperature=temperature,
        top_p=top_p,
        batch_size=batch_size,
    )
    rows = len(chosen_layers) * len(chosen_alphas) * prompts * seeds
    with _step(progress, f"generating {rows} steered completions"):
        result = run_sweep(
            loaded,
            trained,
            held_out_prompts(pairs, trained.record.test_scenarios, prompts),
            settings,
            scorer=scoring,
            scorer_name=OFFLINE_SCORER_NAME if scoring else None,
            scorer_note=note,
            probe_source=str(directory),
        )
    target = output or directory
    steering_file, plot_file = _write_steering(result, target)
    return Steering(result, target, steering_file, plot_file, training, warning)


def rescore_steering(
    samples: PathArg,
    output: PathArg | None = None,
    *,
    scores: PathArg | None = None,
    scorer: ScorerChoice = "default",
) -> Steering:
    """Score the samples of an existing ``steer.json`` again, with ``scores`` (a JSONL of
    sample id → score) or the offline ``scorer``, and summarise them afresh. Results go to
    ``output`` (default: the folder of ``samples``)."""
    from empathybench.jsonl import read_json_record
    from empathybench.probes.correlation import load_scores
    from empathybench.probes.results import SteeringResult
    from empathybench.probes.sweep import apply_scores, score_samples, summarise

    samples, output, scores = Path(samples), optional_path(output), optional_path(scores)
    if not samples.is_file():
        raise UserError(f"{samples}: no such file")
    result = read_json_record(samples, SteeringResult)
    warning = None
    if scores is not None:
        scored, name, note = apply_scores(result.samples, load_scores(scores)), str(scores), None
    else:
        scoring, note, warning = _load_scorer(scorer)
        if scoring is None:
            raise UserError(f"nothing to re-score with: {note}")
        scored, name = score_samples(result.samples, scoring), OFFLINE_SCORER_NAME
    rescored = result.model_copy(update={"samples": scored, "scorer": name, "scorer_note": note})
    summary = summarise(rescored, {row.layer: row.sigma for row in result.layers})
    target = output or samples.parent
    steering_file, plot_file = _write_steering(summary, target)
    return Steering(summary, target, steering_file, plot_file, None, warning)
