"""The therapy track end to end on the real bundled model: run, offline judge, report."""

from pathlib import Path

import pytest

from empathybench.runtime.run_store import RunStore
from empathybench.therapy.study import HUMAN, Study
from tests.fakes.cli_process import run_cli

pytest.importorskip("torch", reason="needs the local extra: pip install 'empathybench[local]'")

pytestmark = [pytest.mark.slow, pytest.mark.torch]


def test_smollm2_answers_two_questions_and_is_compared_with_the_human_answers(
    tmp_path: Path,
) -> None:
    study = tmp_path / "study"
    run = run_cli(
        "therapy",
        "run",
        "--study",
        str(study),
        "--limit",
        "2",
        "--max-tokens",
        "40",
        "--no-progress",
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    opened = Study(study)
    responses = RunStore(opened.run_dir("local/smollm2")).latest_responses()
    assert len(responses) == 2
    assert all(r.ok and len((r.text or "").split()) >= 5 for r in responses.values())
    assert all(0 < r.usage.output_tokens <= 40 for r in responses.values())

    judged = run_cli("therapy", "judge", "--study", str(study), "--no-progress", timeout=600)
    assert judged.returncode == 0, judged.stderr[-2000:]
    assert "judged 4 answer(s)" in judged.stdout

    report = run_cli("therapy", "report", "--study", str(study), timeout=300)
    assert report.returncode == 0, report.stderr[-2000:]
    markdown = (study / "report" / "therapy.md").read_text(encoding="utf-8")
    assert f"| {HUMAN} |" in markdown and "| local/smollm2 |" in markdown
    assert (study / "report" / "figures" / "therapy_radar.png").stat().st_size > 10_000
