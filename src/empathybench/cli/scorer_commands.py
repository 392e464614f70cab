"""``empathybench score`` and ``empathybench scorer train | eval | robustness``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from rich.table import Table

from empathybench.cli.console import console
from empathybench.errors import UserError
from empathybench.jsonl import atomic_write_text

scorer_app = typer.Typer(
    help="Train, evaluate and stress-test the offline empathy scorer and offline judge.",
    no_args_is_help=True,
)

Task = Literal["empathy", "judge"]


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _write_json(output: Path | None, data: Any) -> None:
    if output is not None:
        atomic_write_text(output, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
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
    from empathybench.scorer.empathy_scorer import load_empathy_scorer

    if not text.strip():
        raise UserError("nothing to score: the text is empty")
    scorer = load_empathy_scorer(head, method=method)
    [scores] = scorer.score([text], messages=[message] if message else None)
    table = Table(title="empathy scores (1 = low, 3 = high)")
    for column in ("cognitive", "emotional", "behavioral", "empathy"):
        table.add_column(column, justify="right")
    table.add_row(
        *(f"{getattr(scores, f):.2f}" for f in ("cognitive", "emotional", "behavioral", "empathy"))
    )
    console.print(table)


def _print_empathy_evaluation(evaluation: Any) -> None:
    table = Table(title=f"test MSE on {evaluation.labels} ({evaluation.n_test} held-out replies)")
    for column in ("", "cognitive", "emotional", "behavioral", "overall", "empathy (mean)"):
        table.add_column(column, justify="right")
    keys = ("cognitive", "emotional", "behavioral", "overall", "empathy")
    table.add_row("this head", *(_fmt(evaluation.mse[k]) for k in keys))
    table.add_row("train mean", *(_fmt(evaluation.baseline_mse[k]) for k in keys))
    table.add_row("seed study", "-", "-", "-", _fmt(evaluation.seed_study_mse), "-")
    console.print(table)
    console.print(
        "train mean: predicts the training labels' mean for every reply; seed study: the "
        "seed's frozen BERT on its own 100 labels (a different test set)",
        highlight=False,
    )


def judge_reports(judge: Any, test: list[Any], test_name: str) -> dict[str, Any]:
    """Held-out agreement of an offline judge: its test split, and the calibration set."""
    from empathybench.cli.judge_commands import print_agreement
    from empathybench.judging.calibration import BUNDLED_LABELS, load_labels
    from empathybench.judging.offline_judge import evaluate_offline_judge, judge_label

    reports = {}
    if test:
        reports[test_name] = evaluate_offline_judge(judge, test, labels_name=test_name)
    reports[BUNDLED_LABELS] = evaluate_offline_judge(
        judge, load_labels(BUNDLED_LABELS), labels_name=BUNDLED_LABELS
    )
    for name, report in reports.items():
        print_agreement(
            report, f"{judge_label(judge.id)} against {name} ({report.items} labelled responses)"
        )
    return {name: report.model_dump(mode="json") for name, report in reports.items()}


def _judge_training_data(
    data: str | None, from_run: Path | None, judge: str | None
) -> tuple[list[Any], list[Any], dict[str, Any]]:
    from empathybench.judging.offline_data import DEFAULT_JUDGE_TRAINING, load_judge_labels
    from empathybench.judging.offline_runs import labels_from_run

    if from_run is not None:
        if not judge:
            raise UserError("--from-run needs --judge: the LLM judge whose verdicts to learn")
        records = labels_from_run(from_run, judge)
        info: dict[str, Any] = {"name": f"{from_run.name}:{judge}", "distilled_from": judge}
    else:
        if judge:
            raise UserError("--judge is only used with --from-run")
        labels = load_judge_labels(data or ",".join(DEFAULT_JUDGE_TRAINING))
        records, info = labels.records, {"name": labels.name, "sha256": labels.sha256}
    train = [r for r in records if r.split != "test"]
    test = [r for r in records if r.split == "test"]
    info.update(train=len(train), test=len(test), split="fixed by scenario")
    return train, test, info


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
            help="Judge heads: response+context+signals (judge-v2) or response+context (judge-v1)."
        ),
    ] = "response+context+signals",
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
) -> None:
    """Train a head on a frozen encoder (AdamW, MSE; defaults from the seed study)."""
    from empathybench.scorer.heads import TrainingSettings

    if from_run is not None:
        task = "judge"
    if task not in ("empathy", "judge"):
        raise UserError(f"unknown task {task!r}: use empathy or judge")
    if solver not in ("adamw", "ridge"):
        raise UserError(f"unknown solver {solver!r}: use adamw or ridge")
    if solver == "ridge" and hidden_size != 0:
        raise UserError("--solver ridge fits a linear head: add --hidden-size 0")
    settings = TrainingSettings(
        epochs=epochs,
        learning_rate=learning_rate,
        batch_size=batch_size,
        seed=seed,
        augment=augment,
        solver=solver,
        ridge_penalty=ridge_penalty,
    )
    if task == "empathy":
        from empathybench.scorer.empathy_data import BUNDLED_EMPATHY_LABELS, load_empathy_labels
        from empathybench.scorer.empathy_scorer import train_empathy_scorer

        if from_run is not None or judge:
            raise UserError("--from-run/--judge train judge heads: use --task judge")
        labels = load_empathy_labels(data or BUNDLED_EMPATHY_LABELS)
        scorer = train_empathy_scorer(
            labels,
            method=method,
            encoder_name=encoder,
            settings=settings,
            hidden_size=hidden_size,
            dropout=dropout,
        )
        scorer.head.save(output)
        _print_training(scorer.head.config.loss_history)
        from empathybench.scorer.empathy_scorer import EmpathyEvaluation

        _print_empathy_evaluation(EmpathyEvaluation.model_validate(scorer.head.config.metrics))
    else:
        from empathybench.judging.offline_judge import train_offline_judge

        if augment:
            raise UserError("--augment applies to the empathy scorer only")
        if calibration not in ("isotonic", "linear", "none"):
            raise UserError(f"unknown calibration {calibration!r}: use isotonic, linear or none")
        train, test, info = _judge_training_data(data, from_run, judge)
        trained = train_offline_judge(
            train,
            data=info,
            encoder_name=encoder,
            settings=settings,
            hidden_size=hidden_size,
            dropout=dropout,
            feature_set=features,
            calibration=None if calibration == "none" else calibration,  # type: ignore[arg-type]
            calibration_version=f"{output.name}-calibration",
        )
        trained.id = f"offline:{output.name}"
        _print_training(trained.head.config.loss_history)
        metrics = judge_reports(trained, test, f"{info['name']} (test split)")
        trained.head.config = trained.head.config.model_copy(update={"metrics": metrics})
        trained.save(output)
    console.print(f"saved head to {output}", highlight=False)


def _print_training(history: list[float]) -> None:
    console.print(
        f"training loss: epoch 1 {history[0]:.4f} → epoch {len(history)} {history[-1]:.4f}",
        highlight=False,
    )


def _load_any_head(head: Path | None, task: str, method: str) -> Any:
    from empathybench.scorer.heads import load_head

    if head is not None:
        return load_head(head)
    from empathybench.judging.offline_judge import BUNDLED_JUDGE_HEAD
    from empathybench.scorer.empathy_data import bundled_data_path
    from empathybench.scorer.empathy_scorer import BUNDLED_HEADS, METHODS

    if task == "judge":
        return load_head(bundled_data_path(f"heads/{BUNDLED_JUDGE_HEAD}"))
    if method not in BUNDLED_HEADS:
        raise UserError(f"unknown scorer method {method!r}: use {' or '.join(METHODS)}")
    return load_head(bundled_data_path(f"heads/{BUNDLED_HEADS[method]}"))


def _print_agreement(report: Any) -> None:
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


def _evaluate_empathy_head(
    loaded: Any, data: str | None, split: str, batch: str | None, messages: bool, resamples: int
) -> dict[str, Any]:
    from empathybench.scorer.agreement import agreement_report, with_mean
    from empathybench.scorer.empathy_data import BUNDLED_EMPATHY_LABELS, load_empathy_labels
    from empathybench.scorer.empathy_scorer import EmpathyScorer, evaluate_empathy_scorer
    from empathybench.scorer.encoder import load_encoder

    labels = load_empathy_labels(data or BUNDLED_EMPATHY_LABELS)
    scorer = EmpathyScorer(encoder=load_encoder(loaded.config.encoder), head=loaded)
    records = labels.records if split == "all" else labels.part(split)
    if batch is not None:
        records = [r for r in records if (r.batch or "").startswith(batch)]
    if len(records) < 3:
        raise UserError(f"{labels.name}: fewer than 3 labelled replies in that selection")
    predicted = scorer.predict(
        [r.response for r in records], messages=[r.prompt for r in records] if messages else None
    )
    selection = f"{split} split" + (f", batch {batch}*" if batch else "")
    selection += ", replies with their messages" if messages else ", replies alone"
    report = agreement_report(
        records,
        {
            f"{scorer.method} head": (
                f"{scorer.method} method, trained on {loaded.config.data.get('name', '?')}",
                with_mean(predicted),
            )
        },
        labels=labels.name,
        selection=selection,
        resamples=resamples,
    )
    _print_agreement(report)
    result: dict[str, Any] = {"agreement": report.model_dump(mode="json")}
    if split == "test" and batch is None:
        evaluation = evaluate_empathy_scorer(scorer, labels)
        _print_empathy_evaluation(evaluation)
        result["mse"] = evaluation.model_dump(mode="json")
    return result


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
        str | None, typer.Option(help="Empathy: only replies whose writing batch starts so.")
    ] = None,
    messages: Annotated[
        bool, typer.Option(help="Empathy: give the scorer each reply's message.")
    ] = True,
    resamples: Annotated[int, typer.Option(min=100, help="Bootstrap resamples.")] = 1000,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write JSON here.")] = None,
) -> None:
    """Held-out figures: Spearman beside length and lexicon baselines, and test MSE (empathy
    scorer), or agreement with labels (offline judge)."""
    if split not in ("test", "train", "all"):
        raise UserError(f"unknown split {split!r}: use test, train or all")
    loaded = _load_any_head(head, task, method)
    if loaded.config.task == "empathy":
        _write_json(output, _evaluate_empathy_head(loaded, data, split, batch, messages, resamples))
    else:
        from empathybench.judging.judge_calibration import load_calibration
        from empathybench.judging.offline_data import DEFAULT_JUDGE_TRAINING, load_judge_labels
        from empathybench.judging.offline_judge import OfflineJudge, head_directory

        judge = OfflineJudge(
            loaded,
            judge_id=f"offline:{head.name}" if head else "offline",
            calibration=load_calibration(head if head else head_directory("offline")),
        )
        labels = load_judge_labels(data or ",".join(DEFAULT_JUDGE_TRAINING))
        test = [r for r in labels.records if r.split == "test"]
        _write_json(output, judge_reports(judge, test, f"{labels.name} (test split)"))


@scorer_app.command("robustness")
def _robustness(
    text: Annotated[
        str | None, typer.Option(help="The text for the one-text table (default: an example).")
    ] = None,
    head: Annotated[Path | None, typer.Option(help="An empathy head directory.")] = None,
    data: Annotated[str | None, typer.Option(help="Labels whose test split to summarise.")] = None,
    seed: Annotated[int, typer.Option(help="Perturbation seed.")] = 0,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write JSON here.")] = None,
) -> None:
    """The seed's adversarial table for one text, and mean changes over the test split."""
    from empathybench.scorer.empathy_data import BUNDLED_EMPATHY_LABELS, load_empathy_labels
    from empathybench.scorer.empathy_scorer import load_empathy_scorer
    from empathybench.scorer.robustness import (
        EXAMPLE_TEXT,
        SCORE_FIELDS,
        robustness_summary,
        robustness_table,
    )

    scorer = load_empathy_scorer(head)
    rows = robustness_table(scorer, text or EXAMPLE_TEXT, seed=seed)
    table = Table(title="one text under each perturbation (scores 1–3; change vs original)")
    table.add_column("perturbation")
    table.add_column("modified text", max_width=60)
    for field in SCORE_FIELDS:
        table.add_column(field, justify="right")
    for row in rows:
        values = row.scores.model_dump()
        table.add_row(
            row.description,
            row.text if row.perturbation != "original" else "ORIGINAL",
            *(f"{values[f]:.2f} ({row.change[f]:+.2f})" for f in SCORE_FIELDS),
        )
    console.print(table)
    labels = load_empathy_labels(data or BUNDLED_EMPATHY_LABELS)
    texts = [r.response for r in labels.part("test")] or [r.response for r in labels.records]
    summary = robustness_summary(scorer, texts, seed=seed)
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
    _write_json(
        output,
        {
            "table": [row.model_dump(mode="json") for row in rows],
            "summary": summary.model_dump(mode="json"),
        },
    )


def register(app: typer.Typer) -> None:
    app.command("score")(_score)
    app.add_typer(scorer_app, name="scorer")
