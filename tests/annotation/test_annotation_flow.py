"""The rater's path through a study in the app, without a browser: start, answer, resume."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from empathybench.annotation.session import AnnotationSession
from empathybench.annotation.store import DuplicateAnswerError
from empathybench.annotation.study import load_key
from empathybench.errors import UserError
from empathybench.ui.annotate_flow import AnnotationFlow
from tests.annotation.annotation_helpers import key_answers


@pytest.fixture
def flow(study_dir: Path) -> Iterator[AnnotationFlow]:
    with AnnotationSession.open(study_dir) as session:
        yield AnnotationFlow(session)


def test_a_rater_answers_in_order_resumes_and_finishes(study_dir: Path) -> None:
    key = {item.item_id: item for item in load_key(study_dir).items}
    with AnnotationSession.open(study_dir) as session:
        flow = AnnotationFlow(session)
        screen = flow.start("  Ada ")
        assert screen.rater == "ada" and screen.progress == "Item 1 of 6 · you have answered 0"
        assert screen.item is not None
        screen = flow.answer("ada", screen.item.item_id, *key_answers(key[screen.item.item_id]))
        assert screen.position == 2 and screen.answered == 1
    with AnnotationSession.open(study_dir) as session:
        flow = AnnotationFlow(session)
        screen = flow.start("ADA")
        assert screen.progress == "Item 2 of 6 · you have answered 1"
        while screen.item is not None:
            screen = flow.answer("ada", screen.item.item_id, *key_answers(key[screen.item.item_id]))
        assert screen.progress == "All 6 items answered. Thank you, you are done!"
        assert session.store.count() == 6


def test_unanswered_questions_are_named_and_nothing_is_stored(flow: AnnotationFlow) -> None:
    group = next(item for item in flow.session.form.items if item.is_group)
    single = next(item for item in flow.session.form.items if not item.is_group)
    with pytest.raises(UserError, match="answer who needs help, the emotion before submitting"):
        flow.answer("ada", group.item_id, None, "yes", None)
    with pytest.raises(UserError, match="answer whether they need help before submitting"):
        flow.answer("ada", single.item_id, "A", None, None)
    with pytest.raises(UserError, match="rater id must be"):
        flow.start("")
    assert flow.session.store.count() == 0


def test_a_second_answer_is_refused(flow: AnnotationFlow) -> None:
    single = next(item for item in flow.session.form.items if not item.is_group)
    flow.answer("ada", single.item_id, "A", "yes", None)
    with pytest.raises(DuplicateAnswerError):
        flow.answer("ada", single.item_id, "B", "no", None)
