"""The rater's path through a survey, without a browser: start, vote, resume, revisit."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from empathybench.errors import UserError
from empathybench.survey.build import SourceAnswers, build_survey, write_survey
from empathybench.survey.session import SurveySession
from empathybench.survey.store import DuplicateVoteError
from empathybench.ui.survey_flow import SurveyFlow, new_rater_id

QUESTIONS = [(f"q{i}", f"Question text {i}?") for i in range(1, 4)]


@pytest.fixture
def survey_dir(tmp_path: Path) -> Path:
    sources = [
        SourceAnswers(name, {qid: f"{name} answers {qid}" for qid, _ in QUESTIONS})
        for name in ("model-a", "model-b", "human")
    ]
    form, key = build_survey(questions=QUESTIONS, sources=sources, k=3, seed=0, title="t")
    write_survey(tmp_path / "survey", form, key)
    return tmp_path / "survey"


@pytest.fixture
def flow(survey_dir: Path) -> Iterator[SurveyFlow]:
    with SurveySession.open(survey_dir) as session:
        yield SurveyFlow(session)


def letters(flow: SurveyFlow, question_id: str) -> list[str]:
    return [answer.letter for answer in flow.session.item(question_id).answers]


def test_a_rater_answers_in_order_and_finishes(flow: SurveyFlow) -> None:
    screen = flow.start("  ada  ")
    assert screen.rater == "ada"
    assert screen.item is not None and screen.item.question_id == "q1"
    assert screen.progress == "Question 1 of 3 · you have answered 0 of 3"
    assert [label for label, _ in screen.choices] == ["Question 1", "Question 2", "Question 3"]
    for question_id, _ in QUESTIONS:
        a, b, *_ = letters(flow, question_id)
        screen = flow.vote("ada", question_id, a, b, "it named the feeling")
    assert screen.item is None
    assert screen.progress == "All 3 questions answered (you have answered 3 of 3). Thank you!"
    assert all(label.endswith("✓ answered") for label, _ in screen.choices)
    stored = flow.session.store.votes(flow.session.survey_id)
    assert [(v.rater_id, v.question_id, v.reason) for v in stored] == [
        ("ada", qid, "it named the feeling") for qid, _ in QUESTIONS
    ]


def test_a_rater_resumes_where_they_left_off(survey_dir: Path) -> None:
    with SurveySession.open(survey_dir) as session:
        flow = SurveyFlow(session)
        a, b, *_ = letters(flow, "q1")
        flow.vote(flow.start("bo").rater, "q1", a, b, "")
    with SurveySession.open(survey_dir) as session:
        screen = SurveyFlow(session).start("bo")
    assert screen.item is not None and screen.item.question_id == "q2"
    assert screen.progress == "Question 2 of 3 · you have answered 1 of 3"
    assert screen.choices[0] == ("Question 1 ✓ answered", "q1")


def test_a_second_vote_on_a_revisited_question_is_refused(flow: SurveyFlow) -> None:
    a, b, c = letters(flow, "q1")
    flow.vote("cy", "q1", a, b, "first")
    revisit = flow.show("cy", "q1")
    assert revisit.already_answered and revisit.position == 1
    with pytest.raises(DuplicateVoteError, match="already voted"):
        flow.vote("cy", "q1", c, a, "second")
    [vote] = flow.session.store.votes(flow.session.survey_id)
    assert (vote.most, vote.least, vote.reason) == (a, b, "first")


@pytest.mark.parametrize(
    ("rater", "most", "least", "message"),
    [
        ("dee", None, None, "most empathetic answer must be one of"),
        ("dee", "A", None, "least empathetic answer must be one of"),
        ("dee", "A", "A", "must be different letters"),
        ("", "A", "B", "rater id must be"),
    ],
)
def test_invalid_votes_store_nothing(
    flow: SurveyFlow, rater: str, most: str | None, least: str | None, message: str
) -> None:
    with pytest.raises(UserError, match=message):
        flow.vote(rater, "q1", most, least, "")
    assert flow.session.store.count() == 0


def test_new_rater_ids_are_random_and_acceptable(flow: SurveyFlow) -> None:
    ids = {new_rater_id() for _ in range(50)}
    assert len(ids) == 50
    assert all(flow.start(rater_id).rater == rater_id for rater_id in list(ids)[:3])
