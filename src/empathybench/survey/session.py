"""Serving one survey to raters: what to show next, and checking and storing each vote.

A session reads ``form.json`` and the votes file only. It never opens ``key.json``, so the app
built on it cannot leak which source wrote an answer, whatever it displays.
"""

from __future__ import annotations

import unicodedata
from datetime import datetime
from pathlib import Path

from empathybench.errors import UserError
from empathybench.runtime.closing import Closing
from empathybench.runtime.provenance import now_iso
from empathybench.survey.build import load_form
from empathybench.survey.records import VOTES_FILE, SurveyForm, SurveyItem, Vote
from empathybench.survey.store import VoteStore

MAX_RATER_ID = 64
MAX_REASON = 2000


def normalise_rater_id(rater_id: str) -> str:
    """The rater id as stored: NFKC-normalised and case-folded (``Alice``, ``alice`` and a
    full-width ``ａｌｉｃｅ`` are one rater), stripped, 1–64 printable characters (no newlines
    or tabs)."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", rater_id).casefold())
    cleaned = folded.strip()
    if not 1 <= len(cleaned) <= MAX_RATER_ID or not cleaned.isprintable():
        raise UserError(f"rater id must be 1 to {MAX_RATER_ID} printable characters")
    return cleaned


def check_timestamp(value: str, name: str = "voted_at") -> str:
    """``value`` (the column ``name``) when it is an ISO 8601 date and time; else UserError."""
    try:
        datetime.fromisoformat(value)
    except ValueError:
        raise UserError(f"{name} {value!r} is not an ISO 8601 date and time") from None
    return value


class SurveySession(Closing):
    """One survey directory opened for voting (see the module notes: no key access)."""

    def __init__(self, directory: Path, form: SurveyForm, store: VoteStore) -> None:
        self.directory = directory
        self.form = form
        self.store = store
        self._items = {item.question_id: item for item in form.items}

    @classmethod
    def open(cls, directory: Path) -> SurveySession:
        form = load_form(directory)
        return cls(directory, form, VoteStore(directory / VOTES_FILE))

    @property
    def survey_id(self) -> str:
        return self.form.survey_id

    def item(self, question_id: str) -> SurveyItem:
        try:
            return self._items[question_id]
        except KeyError:
            raise UserError(f"question {question_id!r} is not in survey {self.survey_id}") from None

    def next_item(self, rater_id: str) -> SurveyItem | None:
        """The first question ``rater_id`` has not answered, in form order; None when done."""
        answered = self.store.answered(self.survey_id, normalise_rater_id(rater_id))
        return next((item for item in self.form.items if item.question_id not in answered), None)

    def progress(self, rater_id: str) -> tuple[int, int]:
        """(questions answered, questions in the survey) for ``rater_id``."""
        answered = self.store.answered(self.survey_id, normalise_rater_id(rater_id))
        return len(answered & self._items.keys()), len(self.form.items)

    def vote(
        self,
        rater_id: str,
        question_id: str,
        most: str,
        least: str,
        reason: str = "",
        *,
        voted_at: str | None = None,
    ) -> Vote:
        """Check and store one vote; ``voted_at`` (ISO 8601) is for imports, default now.

        Letters are matched case-insensitively. Raises ``UserError`` for bad input and
        ``DuplicateVoteError`` when the rater already voted on the question.
        """
        rater = normalise_rater_id(rater_id)
        item = self.item(question_id)
        letters = [answer.letter for answer in item.answers]
        choices = {}
        for role, letter in (("most", most), ("least", least)):
            cleaned = letter.strip().upper()
            if cleaned not in letters:
                raise UserError(
                    f"{role} empathetic answer must be one of {', '.join(letters)} "
                    f"on question {question_id}, got {letter!r}"
                )
            choices[role] = cleaned
        if choices["most"] == choices["least"]:
            raise UserError("the most and least empathetic answers must be different letters")
        cleaned_reason = reason.strip()
        if len(cleaned_reason) > MAX_REASON:
            raise UserError(f"the reason is {len(cleaned_reason)} characters; at most {MAX_REASON}")
        vote = Vote(
            survey_id=self.survey_id,
            rater_id=rater,
            question_id=question_id,
            most=choices["most"],
            least=choices["least"],
            reason=cleaned_reason,
            voted_at=now_iso() if voted_at is None else check_timestamp(voted_at.strip()),
        )
        self.store.add(vote)
        return vote

    def close(self) -> None:
        self.store.close()
