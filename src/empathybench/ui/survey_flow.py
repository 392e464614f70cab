"""The rater's path through a blind survey, without gradio: which screen comes next.

Every decision (what is unanswered, whether a vote is valid, whether it is a second vote)
is the survey session's; this module only composes what a screen shows. The session never
reads ``key.json``, so nothing here can reveal which source wrote an answer.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from empathybench.survey.records import SurveyItem
from empathybench.survey.session import SurveySession, normalise_rater_id

REASON_QUESTION = "What made some answers seem more empathetic than others? (optional)"


def new_rater_id() -> str:
    """A random rater id, for raters who do not have one (they note it to come back later)."""
    return f"rater-{secrets.token_hex(4)}"


@dataclass(frozen=True)
class SurveyScreen:
    """What the rater sees: a question (or none when finished) and where they are."""

    rater: str
    item: SurveyItem | None
    position: int
    """1-based place of ``item`` in the form (0 when finished)."""
    answered: int
    total: int
    choices: list[tuple[str, str]]
    """Question picker entries ``(label, question id)``, answered ones marked."""
    already_answered: bool = False

    @property
    def progress(self) -> str:
        done = f"you have answered {self.answered} of {self.total}"
        if self.item is None:
            return f"All {self.total} questions answered ({done}). Thank you!"
        return f"Question {self.position} of {self.total} · {done}"


class SurveyFlow:
    """Screens for one open survey session, shared by every browser session of the app."""

    def __init__(self, session: SurveySession) -> None:
        self.session = session

    @property
    def title(self) -> str:
        return self.session.form.title

    def _answered(self, rater: str) -> set[str]:
        return self.session.store.answered(self.session.survey_id, rater)

    def _screen(self, rater: str, item: SurveyItem | None) -> SurveyScreen:
        items = self.session.form.items
        answered = self._answered(rater)
        choices = [
            (
                f"Question {index}" + (" ✓ answered" if it.question_id in answered else ""),
                it.question_id,
            )
            for index, it in enumerate(items, start=1)
        ]
        position = 0
        if item is not None:
            position = 1 + [it.question_id for it in items].index(item.question_id)
        done, total = self.session.progress(rater)
        return SurveyScreen(
            rater=rater,
            item=item,
            position=position,
            answered=done,
            total=total,
            choices=choices,
            already_answered=item is not None and item.question_id in answered,
        )

    def start(self, rater_id: str) -> SurveyScreen:
        """The rater's first unanswered question (where they left off); UserError if the id
        is not acceptable."""
        rater = normalise_rater_id(rater_id)
        return self._screen(rater, self.session.next_item(rater))

    def show(self, rater: str, question_id: str) -> SurveyScreen:
        """Any question of the form (the picker), answered or not."""
        return self._screen(rater, self.session.item(question_id))

    def vote(
        self, rater: str, question_id: str, most: str | None, least: str | None, reason: str
    ) -> SurveyScreen:
        """Store the vote (the session checks it) and move on to the next unanswered question.

        Raises the session's ``UserError`` (``DuplicateVoteError`` for a second vote) and
        stores nothing in that case.
        """
        self.session.vote(rater, question_id, most or "", least or "", reason or "")
        return self._screen(rater, self.session.next_item(rater))
