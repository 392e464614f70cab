"""Serving raters: resume where they stopped, check every vote, never touch the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from empathybench.errors import UserError
from empathybench.survey.records import KEY_FILE, SurveyForm, SurveyKey
from empathybench.survey.session import SurveySession
from empathybench.survey.store import DuplicateVoteError

Survey = tuple[Path, SurveyForm, SurveyKey]


def test_a_rater_resumes_where_they_stopped_after_reopening(survey: Survey) -> None:
    directory, form, _ = survey
    first, second = (item.question_id for item in form.items)
    with SurveySession.open(directory) as session:
        assert session.progress("ann") == (0, 2)
        item = session.next_item("ann")
        assert item is not None and item.question_id == first
        session.vote("ann", first, "A", "B", "  clear and warm  ")
    with SurveySession.open(directory) as session:
        assert session.progress(" ann ") == (1, 2)
        item = session.next_item("ann")
        assert item is not None and item.question_id == second
        assert session.next_item("bob") == form.items[0]
        session.vote("ann", second, "c", "a")
        assert session.next_item("ann") is None
        assert session.progress("ann") == (2, 2)
        stored = session.store.votes(form.survey_id)
    assert [(v.rater_id, v.most, v.least, v.reason) for v in stored] == [
        ("ann", "A", "B", "clear and warm"),
        ("ann", "C", "A", ""),
    ]
    assert all(vote.voted_at.endswith("+00:00") for vote in stored)


def test_the_session_works_without_the_key_file(survey: Survey) -> None:
    directory, form, _ = survey
    (directory / KEY_FILE).unlink()
    with SurveySession.open(directory) as session:
        vote = session.vote("ann", form.items[0].question_id, "B", "C")
    assert vote.survey_id == form.survey_id


def test_a_second_vote_by_the_same_rater_is_a_duplicate(survey: Survey) -> None:
    directory, form, _ = survey
    question = form.items[0].question_id
    with SurveySession.open(directory) as session:
        session.vote("ann", question, "A", "B")
        with pytest.raises(DuplicateVoteError, match=f"already voted on question {question}"):
            session.vote(" ann", question, "B", "C")
        session.vote("bob", question, "B", "C")


@pytest.mark.parametrize(
    ("rater", "question", "most", "least", "reason", "message"),
    [
        ("", None, "A", "B", "", "rater id must be 1 to 64 printable"),
        ("   ", None, "A", "B", "", "rater id must be 1 to 64 printable"),
        ("x" * 65, None, "A", "B", "", "rater id must be 1 to 64 printable"),
        ("ann\nbob", None, "A", "B", "", "rater id must be 1 to 64 printable"),
        ("ann", "nope", "A", "B", "", "question 'nope' is not in survey"),
        ("ann", None, "D", "B", "", "most empathetic answer must be one of A, B, C"),
        ("ann", None, "A", "", "", "least empathetic answer must be one of A, B, C"),
        ("ann", None, "b", "B", "", "must be different letters"),
        ("ann", None, "A", "B", "x" * 2001, "at most 2000"),
    ],
)
def test_bad_votes_are_refused_with_a_clear_message(
    survey: Survey,
    rater: str,
    question: str | None,
    most: str,
    least: str,
    reason: str,
    message: str,
) -> None:
    directory, form, _ = survey
    with SurveySession.open(directory) as session:
        with pytest.raises(UserError, match=message) as caught:
            session.vote(rater, question or form.items[0].question_id, most, least, reason)
        assert "\n" not in str(caught.value)
        assert session.store.votes(form.survey_id) == []


def test_boundaries_are_accepted(survey: Survey) -> None:
    directory, form, _ = survey
    with SurveySession.open(directory) as session:
        vote = session.vote("é" * 64, form.items[0].question_id, "A", "C", "y" * 2000)
        assert vote.rater_id == "é" * 64 and len(vote.reason) == 2000
        with pytest.raises(UserError, match="not an ISO 8601"):
            session.vote("bob", form.items[0].question_id, "A", "C", voted_at="yesterday")
        kept = session.vote(
            "bob", form.items[0].question_id, "A", "C", voted_at="2024-05-06T07:08:09+00:00"
        )
        assert kept.voted_at == "2024-05-06T07:08:09+00:00"


def test_unknown_items_and_bad_rater_ids_in_lookups(survey: Survey) -> None:
    directory, form, _ = survey
    with SurveySession.open(directory) as session:
        assert session.item(form.items[1].question_id) == form.items[1]
        with pytest.raises(UserError, match="is not in survey"):
            session.item("q-missing")
        with pytest.raises(UserError, match="rater id"):
            session.next_item("")
