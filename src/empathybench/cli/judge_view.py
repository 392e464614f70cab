"""How judging results are shown in the terminal."""

from __future__ import annotations

import typer

from empathybench.cli.console import console, err_console
from empathybench.judging.offline_judge import judge_label
from empathybench.judging.run_judges import JudgePass, JudgeRunResult


def print_judging(result: JudgeRunResult) -> None:
    """Each judge's self-judge decision, then how many items were judged and skipped."""
    for decision in result.decisions:
        console.print(f"judge {judge_label(decision.judge)}: {decision.reason}", highlight=False)
    failed = sum(p.failed for p in result.passes)
    console.print(
        f"judged {result.judged - failed} item(s), {failed} failed; "
        f"{result.skipped} already judged",
        highlight=False,
    )


def report_judge_failures(result: JudgeRunResult | list[JudgePass]) -> None:
    """One line per judge whose judgements failed; exit 1 when a judge failed every one
    (the stage did not happen: a wrong key, an unreachable server)."""
    passes = result.passes if isinstance(result, JudgeRunResult) else result
    stage_failed = False
    for judge_pass in passes:
        if not judge_pass.failed:
            continue
        every = judge_pass.all_failed
        stage_failed |= every
        err_console.print(
            f"{'error' if every else 'warning'}: judge {judge_pass.judge}: {judge_pass.failed} "
            f"of {judge_pass.attempted} judgement(s) failed "
            f"({judge_pass.first_error or 'no verdict'}); they stay unscored and are "
            "tried again by the next call",
            highlight=False,
            markup=False,
        )
    if stage_failed:
        raise typer.Exit(1)
