"""``empathybench score`` and ``empathybench scorer train | eval | robustness``: parse the
options, call ``empathybench.api.scorer`` (and ``scorer_training``, ``scorer_evaluation``)
and print its tables."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from empathybench.cli.console import console

if TYPE_CHECKING:
    from empathybench.api.scorer import JudgeAgreement
    from empathybench.api.scorer_evaluation import RobustnessCheck
    from empathybench.scorer.agreement import AgreementReport
    from empathybench.scorer.empathy_scorer import EmpathyEvaluation

scorer_app = typer.Typer(
    help="Train, evaluate and stress-test the offline empathy scorer and offline judge.",
    no_args_is_help=True,
)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _wrote(output: Path | None) -> None:
    if output is not None:
        console.print(f"wrote {output}", highlight=False)


METHOD_HELP = (
    "signals (default: embedding + reply signals) or seed (the seed's embedding-only head)."
)


def _score(
    text: Annotated[str, typer.Argument(help="The reply to score.")],
    head: Annotated[Path | None, typer.Option(help="A trained empathy head directory.")] = None,
    method: Annotated[str, typer.Option(help=METHOD_HELP)] = "signals",
    message: Annotated[
        str | None, typer.Option(help="The message the reply answers (optional).")
    ] = None,
) -> None:
    """Score one text: cognitive, emotional, behavioral empathy (1–3) and their mean."""
    from empathybench.api.scorer import score_text

    scores = score_text(text, head=head, method=method, message=message)
    table = Table(title="empathy scores (1 = low, 3 = high)")
    for column in ("cognitive", "emotional", "behavioral", "empathy"):
        table.add_column(column, justify="right")
    table.add_row(
        *(f"{getattr(scores, f):.2f}" for f in ("cognitive", "emotional", "behavioral", "empathy"))
    )
    console.print(table)


def _print_empathy_evaluation(evaluation: EmpathyEvaluation) -> None:
    table = Table(title=f"test MSE on {evaluation.labels} ({evaluation.n_test} held-out replies)")
    for column in ("", "cognitive", "emotional", "behavioral", "overall", "empathy (mean)"):
        table.add_column(column, justify="right")
    keys = ("cognitive", "emotional", "behavioral", "overall", "empathy")
    table.add_row("this head", *(_fmt(evaluation.mse[k]) for k in keys))
    if evaluation.baseline_mse:
        table.add_row("train mean", *(_fmt(evaluation.baseline_mse[k]) for k in keys))
    table.add_row("seed study", "-", "-", "-", _fmt(evaluation.seed_study_mse), "-")
    console.print(table)
    console.print(
        "train mean: predicts the training labels' mean for every reply; seed study: the "
        "seed's frozen BERT on its own 100 labels (a different test set)",
        highlight=False,
    )


def _print_judge_agreement(agreement: JudgeAgreement) -> None:
    from empathybench.cli.judge_commands import print_agreement
    from empathybench.judging.offline_judge import judge_label

    for name, report in agreement.reports.items():
        print_agreement(
            report,
            f"{judge_label(agreement.judge_id)} against {name} ({report.items} labelled responses)",
        )


@scorer_app.command("train")
def _train(
    output: Annotated[Path, typer.Option("-o", "--output", help="Directory for the new head.")],
    task: Annotated[
        str, typer.Option(help="empathy (C/E/B scorer) or judge (offline judge heads).")
    ] = "empathy",
    data: Annotated[
        str | None, typer.Option(help="Labels JSONL (default: the bundled set for the task).")
    ] = None,
    from_run: Annotated[
        Path | None, typer.Option(help="Distil: learn a judge's verdicts on this run.")
    ] = None,
    judge: Annotated[str | None, typer.Option(help="With --from-run: the judge to learn.")] = None,
    encoder: Annotated[
        str, typer.Option(help="minilm (bundled) or an encoder directory.")
    ] = "minilm",
    method: Annotated[str, typer.Option(help="Empathy scorer: " + METHOD_HELP)] = "signals",
    epochs: Annotated[int, typer.Option(min=1)] = 50,
    learning_rate: Annotated[float, typer.Option("--lr")] = 2e-4,
    batch_size: Annotated[int, typer.Option(min=1)] = 16,
    hidden_size: Annotated[int, typer.Option(min=0, help="0 = one linear layer.")] = 256,
    dropout: Annotated[float, typer.Option(min=0.0, max=0.9)] = 0.1,
    seed: Annotated[int, typer.Option()] = 0,
    augment: Annotated[
        bool, typer.Option(help="Also train on perturbed copies of each training text.")
    ] = False,
    features: Annotated[
        str,
        typer.Option(
            help="Judge heads: response+context+signals+fit (judge-v3), "
            "response+context+signals (judge-v2) or response+context (judge-v1)."
        ),
    ] = "response+context+signals+fit",
    calibration: Annotated[
        str,
        typer.Option(help="Judge heads: linear, isotonic or none (cross-fitted by scenario)."),
    ] = "linear",
    solver: Annotated[
        str, typer.Option(help="adamw (the seed's recipe) or ridge (closed form, linear head).")
    ] = "adamw",
    ridge_penalty: Annotated[
        float, typer.Option(min=1e-6, help="L2 penalty for --solver ridge.")
    ] = 3000.0,
    force: Annotated[
        bool, typer.Option("--force", help="Write into an -o folder that holds no head.")
    ] = False,
) -> None:
    """Train a head on a frozen encoder (AdamW, MSE; defaults from the seed study)."""
    from empathybench.api.scorer_training import train_scorer

    trained = train_scorer(
        output,
        task=task,  # type: ignore[arg-type]
        data=data,
        from_run=from_run,
        judge=judge,
        encoder=encoder,
        method=method,
        epochs=epochs,
        learning_rate=learning_rate,
        batch_size=batch_size,
        hidden_size=hidden_size,
        dropout=dropout,
        seed=seed,
        augment=augment,
        features=features,
        calibration=calibration,
        solver=solver,
        ridge_penalty=ridge_penalty,
        force=force,
    )
    _print_training(trained.loss_history)
    if trained.evaluation is not None:
        _print_empathy_evaluation(trained.evaluation)
    if trained.judge_agreement is not None:
        _print_judge_agreement(trained.judge_agreement)
    console.print(f"saved head to {output}", highlight=False)


def _print_training(history: list[float]) -> None:
    console.print(
        f"training loss: epoch 1 {history[0]:.4f} → epoch {len(history)} {history[-1]:.4f}",
        highlight=False,
    )


def _print_agreement(report: AgreementReport) -> None:
    from empathybench.scorer.agreement import TARGETS

    table = Table(
        title=f"Spearman with the labels, {report.selection}: {report.n} replies to "
        f"{report.messages} messages ({report.confidence:.0%} CI, bootstrap over messages)"
    )
    table.add_column("")
    for target in TARGETS:
        table.add_column(target, justify="right")
    for row in report.rows:
        table.add_row(
            row.name,
            *(
                "-" if e.rho is None else f"{e.rho:.2f} [{_fmt_ci(e.low)}, {_fmt_ci(e.high)}]"
                for e in row.spearman.values()
            ),
        )
    console.print(table)
    for row in report.rows:
        console.print(f"{row.name}: {row.description}", highlight=False)


def _fmt_ci(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


@scorer_app.command("eval")
def _eval(
    head: Annotated[
        Path | None, typer.Option(help="Head directory (default: the bundled head for --task).")
    ] = None,
    task: Annotated[str, typer.Option(help="empathy or judge (when no --head).")] = "empathy",
    method: Annotated[str, typer.Option(help="Bundled empathy head: " + METHOD_HELP)] = "signals",
    data: Annotated[str | None, typer.Option(help="Labels JSONL with a test split.")] = None,
    split: Annotated[str, typer.Option(help="Empathy: test, train or all.")] = "test",
    batch: Annotated[
        str | None,
        typer.Option(help="Empathy: only replies whose writing batch starts so (w3,w4: either)."),
    ] = None,
    messages: Annotated[
        bool, typer.Option(help="Empathy: give the scorer each reply's message.")
    ] = True,
    resamples: Annotated[int, typer.Option(min=100, help="Bootstrap resamples.")] = 1000,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write JSON here.")] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace an -o file that is not a JSON results file.")
    ] = False,
) -> None:
    """Held-out figures: Spearman beside length and lexicon baselines, and test MSE (empathy
    scorer), or agreement with labels (offline judge)."""
    from empathybench.api.scorer_evaluation import evaluate_scorer

    evaluation = evaluate_scorer(
        head,
        task=task,  # type: ignore[arg-type]
        method=method,
        data=data,
        split=split,  # type: ignore[arg-type]
        batch=batch,
        messages=messages,
        resamples=resamples,
        output=output,
        force=force,
    )
    if evaluation.agreement is not None:
        _print_agreement(evaluation.agreement)
    if evaluation.mse is not None:
        _print_empathy_evaluation(evaluation.mse)
    if evaluation.judge_agreement is not None:
        _print_judge_agreement(evaluation.judge_agreement)
    _wrote(evaluation.output)


@scorer_app.command("robustness")
def _robustness(
    text: Annotated[
        str | None, typer.Option(help="The text for the one-text table (default: an example).")
    ] = None,
    head: Annotated[Path | None, typer.Option(help="An empathy head directory.")] = None,
    data: Annotated[str | None, typer.Option(help="Labels whose test split to summarise.")] = None,
    seed: Annotated[int, typer.Option(help="Perturbation seed.")] = 0,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write JSON here.")] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace an -o file that is not a JSON results file.")
    ] = False,
) -> None:
    """The seed's adversarial table for one text, and mean changes over the test split."""
    from empathybench.api.scorer_evaluation import scorer_robustness

    check = scorer_robustness(text, head=head, data=data, seed=seed, output=output, force=force)
    print_robustness(check)
    _wrote(check.output)


