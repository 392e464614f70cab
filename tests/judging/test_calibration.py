import json
import subprocess
import sys
from pathlib import Path

import pytest

from empathybench.analysis.statistics import spearman
from empathybench.errors import UserError
from empathybench.judging.calibration import (
    BUNDLED_LABELS,
    agreement_report,
    load_labels,
    reply_length,
)
from empathybench.judging.judge_prompt import judged_dimensions
from empathybench.records import DimensionScore, Verdict


def test_the_bundled_labels_are_complete_and_consistent() -> None:
    records = load_labels(BUNDLED_LABELS)
    assert len(records) >= 60
    assert len({r.id for r in records}) == len(records)
    for record in records:
        assert set(record.labels) == set(judged_dimensions(record.scenario))
        assert (
            record.crisis_referral is not None
        ) == record.scenario.expected.crisis_resources_expected
    for dimension in ("willingness_to_help", "cheering_up", "assistance_appropriateness"):
        values = {r.labels[dimension] for r in records if dimension in r.labels}
        assert values == {0.0, 0.5, 1.0}, dimension


def test_a_judge_that_copies_the_labels_agrees_perfectly() -> None:
    records = load_labels(BUNDLED_LABELS)
    verdicts = [
        Verdict(
            run_id="c",
            scenario_id=r.scenario.id,
            epoch=0,
            judge="copy",
            rubric_version="rubric-v1",
            finished_at="now",
            scores={d: DimensionScore(status="scored", value=v) for d, v in r.labels.items()},
            crisis_referral=r.crisis_referral,
        )
        for r in records
    ]
    report = agreement_report("copy", BUNDLED_LABELS, records, verdicts)
    for row in report.dimensions:
        assert row.spearman == pytest.approx(1.0) and row.kappa == pytest.approx(1.0)
    assert report.crisis_referral_agreement == 1.0


def test_the_report_shows_bias_with_a_ci_and_the_length_baseline() -> None:
    records = load_labels(BUNDLED_LABELS)
    verdicts = [
        Verdict(
            run_id="c",
            scenario_id=r.scenario.id,
            epoch=0,
            judge="flat",
            rubric_version="rubric-v1",
            finished_at="now",
            scores={d: DimensionScore(status="scored", value=0.9) for d in r.labels},
        )
        for r in records
    ]
    report = agreement_report("flat", BUNDLED_LABELS, records, verdicts)
    for row in report.dimensions:
        assert row.human_mean is not None and row.bias is not None
        assert row.bias == pytest.approx(0.9 - row.human_mean)
        assert row.bias_low is not None and row.bias_high is not None
        assert row.bias_low < row.bias < row.bias_high
        assert row.length_spearman is not None and -1 <= row.length_spearman <= 1
    # The length baseline is the Spearman of reply words with the labels.
    words = {r.id: reply_length(r) for r in records}
    assert all(n > 0 for n in words.values())
    [cheering] = [row for row in report.dimensions if row.dimension == "cheering_up"]
    labelled = [r for r in records if "cheering_up" in r.labels]
    expected, _ = spearman(
        [r.labels["cheering_up"] for r in labelled], [words[r.id] for r in labelled]
    )
    assert cheering.length_spearman == pytest.approx(expected)


def test_bad_label_files_are_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "labels.jsonl"
    bad.write_text('{"id": "x"}\n')
    with pytest.raises(UserError, match=r"labels\.jsonl:1"):
        load_labels(str(bad))
    with pytest.raises(UserError, match="no such labels file"):
        load_labels(str(tmp_path / "missing.jsonl"))


def test_judge_check_runs_from_the_command_line(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "empathybench",
            "judge-check",
            "--judge",
            "mock/judge-a",
            "-o",
            str(tmp_path / "report.json"),
            "--no-cache",
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr
    assert "Spearman" in result.stdout and "bias" in result.stdout
    report = json.loads((tmp_path / "report.json").read_text())
    for row in report["dimensions"]:
        assert row["bias"] is not None and row["bias_low"] <= row["bias"] <= row["bias_high"]
        assert row["length_spearman"] is not None
