"""The report's numbers against a hand computation over runs made by the real pipeline."""

import csv
import io
import json
import re
from pathlib import Path

import pytest

from empathybench.judging.rubric import TEXT_DIMENSIONS
from empathybench.records import DIMENSIONS, Suite
from empathybench.report.run_report import write_report
from tests.fakes.mock_runs import make_run


@pytest.fixture(scope="module")
def two_runs(
    small_suite: Suite, small_suite_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> list[Path]:
    base = tmp_path_factory.mktemp("report-runs")
    judges = ("mock/judge-a", "mock/judge-b")
    return [
        make_run(base / "alpha", small_suite, small_suite_path, "mock/alpha", judges=judges),
        make_run(
            base / "beta", small_suite, small_suite_path, "mock/beta", judges=judges, epochs=2
        ),
    ]


def hand_computed(run_dir: Path, suite: Suite) -> dict[str, float]:
    """Means straight from the files: no code of the package beyond reading JSON."""
    scenarios = {s.id: s for s in suite.scenarios}
    responses = [
        json.loads(line) for line in (run_dir / "responses.jsonl").read_text().splitlines()
    ]
    verdicts: dict[tuple[str, int], list[dict[str, object]]] = {}
    for path in sorted((run_dir / "verdicts").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            verdicts.setdefault((record["scenario_id"], record["epoch"]), []).append(record)
    values: dict[str, list[float]] = {d: [] for d in DIMENSIONS}
    overall: list[float] = []
    for response in responses:
        scenario = scenarios[response["scenario_id"]]
        letter = re.search(r"EMOTION: ([ABC])", response["text"]).group(1)  # type: ignore[union-attr]
        help_answer = re.search(r"NEEDS_HELP: (yes|no)", response["text"]).group(1)  # type: ignore[union-attr]
        item = {
            "emotion_recognition": float(letter == scenario.correct_letter),
            "assistance_needed": float((help_answer == "yes") == scenario.expected.help_needed),
        }
        for dimension in TEXT_DIMENSIONS:
            if dimension in scenario.dimensions:
                scores = [
                    v["scores"][dimension]["value"]
                    for v in verdicts[(scenario.id, response["epoch"])]
                ]
                item[dimension] = sum(scores) / len(scores)
        for dimension, value in item.items():
            values[dimension].append(value)
        overall.append(sum(item.values()) / len(item))
    means = {d: sum(v) / len(v) for d, v in values.items()}
    means["overall"] = sum(overall) / len(overall)
    means["seed_overall"] = sum(means[d] for d in DIMENSIONS) / len(DIMENSIONS)
    return means


def test_table_numbers_match_a_hand_computation(
    two_runs: list[Path], small_suite: Suite, tmp_path: Path
) -> None:
    report = write_report(two_runs, tmp_path / "out")
    rows = list(csv.DictReader(io.StringIO((tmp_path / "out" / "results.csv").read_text())))
    assert [row["model"] for row in rows] == ["mock/alpha", "mock/beta"]
    markdown = (tmp_path / "out" / "results.md").read_text()
    for run_dir, row in zip(two_runs, rows, strict=True):
        expected = hand_computed(run_dir, small_suite)
        for dimension in DIMENSIONS:
            assert float(row[f"{dimension}_mean"]) == pytest.approx(expected[dimension])
            low, high = float(row[f"{dimension}_ci_low"]), float(row[f"{dimension}_ci_high"])
            assert low <= expected[dimension] <= high
            assert f"{expected[dimension]:.3f} [{low:.3f}, {high:.3f}]" in markdown
        assert float(row["overall_mean"]) == pytest.approx(expected["overall"])
        assert float(row["seed_overall"]) == pytest.approx(expected["seed_overall"])
    beta = rows[1]
    assert beta["emotion_recognition_n"] == "60" and beta["emotion_recognition_items"] == "30"
    # n/a and unscored counts: moral behaviour applies only to some kinds.
    applicable = sum(1 for s in small_suite.scenarios if "moral_behavior" in s.dimensions)
    assert rows[0]["moral_behavior_na"] == str(30 - applicable)
    assert rows[0]["moral_behavior_unscored"] == "0"
    assert f"{applicable} / {30 - applicable} / 0" in markdown
    # summary.json: one entry per run in the report folder, and each run's own in its dir.
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert [entry["label"] for entry in summary["runs"]] == ["mock/alpha", "mock/beta"]
    assert summary["runs"][0]["summary"]["overall"]["mean"] == pytest.approx(
        float(rows[0]["overall_mean"])
    )
    for run_dir in two_runs:
        assert json.loads((run_dir / "summary.json").read_text())["per_kind"]
    assert report.output == tmp_path / "out"


def test_per_kind_breakdown_matches_the_items_of_each_kind(
    two_runs: list[Path], small_suite: Suite, tmp_path: Path
) -> None:
    write_report(two_runs[:1], tmp_path / "out")
    summary = json.loads((two_runs[0] / "summary.json").read_text())
    kinds = {entry["kind"]: entry for entry in summary["per_kind"]}
    assert sum(entry["responses"] for entry in kinds.values()) == 30
    for kind, entry in kinds.items():
        count = sum(1 for s in small_suite.scenarios if s.kind == kind)
        assert entry["responses"] == count == entry["overall"]["n"]
        assert set(entry["dimensions"]) == {
            d for s in small_suite.scenarios if s.kind == kind for d in s.dimensions
        }


def test_a_run_without_a_judge_says_needs_a_judge(
    small_suite: Suite, small_suite_path: Path, tmp_path: Path
) -> None:
    run_dir = make_run(tmp_path / "plain", small_suite, small_suite_path, "mock/unjudged")
    report = write_report([run_dir], None)
    assert report.output == run_dir
    markdown = (run_dir / "results.md").read_text()
    assert markdown.count("needs a judge") == len(TEXT_DIMENSIONS)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["run_id"] and summary["judges"] == []
    assert "radar_mock-unjudged" in report.figures.skipped
