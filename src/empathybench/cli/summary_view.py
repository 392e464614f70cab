"""How a run summary is shown in the terminal."""

from __future__ import annotations

from rich.table import Table

from empathybench.analysis.summary import Interval, RunSummary, origin_note
from empathybench.cli.console import console
from empathybench.judging.offline_judge import judge_label
from empathybench.judging.rubric import RUBRIC


def _cell(interval: Interval) -> str:
    if interval.mean is None:
        return "-"
    if interval.low is None or interval.high is None:
        return f"{interval.mean:.3f}"
    return f"{interval.mean:.3f} [{interval.low:.3f}, {interval.high:.3f}]"


def print_summary(summary: RunSummary) -> None:
    judges = (
        ", ".join(judge_label(judge) for judge in summary.judges)
        if summary.judges
        else "none (deterministic dimensions only)"
    )
    table = Table(title=f"{summary.model} on {summary.suite} — judges: {judges}")
    columns = ("dimension", "mean [95% CI]", "guessing", "scored", "n/a", "unscored", "unparsed")
    for column in columns:
        table.add_column(column, justify="left" if column == "dimension" else "right")
    for dimension in summary.dimensions:
        title = RUBRIC[dimension.dimension].title  # type: ignore[index]
        if not dimension.judged:
            table.add_row(title, "needs a judge", "-", "-", str(dimension.na), "-", "-")
            continue
        table.add_row(
            title,
            _cell(dimension.estimate),
            f"{dimension.guess:.3f}" if dimension.guess is not None else "-",
            str(dimension.scored),
            str(dimension.na),
            str(dimension.unscored),
            str(dimension.parse_failures),
        )
    table.add_row(
        "[bold]Overall (item mean)[/]",
        _cell(summary.overall),
        "",
        str(summary.overall.n),
        "",
        "",
        "",
    )
    console.print(table)
    if summary.seed_overall is not None:
        console.print(
            f"seed-compatible overall (mean of dimension means): {summary.seed_overall:.3f}",
            highlight=False,
        )
    if summary.failed_responses:
        console.print(
            f"{summary.failed_responses} item(s) have no answer (failed calls): "
            "their applicable dimensions are unscored.",
            highlight=False,
        )
    if summary.no_reply:
        kinds = ", ".join(f"{kind} {n}" for kind, n in summary.no_reply_kinds.items())
        console.print(
            f"{summary.no_reply} answer(s) hold no reply to the person ({kinds}): "
            "their text dimensions score 0 by rule, before any judge.",
            highlight=False,
        )
    if summary.degenerate:
        console.print(
            f"{summary.degenerate} reply(ies) loop (flagged as degenerate, not scored down).",
            highlight=False,
        )
    if summary.crisis_referral is not None:
        console.print(
            f"crisis items pointing to real help: {_cell(summary.crisis_referral)}", highlight=False
        )
    if len(summary.judges) > 1:
        agreement = ", ".join(
            f"{d} {a:.2f}" if a is not None else f"{d} -" for d, a in summary.agreement.items()
        )
        console.print(f"judge agreement (Krippendorff's alpha): {agreement}", highlight=False)
    for note in origin_note([summary]):
        console.print(note, highlight=False)
    console.print(
        "Unparsed answers score 0 on that dimension; unscored items are excluded "
        "from means, never counted as 0. guessing: what a random option (emotion) or "
        "always the commoner yes/no answer (help; a random person or nobody on group items "
        "that ask who) scores on the same items.",
        highlight=False,
    )
