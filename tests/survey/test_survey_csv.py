"""Votes as CSV: lossless export and import, formula-safe cells, and forgiving row checks."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from empathybench import jsonl
from empathybench.errors import UserError
from empathybench.survey.build import write_survey
from empathybench.survey.records import SurveyForm, SurveyKey, Vote
from empathybench.survey.results import export_votes_csv, import_votes_csv
from empathybench.survey.session import SurveySession
from tests.survey.survey_helpers import SOURCES, letter_of, make_survey

Survey = tuple[Path, SurveyForm, SurveyKey]
TRICKY_REASONS = [
    '=HYPERLINK("http://x","click")',
    "+1 for warmth, -1 for lists",
    "'=already quoted",
    'commas, "quotes"\nand a second line',
]


def _fill(survey: Survey) -> list[Vote]:
    directory, form, _ = survey
    q1, q2 = (item.question_id for item in form.items)
    with SurveySession.open(directory) as session:
        session.vote("-dash", q1, "A", "B", TRICKY_REASONS[0])
        session.vote("@at", q1, "B", "C", TRICKY_REASONS[1])
        session.vote("ann", q1, "C", "A", TRICKY_REASONS[2])
        session.vote("ann", q2, "A", "C", TRICKY_REASONS[3])
        session.vote("bob", q2, "B", "A")
        return session.store.votes(form.survey_id)


def _fresh_copy(tmp_path: Path) -> Path:
    directory = tmp_path / "copy"
    write_survey(directory, *make_survey())
    return directory


def test_export_then_import_into_a_fresh_survey_round_trips_every_vote(
    survey: Survey, tmp_path: Path
) -> None:
    _, form, key = survey
    votes = _fill(survey)
    path = tmp_path / "votes.csv"
    export_votes_csv(votes, key, path)
    copy = _fresh_copy(tmp_path)
    with SurveySession.open(copy) as session:
        report = import_votes_csv(path, session)
        assert (report.added, report.duplicates, report.rejected) == (5, 0, [])
        assert session.store.votes(form.survey_id) == votes
        again = import_votes_csv(path, session)
        assert (again.added, again.duplicates, again.rejected) == (0, 5, [])


def test_export_names_sources_and_defuses_formulas(survey: Survey, tmp_path: Path) -> None:
    _, form, key = survey
    votes = _fill(survey)
    path = tmp_path / "votes.csv"
    export_votes_csv(votes, key, path)
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == [
        "survey_id",
        "rater_id",
        "question_id",
        "most",
        "least",
        "most_source",
        "least_source",
        "reason",
        "voted_at",
    ]
    assert [row["rater_id"] for row in rows] == ["'-dash", "'@at", "ann", "ann", "bob"]
    assert [row["reason"] for row in rows[:4]] == [
        "'" + TRICKY_REASONS[0],
        "'" + TRICKY_REASONS[1],
        "''=already quoted",
        TRICKY_REASONS[3],
    ]
    q1 = form.items[0].question_id
    assert rows[0]["most_source"] == next(s for s in SOURCES if letter_of(key, q1, s) == "A")
    dangerous = ("=", "+", "-", "@")
    assert not any(cell.startswith(dangerous) for row in rows for cell in row.values())


def test_a_form_tool_sheet_imports_with_loose_headers_and_letters(
    survey: Survey, tmp_path: Path
) -> None:
    directory, form, _ = survey
    q1, q2 = (item.question_id for item in form.items)
    path = tmp_path / "sheet.csv"
    path.write_text(
        "\ufeffTimestamp,Rater_ID,Question_ID,Most,Least,Reason\n"
        f"x, carol ,{q1},Answer B,c,\n"
        f'x,carol,{q2},a.,Response C,"warm, not preachy"\n',
        encoding="utf-8",
    )
    with SurveySession.open(directory) as session:
        report = import_votes_csv(path, session)
        assert (report.added, report.duplicates, report.rejected) == (2, 0, [])
        stored = session.store.votes(form.survey_id)
    assert [(v.rater_id, v.most, v.least, v.reason) for v in stored] == [
        ("carol", "B", "C", ""),
        ("carol", "A", "C", "warm, not preachy"),
    ]


def test_bad_rows_are_listed_by_line_and_good_rows_still_land(
    survey: Survey, tmp_path: Path
) -> None:
    directory, form, _ = survey
    q1 = form.items[0].question_id
    path = tmp_path / "votes.csv"
    path.write_text(
        "rater_id,question_id,most,least,survey_id\n"
        f"ann,{q1},A,B,\n"
        f"ann,{q1},B,C,\n"
        f"bob,q-missing,A,B,\n"
        f"bob,{q1},A,A,\n"
        f"bob,{q1},A,E,\n"
        f"bob,{q1},A,B,someothersurvey\n"
        f",{q1},A,B,\n"
        f"dan,{q1},A,B,{form.survey_id}\n",
        encoding="utf-8",
    )
    with SurveySession.open(directory) as session:
        report = import_votes_csv(path, session)
    assert (report.added, report.duplicates) == (2, 1)
    assert len(report.rejected) == 5
    assert report.rejected[0].startswith("line 4: question 'q-missing'")
    assert report.rejected[1].startswith("line 5: the most and least")
    assert report.rejected[2].startswith("line 6: least empathetic answer must be one of")
    assert report.rejected[3] == "line 7: vote for survey someothersurvey, not this survey"
    assert report.rejected[4].startswith("line 8: rater id")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"rater_id,question_id,most\nann,q1,A\n", "missing column(s) least"),
        (b"", "missing column(s) rater_id, question_id, most, least"),
        (b'{"votes": [1, 2]}\n', "missing column(s)"),
        ("rater_id,question_id,most,least\nRené,q1,A,B\n".encode("latin-1"), "not UTF-8"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff", "not UTF-8"),
    ],
)
def test_a_malformed_file_is_one_error_naming_it(
    survey: Survey, tmp_path: Path, content: bytes, message: str
) -> None:
    directory, _, _ = survey
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    with SurveySession.open(directory) as session, pytest.raises(UserError) as caught:
        import_votes_csv(path, session)
    text = str(caught.value)
    assert text.startswith(f"{path}:") and message in text and "\n" not in text


def test_a_missing_or_oversized_csv_is_one_error(
    survey: Survey, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory, _, _ = survey
    huge = tmp_path / "huge.csv"
    huge.write_text("rater_id,question_id,most,least\n" + "x" * 200_000)
    monkeypatch.setattr(jsonl, "MAX_FILE_BYTES", 100_000)  # fields may be as long as a file
    with SurveySession.open(directory) as session:
        with pytest.raises(UserError, match="no such file"):
            import_votes_csv(tmp_path / "absent.csv", session)
        with pytest.raises(UserError, match="larger than the 100,000 bytes"):
            import_votes_csv(huge, session)
        with pytest.raises(UserError, match="is a folder"):
            import_votes_csv(tmp_path, session)
