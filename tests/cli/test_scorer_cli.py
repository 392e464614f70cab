"""The scorer and offline-judge commands, end to end in real processes with the bundled encoder."""

import json
import re
from pathlib import Path

import pytest

from tests.fakes.cli_process import run_cli as cli

pytest.importorskip("torch")

pytestmark = pytest.mark.torch


def test_score_prints_the_four_scores(tmp_path: Path) -> None:
    result = cli(
        "score",
        "That sounds exhausting. Would it help to plan the talk with your sister together?",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    numbers = [float(x) for x in re.findall(r"\b\d\.\d\d\b", result.stdout)]
    assert len(numbers) == 4 and all(1.0 <= n <= 3.0 for n in numbers)
    assert numbers[3] == pytest.approx(sum(numbers[:3]) / 3, abs=0.011)


def test_score_rejects_empty_text_and_bad_heads_in_one_line(tmp_path: Path) -> None:
    empty = cli("score", "  ", cwd=tmp_path)
    assert empty.returncode == 2 and "error: nothing to score" in empty.stderr
    missing = cli("score", "hello", "--head", str(tmp_path), cwd=tmp_path)
    assert missing.returncode == 2 and "not a scorer head" in missing.stderr
    assert "Traceback" not in empty.stderr + missing.stderr


def test_robustness_writes_the_seed_table_and_summary(tmp_path: Path) -> None:
    result = cli("scorer", "robustness", "-o", "robust.json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads((tmp_path / "robust.json").read_text())
    assert [row["perturbation"] for row in data["table"]] == [
        "original",
        "excessive_punctuation",
        "homoglyphs",
        "misspellings",
        "leetspeak",
        "shortened",
        "elevated",
        "casual",
    ]
    assert all(
        set(row["change"]) == {"cognitive", "emotional", "behavioral", "empathy"}
        for row in data["table"]
    )
    assert len(data["summary"]["effects"]) == 7 and data["summary"]["texts"] > 50


def test_train_and_eval_an_empathy_head(tmp_path: Path) -> None:
    trained = cli("scorer", "train", "-o", "head", "--epochs", "5", cwd=tmp_path)
    assert trained.returncode == 0, trained.stderr
    config = json.loads((tmp_path / "head" / "config.json").read_text())
    assert config["task"] == "empathy" and len(config["loss_history"]) == 5
    assert config["metrics"]["n_test"] > 50
    evaluated = cli("scorer", "eval", "--head", "head", "-o", "eval.json", cwd=tmp_path)
    assert evaluated.returncode == 0, evaluated.stderr
    assert "train mean" in evaluated.stdout and "0.352" in evaluated.stdout
    assert "reply length in words" in evaluated.stdout
    figures = json.loads((tmp_path / "eval.json").read_text())
    assert figures["mse"]["mse"] == config["metrics"]["mse"]
    rows = {row["name"]: row for row in figures["agreement"]["rows"]}
    assert set(rows) == {"signals head", "length", "lexicon"}
    for row in rows.values():
        assert set(row["spearman"]) == {"cognitive", "emotional", "behavioral", "empathy"}
        empathy = row["spearman"]["empathy"]
        assert empathy["low"] <= empathy["rho"] <= empathy["high"]
    assert figures["agreement"]["n"] == config["metrics"]["n_test"]
    bad = cli("scorer", "eval", "--head", "head", "--split", "dev", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.startswith("error: unknown split")


def test_run_uses_the_offline_judge_by_default_then_distils_an_llm_judge(tmp_path: Path) -> None:
    run = cli(
        "run",
        "--model",
        "mock/tested",
        "--limit",
        "30",
        "--no-progress",
        "--run-dir",
        "r",
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert "offline (approximate)" in run.stdout
    assert json.loads((tmp_path / "r" / "summary.json").read_text())["judges"] == ["offline"]
    judged = cli("judge", "r", "--judge", "mock/judge-a", "--no-progress", cwd=tmp_path)
    assert judged.returncode == 0, judged.stderr
    assert json.loads((tmp_path / "r" / "summary.json").read_text())["judges"] == ["mock/judge-a"]
    distilled = cli(
        "scorer",
        "train",
        "--from-run",
        "r",
        "--judge",
        "mock/judge-a",
        "-o",
        "mine",
        "--epochs",
        "3",
        cwd=tmp_path,
    )
    assert distilled.returncode == 0, distilled.stderr
    assert "test split" in distilled.stdout and "calibration-v1" in distilled.stdout
    config = json.loads((tmp_path / "mine" / "config.json").read_text())
    assert config["task"] == "judge" and config["data"]["distilled_from"] == "mock/judge-a"
    again = cli("judge", "r", "--judge", "offline:mine", "--no-progress", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "r" / "verdicts" / "offline-mine.jsonl").is_file()


def test_distilling_needs_a_judge_that_scored_the_run(tmp_path: Path) -> None:
    run = cli(
        "run",
        "--model",
        "mock/tested",
        "--limit",
        "3",
        "--no-progress",
        "--no-judge",
        "--run-dir",
        "r",
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    result = cli("scorer", "train", "--from-run", "r", "--judge", "mock/x", "-o", "h", cwd=tmp_path)
    assert result.returncode == 2 and "no verdicts from judge" in result.stderr
    result = cli("scorer", "train", "--from-run", "r", "-o", "h", cwd=tmp_path)
    assert result.returncode == 2 and "needs --judge" in result.stderr
