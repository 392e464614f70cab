import subprocess
import sys
from pathlib import Path

import pytest

from empathybench.errors import UserError
from empathybench.judging.calibration import BUNDLED_LABELS, agreement_report, load_labels
from empathybench.judging.judge_prompt import judged_dimensions
from empathybench.types import DimensionScore, Verdict


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
    assert "Spearman" in result.stdout and (tmp_path / "report.json").is_file()
