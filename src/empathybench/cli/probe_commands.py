"""``empathybench probe train | eval | steer``: parse the options, call
``empathybench.api.probes`` and print its tables."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from empathybench.cli.console import console, err_console
from empathybench.cli.progress import status_spinner
from empathybench.errors import UserError

if TYPE_CHECKING:
    from empathybench.api.probes import ProbeTraining, Steering
    from empathybench.probes.results import ProbeEvaluation, SteeringResult

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


def _wrote(*paths: Path) -> None:
    for path in paths:
        console.print(f"wrote {path}", highlight=False)


def _warn(warning: str | None) -> None:
    if warning is not None:
        err_console.print(f"warning: {warning}; continuing without scores", highlight=False)


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
    from empathybench.api.probes import train_probe

    with status_spinner() as progress:
        training = train_probe(
            model,
            output,
            pairs=pairs,
            layers=layers,
            pooling=pooling,  # type: ignore[arg-type]
            prompt_format=prompt_format,  # type: ignore[arg-type]
            test_scenarios=test_scenario,
            dtype=dtype,  # type: ignore[arg-type]
            batch_size=batch_size,
            layers_path=layers_path,
            threads=threads,
            progress=progress,
        )
    print_training(training)
    record = training.probe.record
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


def print_training(training: ProbeTraining) -> None:
    console.print(f"wrote {training.directory}/", highlight=False)


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
    from empathybench.api.probes import evaluate_probes

    with status_spinner() as progress:
        done = evaluate_probes(
            probe or [],
            model or [],
            output,
            scores=scores,
            scorer=scorer,  # type: ignore[arg-type]
            random_directions=random_directions,
            permutations=permutations,
            seed=seed,
            threads=threads,
            progress=progress,
        )
    for training in done.trained:
        print_training(training)
    _warn(done.scorer_warning)
    for evaluated in done.evaluations:
        _wrote(evaluated.evaluation_file, evaluated.plot_file)
        print_evaluation(evaluated.evaluation)
        if done.scorer_warning is not None:
            console.print(f"no correlation with scores: {done.scorer_warning}", highlight=False)


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
        return tuple(float(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise UserError(f"bad --alphas {text!r}: use numbers separated by commas") from None


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
    from empathybench.api.probes import rescore_steering, steer

    if from_samples is not None:
        done = rescore_steering(from_samples, output, scores=scores, scorer=scorer)  # type: ignore[arg-type]
    else:
        if scores is not None:
            raise UserError("--scores needs --from-samples (scores are joined to sample ids)")
        with status_spinner() as progress:
            done = steer(
                probe,
                model,
                output,
                layers=layer or [],
                top_layers_count=top_layers_count,
                alphas=_parse_alphas(alphas),
                seeds=seeds,
                prompts=prompts,
                max_new_tokens=max_new_tokens,
                temperature=temperature,
                top_p=top_p,
                batch_size=batch_size,
                scorer=scorer,  # type: ignore[arg-type]
                dtype=dtype,  # type: ignore[arg-type]
                threads=threads,
                progress=progress,
            )
    print_steered(done)


def print_steered(done: Steering) -> None:
    if done.trained is not None:
        print_training(done.trained)
    _warn(done.scorer_warning)
    _wrote(done.steering_file, done.plot_file)
    print_steering(done.result)


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
