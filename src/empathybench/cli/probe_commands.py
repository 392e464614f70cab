"""``empathybench probe train | eval | steer``: linear empathy probes and steering."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from empathybench.cli.console import console, err_console
from empathybench.errors import UserError
from empathybench.jsonl import atomic_write_text

if TYPE_CHECKING:
    from empathybench.probes.correlation import Scorer
    from empathybench.probes.loading import LoadedModel
    from empathybench.probes.results import ProbeEvaluation, SteeringResult
    from empathybench.probes.training import TrainedProbe

probe_app = typer.Typer(
    help="Linear empathy probes over layers, their baselines, and activation steering.",
    no_args_is_help=True,
)

ModelOption = Annotated[
    str | None,
    typer.Option("--model", help="local/smollm2, local/PATH or hf:PATH (a model directory)."),
]
ThreadsOption = Annotated[int | None, typer.Option(help="Torch CPU threads.")]
DTypeOption = Annotated[
    str, typer.Option(help="float32, bfloat16 or float16 (weights and activations).")
]
ScorerOption = Annotated[
    str, typer.Option(help="'default' (the offline empathy scorer) or 'none'.")
]


MAX_THREADS = 1024


def _slug(model_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", model_id).strip("-") or "model"


def _load(model_id: str, dtype: str, threads: int | None) -> LoadedModel:
    from empathybench.probes.loading import load_probe_model, set_threads
    from empathybench.validation import check_count

    if dtype not in ("float32", "bfloat16", "float16"):
        raise UserError(f"unknown --dtype {dtype!r}: use float32, bfloat16 or float16")
    check_count("threads", threads, maximum=MAX_THREADS)
    set_threads(threads)
    with err_console.status(f"loading {model_id}"):
        return load_probe_model(model_id, dtype)  # type: ignore[arg-type]


def _write(path: Path, text: str) -> None:
    atomic_write_text(path, text)
    console.print(f"wrote {path}", highlight=False)


def _train(
    model: str,
    output: Path | None,
    *,
    pairs: str | None = None,
    layers: str | None = None,
    pooling: str = "mean",
    prompt_format: str = "auto",
    test_scenario: list[str] | None = None,
    dtype: str = "float32",
    batch_size: int = 16,
    layers_path: str | None = None,
    threads: int | None = None,
    loaded: LoadedModel | None = None,
) -> tuple[TrainedProbe, Path]:
    from empathybench.probes.layers import decoder_layers, parse_layer_selection
    from empathybench.probes.pairs import load_pairs
    from empathybench.probes.training import save_probe, train_probe

    if pooling not in ("mean", "last"):
        raise UserError(f"unknown --pooling {pooling!r}: use mean or last")
    if prompt_format not in ("auto", "chat", "plain"):
        raise UserError(f"unknown --prompt-format {prompt_format!r}: use auto, chat or plain")
    pair_set = load_pairs(pairs)
    loaded = loaded or _load(model, dtype, threads)
    count = len(decoder_layers(loaded.model, layers_path))
    with err_console.status(f"reading activations of {4 * len(pair_set.pairs)} texts"):
        trained = train_probe(
            loaded,
            pair_set,
            layers=parse_layer_selection(layers, count),
            pooling=pooling,  # type: ignore[arg-type]
            prompt_format=prompt_format,  # type: ignore[arg-type]
            test_scenarios=test_scenario,
            batch_size=batch_size,
            layers_path=layers_path,
            dtype=dtype,
        )
    directory = output or Path("runs") / "probes" / _slug(model)
    save_probe(directory, trained)
    console.print(f"wrote {directory}/", highlight=False)
    return trained, directory


def _train_command(
    model: Annotated[str, typer.Option(help="local/smollm2, local/PATH or hf:PATH.")],
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Probe directory.")] = None,
    pairs: Annotated[str | None, typer.Option(help="Pairs JSONL (default: bundled).")] = None,
    layers: Annotated[str | None, typer.Option(help="all (default) or e.g. 4,8,12-20.")] = None,
    pooling: Annotated[str, typer.Option(help="mean (completion tokens) or last.")] = "mean",
    prompt_format: Annotated[str, typer.Option(help="auto, chat or plain.")] = "auto",
    test_scenario: Annotated[
        list[str] | None, typer.Option(help="Held-out scenario (repeatable).")
    ] = None,
    dtype: DTypeOption = "float32",
    batch_size: Annotated[int, typer.Option(help="Texts per forward pass.")] = 16,
    layers_path: Annotated[
        str | None, typer.Option(help="Attribute path of the decoder blocks, e.g. model.layers.")
    ] = None,
    threads: ThreadsOption = None,
) -> None:
    """Fit a mean-difference probe at every layer on the training scenarios."""
    trained, _ = _train(
        model,
        output,
        pairs=pairs,
        layers=layers,
        pooling=pooling,
        prompt_format=prompt_format,
        test_scenario=test_scenario,
        dtype=dtype,
        batch_size=batch_size,
        layers_path=layers_path,
        threads=threads,
    )
    record = trained.record
    table = Table(title=f"{record.model}: scenario CV inside the training split")
    for column in ("layer", "CV AUROC", "CV separation", "sigma"):
        table.add_column(column, justify="right")
    for row in record.layers:
        mark = " *" if row.layer == record.selected_layer else ""
        table.add_row(
            f"{row.layer}{mark}",
            f"{row.cv_auroc:.3f}",
            f"{row.cv_separation:.2f}",
            f"{row.sigma:.3g}",
        )
    console.print(table)
    console.print(
        f"selected layer {record.selected_layer} (training data only); "
        f"{record.n_train_pairs} training / {record.n_test_pairs} test pairs; "
        f"read {record.seconds.get('read', 0):.1f} s",
        highlight=False,
    )


def _probes(
    probe: list[Path] | None, model: list[str] | None, output: Path | None, threads: int | None
) -> list[tuple[TrainedProbe, Path]]:
    from empathybench.probes.training import load_probe

    found = [(load_probe(directory), directory) for directory in probe or []]
    for model_id in model or []:
        target = (output / _slug(model_id)) if output and (len(model or []) > 1 or probe) else None
        found.append(_train(model_id, target, threads=threads))
    if not found:
        raise UserError("give --probe DIR (from probe train) or --model MODEL")
    return found


def _scorer(name: str) -> tuple[Scorer | None, str | None]:
    """The scoring callable and its name, or None and why not."""
    from empathybench.probes.correlation import default_scorer

    if name == "none":
        return None, "scoring turned off (--scorer none)"
    if name != "default":
        raise UserError(f"unknown --scorer {name!r}: use default or none")
    try:
        return default_scorer(), None
    except UserError as error:
        err_console.print(f"warning: {error}; continuing without scores", highlight=False)
        return None, str(error)


def _eval_command(
    probe: Annotated[list[Path] | None, typer.Option(help="Probe directory (repeatable).")] = None,
    model: Annotated[
        list[str] | None, typer.Option(help="Train a probe for this model first (repeatable).")
    ] = None,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Output directory.")] = None,
    scores: Annotated[
        Path | None, typer.Option(help='JSONL of {"id": "PAIR:empathic", "score": x} lines.')
    ] = None,
    scorer: ScorerOption = "default",
    random_directions: Annotated[int, typer.Option(help="Random directions per layer.")] = 200,
    permutations: Annotated[int, typer.Option(help="Label permutations per layer.")] = 1000,
    seed: Annotated[int, typer.Option(help="Seed of the baselines.")] = 0,
    threads: ThreadsOption = None,
) -> None:
    """Layer sweep on held-out scenarios with baselines, ablation, LOSO and correlations."""
    from empathybench.probes.correlation import load_scores
    from empathybench.probes.evaluation import EvaluationSettings, evaluate_probe
    from empathybench.probes.pairs import load_pairs
    from empathybench.probes.plots import plot_layer_sweep

    if random_directions < 1 or permutations < 1:
        raise UserError("--random-directions and --permutations must be at least 1")
    found = _probes(probe, model, output, threads)
    settings = EvaluationSettings(random_directions, permutations, seed)
    score_map = load_scores(scores) if scores else None
    scoring, note = (None, None) if score_map is not None else _scorer(scorer)
    source = str(scores) if scores else ("offline empathy scorer" if scoring else None)
    for trained, directory in found:
        pairs = load_pairs(trained.record.pairs)
        others = [t for t, _ in found if t is not trained]
        evaluation = evaluate_probe(
            trained,
            pairs,
            settings=settings,
            scores=score_map,
            scorer=scoring,
            scores_source=source,
            others=others,
        )
        target = (output / _slug(trained.record.model)) if output and len(found) > 1 else None
        target = target or output or directory
        _write(target / "eval.json", evaluation.model_dump_json(indent=2) + "\n")
        plot_layer_sweep(evaluation, target / "layer_sweep.png")
        console.print(f"wrote {target / 'layer_sweep.png'}", highlight=False)
        print_evaluation(evaluation)
        if note and scores is None and scorer != "none":
            console.print(f"no correlation with scores: {note}", highlight=False)


def print_evaluation(evaluation: ProbeEvaluation) -> None:
    table = Table(title=f"{evaluation.model}: {evaluation.n_test_pairs} held-out pairs")
    for column in (
        "layer", "AUROC", "acc", "paired", "random mean", "random p95", "perm p",
        "ablated", "LOSO",
    ):  # fmt: skip
        table.add_column(column, justify="right")
    for r in evaluation.layers:
        mark = " *" if r.layer == evaluation.selected_layer else ""
        table.add_row(
            f"{r.layer}{mark}", f"{r.auroc:.3f}", f"{r.accuracy:.3f}", f"{r.paired_accuracy:.3f}",
            f"{r.random.mean:.3f}", f"{r.random.p95:.3f}", f"{r.permutation_p:.4f}",
            f"{r.ablated_retrained_auroc:.3f}", f"{r.loso_auroc:.3f}",
        )  # fmt: skip
    console.print(table)
    folds = ", ".join(f"{f.scenario} L{f.selected_layer} {f.auroc:.3f}" for f in evaluation.loso)
    console.print(
        f"* layer chosen on training data; best test layer {evaluation.best_test_layer}. "
        f"Length-only AUROC {evaluation.length_baseline_auroc:.3f}. LOSO (layer chosen in "
        f"each fold): mean AUROC {evaluation.loso_mean_auroc:.3f}, accuracy "
        f"{evaluation.loso_mean_accuracy:.3f} [{folds}]",
        highlight=False,
    )
    for name, value in (
        ("all test texts", evaluation.correlation),
        ("within class", evaluation.correlation_within_class),
    ):
        if value is not None and value.pearson is not None:
            console.print(
                f"projection vs {evaluation.correlation_source} ({name}): Pearson "
                f"{value.pearson:.3f} {_ci(value.pearson_ci)}, Spearman {value.spearman:.3f} "
                f"{_ci(value.spearman_ci)}, n={value.n}",
                highlight=False,
            )
    for agreement in evaluation.cross_model:
        console.print(
            f"agreement {agreement.models[0]} L{agreement.layers[0]} vs {agreement.models[1]} "
            f"L{agreement.layers[1]}: Pearson all {_num(agreement.all_texts.pearson)}, "
            f"within class {_num(agreement.within_class.pearson)} (n={agreement.all_texts.n})",
            highlight=False,
        )


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _ci(interval: tuple[float, float] | None) -> str:
    return "" if interval is None else f"[{interval[0]:.3f}, {interval[1]:.3f}]"


def _parse_alphas(text: str) -> tuple[float, ...]:
    try:
        alphas = tuple(float(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise UserError(f"bad --alphas {text!r}: use numbers separated by commas") from None
    if not alphas:
        raise UserError("--alphas is empty")
    return tuple(sorted(set(alphas)))


def top_layers(trained: TrainedProbe, count: int, min_gap: int = 3) -> list[int]:
    """The ``count`` best layers by training-split CV, at least ``min_gap`` apart."""
    ranked = sorted(trained.record.layers, key=lambda r: (-round(r.cv_auroc, 3), -r.cv_separation))
    chosen: list[int] = []
    for row in ranked:
        if all(abs(row.layer - c) >= min_gap for c in chosen):
            chosen.append(row.layer)
        if len(chosen) == count:
            break
    return chosen


def _steer_command(
    probe: Annotated[Path | None, typer.Option(help="Probe directory.")] = None,
    model: ModelOption = None,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Output directory.")] = None,
    layer: Annotated[list[int] | None, typer.Option(help="Layer to steer (repeatable).")] = None,
    top_layers_count: Annotated[
        int, typer.Option("--top-layers", help="Without --layer: the K best training layers.")
    ] = 1,
    alphas: Annotated[
        str, typer.Option(help="Alphas in sigma units.")
    ] = "-20,-10,-5,-2,0,2,5,10,20",
    seeds: Annotated[int, typer.Option(help="Sampling seeds per alpha and prompt.")] = 3,
    prompts: Annotated[int, typer.Option(help="Held-out prompts to steer on.")] = 4,
    max_new_tokens: Annotated[int, typer.Option(help="Tokens per completion.")] = 50,
    temperature: Annotated[float, typer.Option(help="0 for greedy.")] = 0.7,
    top_p: Annotated[float, typer.Option()] = 0.95,
    batch_size: Annotated[int, typer.Option(help="Rows per generation batch.")] = 32,
    scorer: ScorerOption = "default",
    scores: Annotated[
        Path | None, typer.Option(help="With --from-samples: JSONL of sample id -> score.")
    ] = None,
    from_samples: Annotated[
        Path | None, typer.Option(help="Re-score an existing steer.json instead of generating.")
    ] = None,
    dtype: DTypeOption = "float32",
    threads: ThreadsOption = None,
) -> None:
    """Steer generation with alpha * sigma * u at one or more layers (an alpha sweep)."""
    from empathybench.probes.plots import plot_dose_response

    if from_samples is not None:
        result = _rescore(from_samples, scorer, scores)
        target = output or from_samples.parent
    else:
        if scores is not None:
            raise UserError("--scores needs --from-samples (scores are joined to sample ids)")
        result, target = _generate(
            probe, model, output, layer, top_layers_count, _parse_alphas(alphas), seeds, prompts,
            max_new_tokens, temperature, top_p, batch_size, scorer, dtype, threads,
        )  # fmt: skip
    _write(target / "steer.json", result.model_dump_json(indent=2) + "\n")
    plot_dose_response(result, target / "dose_response.png")
    console.print(f"wrote {target / 'dose_response.png'}", highlight=False)
    print_steering(result)


def _generate(
    probe: Path | None,
    model: str | None,
    output: Path | None,
    layer: list[int] | None,
    top: int,
    alphas: tuple[float, ...],
    seeds: int,
    prompts: int,
    max_new_tokens: int,
    temperature: float,
    top_p: float,
    batch_size: int,
    scorer: str,
    dtype: str,
    threads: int | None,
) -> tuple[SteeringResult, Path]:
    from empathybench.probes.pairs import load_pairs
    from empathybench.probes.sweep import SweepSettings, held_out_prompts, run_sweep
    from empathybench.probes.training import load_probe

    if min(seeds, prompts, max_new_tokens, batch_size, top) < 1:
        raise UserError("--seeds, --prompts, --max-new-tokens, --batch-size must be at least 1")
    if probe is not None:
        trained, directory = load_probe(probe), probe
        if model is not None and model != trained.record.model:
            raise UserError(f"{probe} is a probe of {trained.record.model}, not {model}")
        loaded = _load(trained.record.model, dtype, threads)
    elif model is not None:
        loaded = _load(model, dtype, threads)
        trained, directory = _train(model, output, dtype=dtype, loaded=loaded)
    else:
        raise UserError("give --probe DIR (from probe train) or --model MODEL")
    layers = layer or top_layers(trained, top)
    for index in layers:
        trained.record.layer(index)
    pairs = load_pairs(trained.record.pairs)
    scoring, note = _scorer(scorer)
    settings = SweepSettings(
        layers=tuple(layers),
        alphas=alphas,
        seeds=tuple(range(seeds)),
        max_new_tokens=max_new_tokens,
        temperature=temperature,
        top_p=top_p,
        batch_size=batch_size,
    )
    rows = len(layers) * len(alphas) * prompts * seeds
    with err_console.status(f"generating {rows} steered completions"):
        result = run_sweep(
            loaded,
            trained,
            held_out_prompts(pairs, trained.record.test_scenarios, prompts),
            settings,
            scorer=scoring,
            scorer_name="offline empathy scorer" if scoring else None,
            scorer_note=note,
            probe_source=str(directory),
        )
    return result, output or directory


def _rescore(path: Path, scorer: str, scores: Path | None) -> SteeringResult:

    from empathybench.jsonl import read_json_record
    from empathybench.probes.correlation import load_scores
    from empathybench.probes.results import SteeringResult
    from empathybench.probes.sweep import apply_scores, score_samples, summarise

    if not path.is_file():
        raise UserError(f"{path}: no such file")
    result = read_json_record(path, SteeringResult)
    if scores is not None:
        samples, name, note = apply_scores(result.samples, load_scores(scores)), str(scores), None
    else:
        scoring, note = _scorer(scorer)
        if scoring is None:
            raise UserError(f"nothing to re-score with: {note}")
        samples, name = score_samples(result.samples, scoring), "offline empathy scorer"
    rescored = result.model_copy(update={"samples": samples, "scorer": name, "scorer_note": note})
    return summarise(rescored, {row.layer: row.sigma for row in result.layers})


def print_steering(result: SteeringResult) -> None:
    table = Table(title=f"{result.model}: steering dose-response")
    for column in (
        "layer", "alpha", "n", "score", "95% CI", "success", "projection", "coherent",
        "empty", "ppl (median)", "distinct-2", "repetition",
    ):  # fmt: skip
        table.add_column(column, justify="right")
    for r in result.summary:
        table.add_row(
            str(r.layer), f"{r.alpha:g}", str(r.n), _num(r.mean_score), _ci(r.score_ci),
            _num(r.success_rate), _num(r.mean_projection), f"{r.coherent_rate:.2f}",
            f"{r.empty_rate:.2f}", _num(r.median_perplexity), _num(r.mean_distinct_2),
            f"{r.mean_repetition:.3f}",
        )  # fmt: skip
    console.print(table)
    for row in result.layers:
        console.print(
            f"layer {row.layer} (sigma {row.sigma:.3g}): success {_num(row.success_rate)} "
            f"(alpha>0 {_num(row.success_rate_positive)}, alpha<0 "
            f"{_num(row.success_rate_negative)})",
            highlight=False,
        )
    if result.scorer is None:
        console.print(f"no empathy scores: {result.scorer_note}", highlight=False)


def register(app: typer.Typer) -> None:
    probe_app.command("train")(_train_command)
    probe_app.command("eval")(_eval_command)
    probe_app.command("steer")(_steer_command)
    app.add_typer(probe_app, name="probe")
