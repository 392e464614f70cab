"""How judging results are shown in the terminal."""

from __future__ import annotations

from empathybench.cli.console import console
from empathybench.judging.offline_judge import judge_label
from empathybench.judging.run_judges import JudgeRunResult


def print_judging(result: JudgeRunResult) -> None:
    """Each judge's self-judge decision, then how many items were judged and skipped."""
    for decision in result.decisions:
        console.print(f"judge {judge_label(decision.judge)}: {decision.reason}", highlight=False)
    console.print(
        f"judged {result.judged} item(s); {result.skipped} already judged", highlight=False
    )