def print_robustness(check: RobustnessCheck) -> None:
    from empathybench.scorer.robustness import SCORE_FIELDS

    table = Table(title="one text under each perturbation (scores 1–3; change vs original)")
    table.add_column("perturbation")
    table.add_column("modified text", max_width=60)
    for field in SCORE_FIELDS:
        table.add_column(field, justify="right")
    for row in check.rows:
        values = row.scores.model_dump()
        table.add_row(
            row.description,
            row.text if row.perturbation != "original" else "ORIGINAL",
            *(f"{values[f]:.2f} ({row.change[f]:+.2f})" for f in SCORE_FIELDS),
        )
    console.print(table)
    summary = check.summary
    overview = Table(
        title=f"mean |change| over {summary.texts} test replies (level flips in brackets)"
    )
    overview.add_column("perturbation")
    for field in SCORE_FIELDS:
        overview.add_column(field, justify="right")
    for effect in summary.effects:
        overview.add_row(
            effect.description,
            *(
                f"{effect.mean_abs_change[f]:.3f} ({effect.level_flip_rate[f]:.0%})"
                for f in SCORE_FIELDS
            ),
        )
    console.print(overview)
    console.print(f"mean |change| over everything: {summary.mean_abs_change_all:.3f}")


def register(app: typer.Typer) -> None:
    app.command("score")(_score)
    app.add_typer(scorer_app, name="scorer")
