"""Answers in SQLite: one row per (study, rater, item), written the moment it is submitted.

As with the survey's votes (``survey.store``), the PRIMARY KEY is what refuses a second answer
by the same rater on the same item, so two tabs racing on one item store exactly one answer.
"""

from __future__ import annotations

import sqlite3

from empathybench.annotation.records import Annotation
from empathybench.errors import UserError
from empathybench.runtime.sqlite_store import SharedSqliteStore

STORE_VERSION = 1
_COLUMNS = ("study_id", "rater_id", "item_id", "emotion", "help", "who", "answered_at")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS annotations (
    study_id TEXT NOT NULL,
    rater_id TEXT NOT NULL,
    item_id TEXT NOT NULL,
    emotion TEXT NOT NULL,
    help TEXT NOT NULL,
    who TEXT,
    answered_at TEXT NOT NULL,
    PRIMARY KEY (study_id, rater_id, item_id)
)
"""


class DuplicateAnswerError(UserError):
    """The rater already answered this item; the first answer stands."""


class AnnotationStore(SharedSqliteStore):
    """The answers file of a study directory, safe to share between threads."""

    SCHEMA = _SCHEMA
    STORE_VERSION = STORE_VERSION
    WHAT = "annotations"

    def add(self, annotation: Annotation) -> None:
        """Store ``annotation``; ``DuplicateAnswerError`` when the rater answered the item."""
        row = tuple(getattr(annotation, column) for column in _COLUMNS)
        try:
            self.execute(
                f"INSERT INTO annotations ({', '.join(_COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                row,
            )
        except sqlite3.IntegrityError:
            raise DuplicateAnswerError(
                f"rater {annotation.rater_id} already answered item {annotation.item_id}"
            ) from None

    def answers(self, study_id: str) -> list[Annotation]:
        """Every answer of ``study_id``, oldest first."""
        rows = self.query(
            f"SELECT {', '.join(_COLUMNS)} FROM annotations WHERE study_id = ? ORDER BY rowid",
            (study_id,),
        )
        return [Annotation.model_validate(dict(zip(_COLUMNS, row, strict=True))) for row in rows]

    def answered(self, study_id: str, rater_id: str) -> set[str]:
        """The item ids ``rater_id`` has answered."""
        rows = self.query(
            "SELECT item_id FROM annotations WHERE study_id = ? AND rater_id = ?",
            (study_id, rater_id),
        )
        return {str(row[0]) for row in rows}

    def count(self, study_id: str | None = None) -> int:
        """How many answers ``study_id`` has (every study's when None)."""
        if study_id is None:
            rows = self.query("SELECT COUNT(*) FROM annotations")
        else:
            rows = self.query("SELECT COUNT(*) FROM annotations WHERE study_id = ?", (study_id,))
        total = rows[0][0]
        assert isinstance(total, int)
        return total
