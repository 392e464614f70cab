"""Offline-judged runs: labelled approximate everywhere, never ranked beside LLM judges."""

from pathlib import Path

import pytest

from empathybench.analysis.leaderboard import build_leaderboard
from empathybench.analysis.run_sets import load_runs
from empathybench.records import Suite
from empathybench.report.run_report import write_report
from tests.fakes.mock_runs import make_run

pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def test_offline_runs_are_labelled_and_kept_off_llm_leaderboards(
    small_suite: Suite, small_suite_path: Path, tmp_path: Path
) -> None:
    from empathybench.judging.offline_runs import judge_run_offline

    offline = make_run(tmp_path / "runs" / "offline", small_suite, small_suite_path, "mock/a")
    judge_run_offline(offline)
    judged = make_run(
        tmp_path / "runs" / "llm", small_suite, small_suite_path, "mock/b", judges=["mock/judge-a"]
    )
    write_report([offline, judged], tmp_path / "report")
    markdown = (tmp_path / "report" / "results.md").read_text()
    assert "| mock/a | offline (approximate) |" in markdown
    html = (tmp_path / "report" / "report.html").read_text()
    assert "Judge offline (approximate)" in html and "offline (approximate): scores" in html
    assert "Judge offline<" not in html

    runs, unreadable = load_runs([tmp_path / "runs"])
    board = build_leaderboard(runs, unreadable)
    assert len(board.entries) == 1 and len(board.left_out) == 1
    reason = board.left_out[0].reason
    assert "offline (approximate)" in reason and "never ranked beside LLM-judged" in reason
