"""Running and judging from the command line, with mock models (real processes)."""

import json
from pathlib import Path

from tests.fakes.cli_process import run_cli as cli


def test_run_then_judge_with_a_panel_writes_verdicts_and_a_summary(tmp_path: Path) -> None:
    run = cli(
        "run",
        "--model",
        "mock/tested",
        "--limit",
        "20",
        "--no-progress",
        "--no-judge",
        "--run-dir",
        "r",
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert "needs a judge" in run.stdout
    judged = cli(
        "judge",
        "r",
        "--judge",
        "mock/judge-a",
        "--judge",
        "mock/judge-b",
        "--no-progress",
        cwd=tmp_path,
    )
    assert judged.returncode == 0, judged.stderr
    assert "Krippendorff" in judged.stdout and "Cheering Up" in judged.stdout
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["judges"] == ["mock/judge-a", "mock/judge-b"]
    assert {d["dimension"] for d in summary["dimensions"] if d["judged"]} == {
        "moral_behavior",
        "willingness_to_help",
        "emotion_recognition",
        "cheering_up",
        "assistance_needed",
        "assistance_appropriateness",
    }
    assert len(list((tmp_path / "r" / "verdicts").glob("*.jsonl"))) == 2


def test_a_self_judge_is_refused_before_any_model_call(tmp_path: Path) -> None:
    result = cli(
        "run",
        "--model",
        "mock/tested",
        "--judge",
        "mock/tested-too",
        "--limit",
        "2",
        "--no-progress",
        "--run-dir",
        "r",
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert "same family" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "r").exists()


def test_judging_a_directory_that_is_not_a_run_is_one_clear_error(tmp_path: Path) -> None:
    result = cli("judge", str(tmp_path), "--judge", "mock/j", cwd=tmp_path)
    assert result.returncode == 2
    assert "not a run directory" in result.stderr
