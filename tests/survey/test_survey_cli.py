"""``empathybench survey results | export | import`` end to end, in real processes."""

from __future__ import annotations

import subprocess
from pathlib import Path

from empathybench.survey.build import write_survey
from empathybench.survey.records import SurveyForm, SurveyKey
from empathybench.survey.session import SurveySession
from tests.fakes.cli_process import run_cli
from tests.survey.survey_helpers import SOURCES, letter_of, make_survey

Survey = tuple[Path, SurveyForm, SurveyKey]


def _one_error_line(result: subprocess.CompletedProcess[str], text: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and text in lines[0], result.stderr
    assert "Traceback" not in result.stderr


def _vote_all(survey: Survey) -> None:
    directory, form, key = survey
    with SurveySession.open(directory) as session:
        for rater in ("ann", "bob", "cem"):
            for item in form.items:
                q = item.question_id
                most, least = letter_of(key, q, SOURCES[1]), letter_of(key, q, SOURCES[0])
                session.vote(rater, q, most, least, f"{rater} liked the follow-up question")


def test_results_prints_shares_and_writes_the_files(survey: Survey, tmp_path: Path) -> None:
    _vote_all(survey)
    out = tmp_path / "out"
    result = run_cli("survey", "results", str(survey[0]), "--out", str(out), "--seed", "4")
    assert result.returncode == 0, result.stderr
    assert all(name in result.stdout for name in SOURCES)
    assert "chance" in result.stdout and "0.33" in result.stdout
    assert "1.00 [1.00, 1.00]" in result.stdout  # SOURCES[1] got every "most" vote
    for name in (
        "results.json",
        "results.md",
        "reasons.csv",
        "survey_votes.png",
        "survey_votes.svg",
    ):
        assert (out / name).stat().st_size > 0
    assert f"wrote 5 files to {out} " in result.stdout


def test_results_without_votes_or_outside_a_survey_is_one_error(
    survey: Survey, tmp_path: Path
) -> None:
    _one_error_line(run_cli("survey", "results", str(survey[0])), "has no votes yet")
    _one_error_line(
        run_cli("survey", "results", str(tmp_path / "nowhere")), "not a survey directory"
    )


def test_export_and_import_move_votes_between_directories(survey: Survey, tmp_path: Path) -> None:
    _vote_all(survey)
    path = tmp_path / "votes.csv"
    exported = run_cli("survey", "export", str(survey[0]), "--csv", str(path))
    assert exported.returncode == 0, exported.stderr
    assert "wrote 6 votes" in exported.stdout
    copy = tmp_path / "copy"
    write_survey(copy, *make_survey())
    imported = run_cli("survey", "import", str(copy), "--csv", str(path))
    assert imported.returncode == 0, imported.stderr
    assert "added 6, duplicates 0, rejected 0" in imported.stdout
    again = run_cli("survey", "import", str(copy), "--csv", str(path))
    assert again.returncode == 0 and "added 0, duplicates 6, rejected 0" in again.stdout
    # an export replaces an earlier export, never the survey's own files or anything else
    assert run_cli("survey", "export", str(survey[0]), "--csv", str(path)).returncode == 0
    form = survey[0] / "form.json"
    before = form.read_bytes()
    refused = run_cli("survey", "export", str(survey[0]), "--csv", str(form))
    assert refused.returncode == 2 and "exists and is not a CSV export of votes" in refused.stderr
    assert refused.stderr.count("\n") == 1 and form.read_bytes() == before


def test_import_exits_1_when_rows_are_rejected_and_2_on_a_broken_file(
    survey: Survey, tmp_path: Path
) -> None:
    directory, form, _ = survey
    rows = tmp_path / "rows.csv"
    rows.write_text(
        f"rater_id,question_id,most,least\nann,{form.items[0].question_id},A,B\nann,q9,A,B\n",
        encoding="utf-8",
    )
    result = run_cli("survey", "import", str(directory), "--csv", str(rows))
    assert result.returncode == 1, result.stderr
    assert "added 1, duplicates 0, rejected 1" in result.stdout
    assert "rejected line 3: question 'q9' is not in survey" in result.stderr
    broken = tmp_path / "broken.csv"
    broken.write_text("who,what\n1,2\n", encoding="utf-8")
    _one_error_line(
        run_cli("survey", "import", str(directory), "--csv", str(broken)), "missing column(s)"
    )
