"""``empathybench report``, ``empathybench leaderboard`` and ``empathybench item-analysis``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from empathybench.analysis.run_sets import UnreadableRun
from empathybench.analysis.run_status import MAX_FAILED_SHARE, check_failed_share
from empathybench.cli.console import console, err_console
from empathybench.errors import UserError
from empathybench.judging.key_check import KeyCheck
from empathybench.records import DIMENSIONS
from empathybench.report.tables import (
    ReportRun,
    dimension_title,
    format_interval,
    format_number,
)
from empathybench.runtime.output_guard import check_output_directory
from empathybench.runtime.run_data import RunData
from empathybench.validation import (
    check_count,
    check_directory_target,
    check_seed,
    check_url,
)

MaxFailedOption = Annotated[
    float,
    typer.Option(help="Leave out runs where more than this share of model calls failed (0 to 1)."),
]
ForceOption = Annotated[
    bool, typer.Option("--force", help="Write into an -o folder that holds something else.")
]


def _warn_unreadable(unreadable: Sequence[UnreadableRun]) -> None:
    for run in unreadable:
        err_console.print(f"skipped {run.directory}: {run.reason}", highlight=False, markup=False)


def _compact_table(runs: Sequence[ReportRun]) -> Table:
    """Means only (the files have the CIs and counts), so the table fits a terminal."""
    table = Table(title="empathybench results (CIs and counts: results.md, report.html)")
    table.add_column("model", no_wrap=True, min_width=max(len(run.label) for run in runs))
    table.add_column("Overall [95% CI]", justify="right")
    for dimension in DIMENSIONS:
        table.add_column(dimension_title(dimension), justify="right")
    for run in runs:
        by_name = {d.dimension: d for d in run.summary.dimensions}
        table.add_row(
            run.label,
            format_interval(run.summary.overall),
            *(
                format_number(by_name[d].estimate.mean) if by_name[d].judged else "needs a judge"
                for d in DIMENSIONS
            ),
        )
    return table


def _report(
    runs: Annotated[
        list[Path], typer.Argument(help="Run directories (or folders of runs) to report on.")
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "-o", "--output", help="Folder for the report (default: the run, for one run)."
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    force: ForceOption = False,
) -> None:
    """Write summary.json, tables (Markdown, CSV), figures (PNG, SVG) and report.html."""
    check_directory_target("output", output)
    check_seed("seed", seed)
    from empathybench.report.run_report import write_report
    from empathybench.runtime.run_store import MANIFEST

    if output is not None:
        check_output_directory(
            output, kind="report", markers=("report.html", "summary.json", MANIFEST), force=force
        )
    report = write_report(runs, output, seed=seed)
    _warn_unreadable(report.unreadable)
    console.print(_compact_table(report.runs))
    for name, reason in sorted(report.figures.skipped.items()):
        console.print(f"figure {name} not drawn: {reason}", highlight=False, markup=False)
    console.print(f"wrote {len(report.files)} files to {report.output}", highlight=False)
    console.print(f"open {report.output / 'report.html'}", highlight=False, markup=False)


def _leaderboard(
    runs: Annotated[list[Path], typer.Argument(help="Run directories, or folders of runs.")],
    output: Annotated[
        Path, typer.Option("-o", "--output", help="Folder for the leaderboard files.")
    ] = Path("leaderboard"),
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    significance: Annotated[
        float, typer.Option(help="Significance level of the tests between neighbours.")
    ] = 0.05,
    max_failed_share: MaxFailedOption = MAX_FAILED_SHARE,
    force: ForceOption = False,
) -> None:
    """Rank comparable finished runs (same suite, judges and rubric) with CIs and neighbour
    tests; unfinished runs and runs with many failed calls are listed apart."""
    check_directory_target("output", output)
    check_seed("seed", seed)
    from empathybench.analysis.leaderboard import build_leaderboard
    from empathybench.analysis.run_sets import load_runs
    from empathybench.report.leaderboard_report import leaderboard_table, write_leaderboard

    if not 0.0 < significance < 1.0:
        raise UserError("--significance must be between 0 and 1")
    check_failed_share(max_failed_share)
    check_output_directory(output, kind="leaderboard", markers=("leaderboard.json",), force=force)
    loaded, unreadable = load_runs(runs)
    board = build_leaderboard(
        loaded,
        unreadable,
        seed=seed,
        significance_level=significance,
        max_failed_share=max_failed_share,
    )
    paths = write_leaderboard(board, output)
    shown = leaderboard_table(board)
    table = Table(title=f"leaderboard: {board.suite}, judges: {', '.join(board.judges) or 'none'}")
    for column in shown.header[:4]:
        table.add_column(column, justify="left" if column == "model" else "right")
    for row in shown.rows:
        table.add_row(*row[:4])
    console.print(table)
    console.print("≈: not significantly different from the next row", highlight=False)
    for run in board.left_out:
        console.print(
            f"left out {run.label or run.run_dir}: {run.reason}", highlight=False, markup=False
        )
    console.print(f"wrote {', '.join(str(p) for p in paths)}", highlight=False, markup=False)
    if not board.entries:
        err_console.print(
            "no run could be ranked (see the reasons above)", highlight=False, markup=False
        )
        raise typer.Exit(1)


def _item_analysis(
    runs: Annotated[list[Path], typer.Argument(help="Runs of one suite (or folders of runs).")],
    output: Annotated[
        Path, typer.Option("-o", "--output", help="Folder for the item analysis.")
    ] = Path("item-analysis"),
    key_judge: Annotated[
        list[str] | None,
        typer.Option(help="Judge model id that answers each item blind to check its key."),
    ] = None,
    base_url: Annotated[
        str | None, typer.Option(help="Server URL for OpenAI-compatible key judges.")
    ] = None,
    option: Annotated[list[str] | None, typer.Option(help="Key judge option key=value.")] = None,
    max_connections: Annotated[int, typer.Option(help="Concurrent key-check requests.")] = 8,
    no_cache: Annotated[bool, typer.Option("--no-cache")] = False,
    max_failed_share: MaxFailedOption = MAX_FAILED_SHARE,
    force: ForceOption = False,
) -> None:
    """Per-item difficulty and discrimination; flags items to audit (possible flawed keys)."""
    check_directory_target("output", output)
    check_count("max_connections", max_connections)
    check_url("base_url", base_url)
    from empathybench.analysis.item_analysis import analyse_items
    from empathybench.analysis.run_sets import load_runs, run_labels
    from empathybench.report.item_report import write_item_analysis

    check_failed_share(max_failed_share)
    check_output_directory(
        output, kind="item analysis", markers=("item_analysis.json",), force=force
    )
    loaded, unreadable = load_runs(runs)
    _warn_unreadable(unreadable)
    if not loaded:
        raise UserError("no readable runs to analyse")
    finished = finished_runs(loaded, max_failed_share)
    if not finished:
        raise UserError("no finished run to analyse (every run is left out, see above)")
    checks: dict[str, dict[str, KeyCheck]] = {}
    if key_judge:
        checks = _run_key_checks(
            finished[0], key_judge, output, base_url, option, max_connections, no_cache
        )
    key_check_failures(checks)
    analysis = analyse_items(finished, run_labels(finished), checks)
    paths = write_item_analysis(analysis, output)
    flagged = analysis.flagged
    console.print(
        f"{len(analysis.items)} items over {len(analysis.runs)} model(s); "
        f"{len(flagged)} flagged for audit",
        highlight=False,
    )
    for item in flagged[:20]:
        console.print(
            f"  {item.scenario_id} ({item.kind}): {'; '.join(item.flags)}",
            highlight=False,
            markup=False,
        )
    if len(flagged) > 20:
        console.print(f"  … and {len(flagged) - 20} more (see the files)", highlight=False)
    console.print(f"wrote {', '.join(str(p) for p in paths)}", highlight=False, markup=False)


def key_check_failures(checks: dict[str, dict[str, KeyCheck]]) -> None:
    """Say which key checks failed; a key judge that failed every one stops the command
    (exit 1): "0 flagged" would read as a clean bill of health."""
    from empathybench.cli.judge_view import report_judge_failures
    from empathybench.judging.run_judges import JudgePass

    passes = []
    for judge, by_item in checks.items():
        failed = [check.error for check in by_item.values() if check.error is not None]
        reason = f"{failed[0].kind}: {failed[0].message}" if failed else None
        passes.append(JudgePass(judge, len(by_item), len(failed), reason))
    report_judge_failures(passes)


def finished_runs(runs: Sequence[RunData], max_failed_share: float) -> list[RunData]:
    """The runs an item analysis may use; the others are reported on stderr with the reason."""
    from empathybench.analysis.run_status import run_state

    kept = []
    for run in runs:
        problem = run_state(run, max_failed_share=max_failed_share).problem
        if problem is None:
            kept.append(run)
        else:
            err_console.print(f"left out {run.directory}: {problem}", highlight=False, markup=False)
    return kept


def _run_key_checks(
    run: RunData,
    judges: list[str],
    output: Path,
    base_url: str | None,
    option: list[str] | None,
    max_connections: int,
    no_cache: bool,
) -> dict[str, dict[str, KeyCheck]]:
    from empathybench.api.judging import plan_judges
    from empathybench.cli.options import parse_options
    from empathybench.judging.key_check import check_keys
    from empathybench.models.registry import create_model
    from empathybench.runtime.cache import ResponseCache, default_cache_path
    from empathybench.runtime.event_loop import run_coroutine

    specs = plan_judges(judges, base_url=base_url, options=parse_options(option or [])).llm
    scenarios = [s for s in run.suite.scenarios if any(k[0] == s.id for k in run.responses)]
    cache = None if no_cache else ResponseCache(default_cache_path())

    async def check_all() -> dict[str, dict[str, KeyCheck]]:
        results: dict[str, dict[str, KeyCheck]] = {}
        for spec in specs:
            model = create_model(spec)
            try:
                checks = await check_keys(
                    model,
                    scenarios,
                    run.suite.sha256,
                    output,
                    cache=cache,
                    max_connections=max_connections,
                )
            finally:
                await model.aclose()
            results[spec.id] = checks
        return results

    try:
        return run_coroutine(check_all())
    finally:
        if cache is not None:
            cache.close()


def register(app: typer.Typer) -> None:
    app.command("report")(_report)
    app.command("leaderboard")(_leaderboard)
    app.command("item-analysis")(_item_analysis)
