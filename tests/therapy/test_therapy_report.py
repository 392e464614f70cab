from pathlib import Path

import pytest

from empathybench.errors import UserError
from empathybench.runtime.provenance import now_iso
from empathybench.therapy.report import build_therapy_report
from empathybench.therapy.report_files import write_therapy_report
from empathybench.therapy.study import HUMAN, Study
from empathybench.therapy.verdicts import COMPONENTS, ComponentScore, TherapyVerdict
from tests.fakes.cli_process import run_cli

# (cognitive, emotional, behavioral) per question; None = unscored.
SCORES: dict[str, dict[str, tuple[float | None, float | None, float | None]]] = {
    HUMAN: {"q1": (2, 1, 3), "q2": (1, 1, 2), "q3": (2, 2, 3)},
    "mock/alpha": {"q1": (3, 3, 2), "q2": (3, 2, None), "q3": (3, 3, 3)},
}


def write_verdicts(
    study: Study, judge: str = "mock/critic", scored_by: dict[str, str] | None = None
) -> None:
    for source, rows in SCORES.items():
        log = study.verdict_log(judge, source)
        log.open()
        for question, values in rows.items():
            scores = {
                c: ComponentScore(status="scored", value=v)
                if v is not None
                else ComponentScore(status="unscored", reason="judge failed")
                for c, v in zip(COMPONENTS, values, strict=True)
            }
            log.append(
                TherapyVerdict(
                    source=source,
                    scenario_id=question,
                    epoch=0,
                    judge=judge,
                    rubric_version="therapy-rubric-v1",
                    scores=scores,
                    finished_at=now_iso(),
                    scored_by=(scored_by or {}).get(source),
                )
            )
        log.close()


def test_report_numbers_match_a_hand_computation(study: Study) -> None:
    write_verdicts(study)
    report = build_therapy_report(study, seed=3)
    assert report.judges == ["mock/critic"]
    by_source = {s.source: {m.measure: m for m in s.measures} for s in report.sources}
    human, model = by_source[HUMAN], by_source["mock/alpha"]
    assert human["cognitive"].estimate.mean == pytest.approx(5 / 3)
    assert human["emotional"].estimate.mean == pytest.approx(4 / 3)
    assert human["empathy"].estimate.mean == pytest.approx((2 + 4 / 3 + 7 / 3) / 3)
    assert model["behavioral"].estimate.mean == pytest.approx(2.5)
    assert model["behavioral"].unscored == 1 and model["behavioral"].estimate.n == 2
    # empathy needs all three components: q2 of the model has none.
    assert model["empathy"].estimate.n == 2
    assert model["empathy"].estimate.mean == pytest.approx((8 / 3 + 3) / 2)
    for measure in human.values():
        estimate = measure.estimate
        assert estimate.low is not None and estimate.high is not None
        assert 1 <= estimate.low <= estimate.mean <= estimate.high <= 3  # type: ignore[operator]
    comparison = next(s for s in report.sources if s.source == "mock/alpha").versus_human
    assert comparison is not None
    # Shared questions with an empathy mean on both sides: q1 and q3.
    assert comparison.difference.n == 2
    assert comparison.difference.mean == pytest.approx(((8 / 3 - 2) + (3 - 7 / 3)) / 2)


def test_the_report_names_the_scorer_set_up_and_warns_when_runs_mix(study: Study) -> None:
    from empathybench.therapy.report_files import therapy_markdown

    one = "empathy-v4 (1a2b3c4d) on minilm, onnx"
    write_verdicts(study, "offline", {HUMAN: one, "mock/alpha": one})
    report = build_therapy_report(study, judges=["offline"])
    assert report.scored_by == [one]
    assert f"Offline scores by {one}." in therapy_markdown(report)
    mixed = one.replace("onnx", "torch-bf16")
    write_verdicts(study, "offline", {HUMAN: one, "mock/alpha": mixed})
    report = build_therapy_report(study, judges=["offline"])
    assert report.scored_by == sorted([one, mixed])
    assert "come from 2 scorer set-ups" in therapy_markdown(report)
    assert build_therapy_report(study, judges=["offline"]).scored_by  # read back from disk
    write_verdicts(study)  # a model judge records none
    assert build_therapy_report(study, judges=["mock/critic"]).scored_by == []


def test_report_files_and_radar(study: Study, tmp_path: Path) -> None:
    write_verdicts(study)
    written, figures = write_therapy_report(build_therapy_report(study), tmp_path / "out")
    names = {path.name for path in written}
    assert {"therapy.json", "therapy.md", "therapy.csv", "therapy_radar.png"} <= names
    assert {"therapy_radar.svg", "therapy_components.png"} <= names
    assert all(path.stat().st_size > 0 for path in written)
    markdown = (tmp_path / "out" / "therapy.md").read_text(encoding="utf-8")
    assert "| human |" in markdown and "| mock/alpha |" in markdown
    csv_text = (tmp_path / "out" / "therapy.csv").read_text(encoding="utf-8")
    assert csv_text.splitlines()[0].startswith("source,measure,mean,ci_low,ci_high")
    assert len(csv_text.splitlines()) == 1 + 2 * 4
    assert not figures.skipped


def test_report_needs_verdicts_and_known_judges(study: Study) -> None:
    with pytest.raises(UserError, match="no verdicts yet"):
        build_therapy_report(study)
    write_verdicts(study)
    with pytest.raises(UserError, match="no verdicts from nobody"):
        build_therapy_report(study, judges=["nobody"])
    with pytest.raises(UserError, match="no source ghost"):
        build_therapy_report(study, sources=["ghost"])


def test_report_command_prints_the_table(study: Study) -> None:
    write_verdicts(study)
    result = run_cli("therapy", "report", "--study", str(study.directory))
    assert result.returncode == 0, result.stderr
    assert "mock/alpha" in result.stdout and "human" in result.stdout
    assert (study.directory / "report" / "therapy.md").is_file()
    missing = run_cli("therapy", "report", "--study", str(study.directory / "nope"))
    assert missing.returncode == 2 and "--study" in missing.stderr  # checked before reading
    assert "no such folder" in missing.stderr


def test_report_gives_answer_length_beside_the_scores(study: Study) -> None:
    write_verdicts(study)
    report = build_therapy_report(study)
    human = next(s for s in report.sources if s.source == HUMAN)
    assert human.text is not None
    # The references of the tiny study: "Study.", "Get a new dog.", "Join a club."
    assert human.text.words.mean == pytest.approx((1 + 4 + 3) / 3)
    assert human.text.repeated_trigrams.mean == 0.0
