"""``report``, ``leaderboard`` and ``item-analysis`` from the command line (real processes)."""

import csv
import io
import json
from pathlib import Path

import pytest

from empathybench.records import Suite
from tests.fakes.cli_process import run_cli as cli
from tests.fakes.mock_runs import make_run


@pytest.fixture(scope="module")
def runs_folder(
    small_suite: Suite, small_suite_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    folder = tmp_path_factory.mktemp("cli-runs")
    panel = ("mock/judge-a", "mock/judge-b")
    for name in ("alpha", "beta", "gamma"):
        make_run(folder / name, small_suite, small_suite_path, f"mock/{name}", judges=panel)
    make_run(folder / "solo", small_suite, small_suite_path, "mock/solo", judges=panel[:1])
    return folder


def test_report_of_one_run_writes_into_the_run(runs_folder: Path, tmp_path: Path) -> None:
    result = cli("report", str(runs_folder / "alpha"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "mock/alpha" in result.stdout and "report.html" in result.stdout
    for name in ("summary.json", "results.md", "results.csv", "secondary_metrics.json"):
        assert (runs_folder / "alpha" / name).stat().st_size > 0
    assert (runs_folder / "alpha" / "figures" / "dimensions.svg").is_file()
    assert json.loads((runs_folder / "alpha" / "summary.json").read_text())["model"] == "mock/alpha"


def test_bad_input_is_one_error_line_and_exit_2(runs_folder: Path, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_text("{not json")
    cases = {
        ("report", str(runs_folder / "alpha"), str(runs_folder / "beta")): "needs --output",
        ("report", "missing"): "no such file or directory",
        ("report", "empty"): "no runs inside",
        ("leaderboard", "broken"): "not valid JSON",
    }
    for args, message in cases.items():
        result = cli(*args, cwd=tmp_path)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert message in result.stderr and "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1


def test_leaderboard_over_a_folder_ranks_the_comparable_runs(
    runs_folder: Path, tmp_path: Path
) -> None:
    result = cli("leaderboard", str(runs_folder), "-o", "board", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "left out mock/solo: different judges" in result.stdout
    rows = list(csv.DictReader(io.StringIO((tmp_path / "board" / "leaderboard.csv").read_text())))
    assert sorted(row["model"] for row in rows) == ["mock/alpha", "mock/beta", "mock/gamma"]
    overall = [float(row["overall_mean"]) for row in rows]
    assert overall == sorted(overall, reverse=True)
    assert rows[0]["rank"] == "1"
    assert rows[0]["p_value_to_next"] and not rows[-1]["p_value_to_next"]
    board = json.loads((tmp_path / "board" / "leaderboard.json").read_text())
    assert board["schema_version"] == 1 and board["left_out"][0]["label"] == "mock/solo"
    assert (tmp_path / "board" / "leaderboard.html").read_text().startswith("<!DOCTYPE html>")


def test_item_analysis_with_a_key_judge(runs_folder: Path, tmp_path: Path) -> None:
    result = cli(
        "item-analysis", str(runs_folder), "-o", "items", "--key-judge", "mock/keys", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    analysis = json.loads((tmp_path / "items" / "item_analysis.json").read_text())
    assert len(analysis["items"]) == 30 and analysis["key_judges"] == ["mock/keys"]
    assert (
        len((tmp_path / "items" / "key_checks" / "mock-keys.jsonl").read_text().splitlines()) == 30
    )
    assert "flagged" in result.stdout
    again = cli(
        "item-analysis", str(runs_folder), "-o", "items", "--key-judge", "mock/keys", cwd=tmp_path
    )
    assert again.returncode == 0, again.stderr  # resumed: no new checks appended
    assert (
        len((tmp_path / "items" / "key_checks" / "mock-keys.jsonl").read_text().splitlines()) == 30
    )
