"""The rater's path through an annotation study, without gradio: which screen comes next.

Every decision (what is unanswered, whether an answer is valid, whether it repeats one) is
the annotation session's; this module only composes what a screen shows. The session never
reads ``key.json``, so nothing here can show the benchmark's answers.
"""

from __future__ import annotations

from dataclasses import dataclass

from empathybench.annotation.records import FormItem
from empathybench.annotation.session import AnnotationSession, canonical_rater_id
from empathybench.errors import UserError


@dataclass(frozen=True)
class AnnotationScreen:
    """What the rater sees: an item (or none when finished) and where they are."""

    rater: str
    item: FormItem | None
    position: int
    """1-based place of ``item`` in the study (0 when finished)."""
    answered: int
    total: int

    @property
    def progress(self) -> str:
        if self.item is None:
            return f"All {self.total} items answered. Thank you, you are done!"
        return f"Item {self.position} of {self.total} · you have answered {self.answered}"


class AnnotationFlow:
    """Screens for one open study, shared by every browser session of the app."""

    def __init__(self, session: AnnotationSession) -> None:
        self.session = session

    @property
    def total(self) -> int:
        return len(self.session.form.items)

    def _screen(self, rater: str) -> AnnotationScreen:
        item = self.session.next_item(rater)
        position = 0
        if item is not None:
            position = 1 + self.session.form.items.index(item)
        answered, total = self.session.progress(rater)
        return AnnotationScreen(rater, item, position, answered, total)

    def start(self, rater_id: str) -> AnnotationScreen:
        """The rater's first unanswered item (where they left off); UserError for a bad id."""
        return self._screen(canonical_rater_id(rater_id))

    def answer(
        self, rater: str, item_id: str, emotion: str | None, help_: str | None, who: str | None
    ) -> AnnotationScreen:
        """Store the answer (the session checks it) and move on to the next unanswered item.

        Raises ``UserError`` (``DuplicateAnswerError`` for a second answer) and stores
        nothing in that case.
        """
        item = self.session.item(item_id)
        missing = [
            question
            for question, value, asked in (
                ("who needs help", who, item.is_group),
                ("the emotion", emotion, True),
                ("whether they need help", help_, True),
            )
            if asked and not value
        ]
        if missing:
            raise UserError(f"answer {', '.join(missing)} before submitting")
        self.session.answer(rater, item_id, emotion or "", help_ or "", who)
        return self._screen(rater)
