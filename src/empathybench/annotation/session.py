"""Serving a study to raters: what to show next, and checking and storing each answer.

A session reads ``study.json``, ``form.json`` and the answers file only. It never opens
``key.json``, so the app built on it cannot show the benchmark's answers, whatever it does.

Rater ids are compared after Unicode NFKC normalisation and case folding, so "alice",
"Alice" and a full-width "ａｌｉｃｅ" are one rater (one answer per item, one place to resume);
then the survey's rule applies (stripped, 1–64 printable characters).
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

from empathybench.annotation.records import (
    ANSWERS_FILE,
    EMOTION_LETTERS,
    HELP_ANSWERS,
    NOBODY,
    Annotation,
    AnnotationForm,
    FormItem,
    HelpAnswer,
)
from empathybench.annotation.store import AnnotationStore
from empathybench.annotation.study import load_form
from empathybench.errors import UserError
from empathybench.records import Letter
from empathybench.runtime.closing import Closing
from empathybench.runtime.provenance import now_iso
from empathybench.survey.session import check_timestamp, normalise_rater_id

_HELP_WORDS: dict[str, HelpAnswer] = {"yes": "yes", "y": "yes", "no": "no", "n": "no"}
_LETTERS: dict[str, Letter] = {letter: letter for letter in EMOTION_LETTERS}


def canonical_rater_id(rater_id: str) -> str:
    """The rater id as stored: NFKC, case-folded, stripped, 1–64 printable characters (the
    survey's rule, ``normalise_rater_id``)."""
    return normalise_rater_id(rater_id)


class AnnotationSession(Closing):
    """One study directory opened for answering (see the module notes: no key access)."""

    def __init__(self, directory: Path, form: AnnotationForm, store: AnnotationStore) -> None:
        self.directory = directory
        self.form = form
        self.store = store
        self._items = {item.item_id: item for item in form.items}

    @classmethod
    def open(cls, directory: Path) -> AnnotationSession:
        form = load_form(directory)
        return cls(directory, form, AnnotationStore(directory / ANSWERS_FILE))

    @property
    def study_id(self) -> str:
        return self.form.study_id

    def item(self, item_id: str) -> FormItem:
        try:
            return self._items[item_id]
        except KeyError:
            raise UserError(f"item {item_id!r} is not in study {self.study_id}") from None

    def answered(self, rater_id: str) -> set[str]:
        """The items of this study ``rater_id`` has answered."""
        done = self.store.answered(self.study_id, canonical_rater_id(rater_id))
        return done & self._items.keys()

    def next_item(self, rater_id: str) -> FormItem | None:
        """The first item ``rater_id`` has not answered, in study order; None when done."""
        done = self.answered(rater_id)
        return next((item for item in self.form.items if item.item_id not in done), None)

    def progress(self, rater_id: str) -> tuple[int, int]:
        """(items answered, items in the study) for ``rater_id``."""
        return len(self.answered(rater_id)), len(self.form.items)

    def check(
        self, rater_id: str, item_id: str, emotion: str, help_: str, who: str | None = None
    ) -> Annotation:
        """The answer as it would be stored (now); a UserError saying what is wrong."""
        rater = canonical_rater_id(rater_id)
        item = self.item(item_id)
        letter = _LETTERS.get(emotion.strip().upper())
        if letter is None:
            raise UserError(
                f"emotion must be one of {', '.join(EMOTION_LETTERS)} on item {item_id}, "
                f"got {emotion!r}"
            )
        help_answer = _HELP_WORDS.get(help_.strip().lower())
        if help_answer is None:
            raise UserError(
                f"help must be {' or '.join(HELP_ANSWERS)} on item {item_id}, got {help_!r}"
            )
        return Annotation(
            study_id=self.study_id,
            rater_id=rater,
            item_id=item_id,
            emotion=letter,
            help=help_answer,
            who=_check_who(item, who, help_answer),
            answered_at=now_iso(),
        )

    def answer(
        self,
        rater_id: str,
        item_id: str,
        emotion: str,
        help_: str,
        who: str | None = None,
        *,
        answered_at: str | None = None,
    ) -> Annotation:
        """Check and store one answer; ``answered_at`` (ISO 8601) is for imports, default now.

        Raises ``UserError`` for bad input and ``DuplicateAnswerError`` when the rater already
        answered the item (the first answer stands).
        """
        annotation = self.check(rater_id, item_id, emotion, help_, who)
        if answered_at is not None:
            stamp = check_timestamp(answered_at.strip(), "answered_at")
            annotation = annotation.model_copy(update={"answered_at": stamp})
        self.store.add(annotation)
        return annotation

    def close(self) -> None:
        self.store.close()


def _check_who(item: FormItem, who: str | None, help_answer: HelpAnswer) -> str | None:
    """The who answer in the form's spelling; None on items that do not ask it."""
    given = (who or "").strip()
    if not item.is_group:
        if given:
            raise UserError(f"item {item.item_id} does not ask who needs help; leave who empty")
        return None
    by_folded = {choice.casefold(): choice for choice in item.who_choices}
    choice = by_folded.get(unicodedata.normalize("NFKC", given).casefold())
    if choice is None:
        raise UserError(
            f"who needs help must be one of {', '.join(item.who_choices)} on item "
            f"{item.item_id}, got {who!r}"
        )
    if choice == NOBODY and help_answer == "yes":
        raise UserError(
            f"on item {item.item_id} the answer says nobody needs help but also that "
            "that person needs help; answer help no, or pick who needs it"
        )
    return choice
