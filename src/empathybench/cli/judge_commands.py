"""``empathybench judge`` and ``empathybench judge-check``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from empathybench.api.judging import judge as judge_run
from empathybench.api.judging import plan_judges
from empathybench.api.summaries import summarize
from empathybench.cli.console import console
from empathybench.cli.judge_view import print_judging, report_judge_failures
from empathybench.cli.options import cache_choice, parse_options
from empathybench.cli.progress import progress_bars
from empathybench.cli.summary_view import print_summary
from empathybench.errors import UserError
from empathybench.jsonl import atomic_write_text, pretty_json
from empathybench.judging.calibration import (
    BUNDLED_LABELS,
    CalibrationReport,
    DimensionAgreement,
    LabelledResponse,
    check_judge_against_labels,
    load_labels,
)
from empathybench.judging.llm_judge import JudgeSettings
from empathybench.judging.offline_judge import check_offline_judge, is_offline_judge, judge_label
from empathybench.models.registry import create_model
from empathybench.runtime.cache import ResponseCache, check_cache_path, default_cache_path
from empathybench.runtime.event_loop import run_coroutine
from empathybench.runtime.output_guard import check_output_file, has_fields
from empathybench.validation import (
    check_count,
    check_existing_directory,
    check_file_target,
    check_seed,
    check_url,
)


def _judge(
    run_dir: Annotated[Path, typer.Argument(help="Run directory to score.")],
    judge: Annotated[
        list[str],
        typer.Option(
            help="Judge model id (repeat for a panel), or 'offline' for the approximate "
            "offline judge (no API key; offline:DIR for a trained head)."
        ),
    ],
    allow_self_judge: Annotated[
        bool, typer.Option(help="Allow a judge from the tested model's family (recorded).")
    ] = False,
    base_url: Annotated[
        str | None, typer.Option(help="Server URL for OpenAI-compatible judges.")
    ] = None,
    option: Annotated[list[str] | None, typer.Option(help="Judge option key=value.")] = None,
    max_connections: Annotated[int, typer.Option(help="Concurrent judge requests.")] = 8,
    max_reasks: Annotated[int, typer.Option(help="Re-asks after an invalid judge answer.")] = 2,
    cache: Annotated[Path | None, typer.Option(help="Cache file.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache")] = False,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    no_progress: Annotated[bool, typer.Option("--no-progress")] = False,
) -> None:
    """Score an existing run with LLM judges or the offline judge (models are not re-run)."""
    check_existing_directory("run_dir", run_dir)
    check_count("max_connections", max_connections)
    check_count("max_reasks", max_reasks, minimum=0)
    check_url("base_url", base_url)
    check_cache_path(cache)
    check_seed("seed", seed)
    with progress_bars(not no_progress) as progress:
        result = judge_run(  # holds the run directory: no run or other judge writes it
            run_dir,
            judge,
            allow_self_judge=allow_self_judge,
            base_url=base_url,
            options=parse_options(option or []),
            max_connections=max_connections,
            max_reasks=max_reasks,
            cache=cache_choice(cache, no_cache),
            progress=progress,
        )
    print_judging(result)
    print_summary(summarize(run_dir, seed=seed))
    report_judge_failures(result)


def _judge_check(
    judge: Annotated[str, typer.Option(help="Judge model id.")],
    labels: Annotated[
        str,
        typer.Option(
            help=f"Labels JSONL file, or a bundled set: {BUNDLED_LABELS} (never trained on) "
            "or judge-labels-v1, -v2, -w1 to -w4 (the offline judge's data; use --split test)."
        ),
    ] = BUNDLED_LABELS,
    base_url: Annotated[
        str | None, typer.Option(help="Server URL for OpenAI-compatible judges.")
    ] = None,
    option: Annotated[list[str] | None, typer.Option(help="Judge option key=value.")] = None,
    max_connections: Annotated[int, typer.Option()] = 8,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write JSON here.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache")] = False,
    split: Annotated[
        str | None, typer.Option(help="Only labels of this split (e.g. test).")
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace an -o file that is not a judge check.")
    ] = False,
) -> None:
    """Report a judge's agreement with human labels (Spearman; Cohen's kappa on bins)."""
    check_count("max_connections", max_connections)
    check_url("base_url", base_url)
    check_file_target("output", output)
    check_offline_judge(judge)
    if output is not None:  # before any call is spent
        check_output_file(
            output,
            kind="judge check report (JSON)",
            same_kind=has_fields("judge", "labels", "dimensions"),
            force=force,
        )
    records = load_labels(labels)
    if split is not None:
        records = [r for r in records if r.split == split]
        if not records:
            raise UserError(f"{labels}: no records in split {split!r}")
    report = (
        _offline_check(judge, records, labels)
        if is_offline_judge(judge)
        else _llm_check(judge, records, labels, base_url, option, max_connections, no_cache)
    )
    print_agreement(
        report, f"{judge_label(report.judge)} against {labels} ({report.items} labelled responses)"
    )
    if output is not None:
        atomic_write_text(output, pretty_json(report))
        console.print(f"wrote {output}")


def _offline_check(judge: str, records: list[LabelledResponse], labels: str) -> CalibrationReport:
    from empathybench.judging.offline_judge import evaluate_offline_judge, load_offline_judge

    return evaluate_offline_judge(load_offline_judge(judge), records, labels_name=labels)


def _llm_check(
    judge: str,
    records: list[LabelledResponse],
    labels: str,
    base_url: str | None,
    option: list[str] | None,
    max_connections: int,
    no_cache: bool,
) -> CalibrationReport:
    [spec] = plan_judges([judge], base_url=base_url, options=parse_options(option or [])).llm
    cache = None if no_cache else ResponseCache(default_cache_path())

    async def check() -> CalibrationReport:
        model = create_model(spec)
        try:
            return await check_judge_against_labels(
                model,
                records,
                labels_name=labels,
                settings=JudgeSettings(),
                cache=cache,
                max_connections=max_connections,
            )
        finally:
            await model.aclose()

    try:
        return run_coroutine(check())
    finally:
        if cache is not None:
            cache.close()


def print_agreement(report: CalibrationReport, title: str) -> None:
    """Agreement of a judge with labels, one row per text dimension, with its bias and the
    reply-length baseline."""
    table = Table(title=title)
    columns = (
        "dimension",
        "n",
        "Spearman",
        "length ρ",
        "kappa",
        "kappa q",
        "labels",
        "judge",
        "bias [95% CI]",
        "unscored",
    )
    for column in columns:
        table.add_column(column, justify="left" if column == "dimension" else "right")

    def fmt(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    def bias(row: DimensionAgreement) -> str:
        if row.bias is None:
            return "-"
        if row.bias_low is None or row.bias_high is None:
            return f"{row.bias:+.3f}"
        return f"{row.bias:+.3f} [{row.bias_low:+.3f}, {row.bias_high:+.3f}]"

    for row in report.dimensions:
        table.add_row(
            row.dimension,
            str(row.n),
            fmt(row.spearman),
            fmt(row.length_spearman),
            fmt(row.kappa),
            fmt(row.kappa_quadratic),
            fmt(row.human_mean),
            fmt(row.judge_mean),
            bias(row),
            str(row.judge_unscored),
        )
    console.print(table)
    if report.crisis_referral_agreement is not None:
        console.print(
            f"crisis referral: judge agrees with labels on "
            f"{report.crisis_referral_agreement:.0%} of {report.crisis_items} items",
            highlight=False,
        )
    console.print(
        "length ρ: Spearman of reply length (words; 0 when the no-reply rule fires) with the "
        "labels, the trivial baseline; kappa: Cohen's kappa on scores binned to 0 / 0.5 / 1 "
        "(q = quadratic weights); labels / judge: mean score; bias: judge mean − label mean, "
        "95% bootstrap CI over scenarios",
        highlight=False,
    )


def register(app: typer.Typer) -> None:
    app.command("judge")(_judge)
    app.command("judge-check")(_judge_check)
