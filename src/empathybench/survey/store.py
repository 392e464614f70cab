"""Votes in SQLite: one row per (survey, rater, question), written the moment it is cast.

SQLite's PRIMARY KEY is what makes a second vote by the same rater on the same question
fail, so two browser tabs (or two Gradio worker threads) racing on the same question store
exactly one vote; no read-then-write check is involved. Every insert is committed on its own
(autocommit), and WAL mode lets the results command read while the app keeps writing (see
``runtime.sqlite_store``).
"""

from __future__ import annotations

import sqlite3

from empathybench.errors import UserError
from empathybench.runtime.sqlite_store import SharedSqliteStore
from empathybench.survey.records import Vote

STORE_VERSION = 1
_COLUMNS = ("survey_id", "rater_id", "question_id", "most", "least", "reason", "voted_at")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS votes (
    survey_id TEXT NOT NULL,
    rater_id TEXT NOT NULL,
    question_id TEXT NOT NULL,
    most TEXT NOT NULL,
    least TEXT NOT NULL,
    reason TEXT NOT NULL,
    voted_at TEXT NOT NULL,
    PRIMARY KEY (survey_id, rater_id, question_id)
)
"""


class DuplicateVoteError(UserError):
    """The rater already voted on this question; the first vote stands."""


class VoteStore(SharedSqliteStore):
    """The votes file of a survey directory, safe to share between threads."""

    SCHEMA = _SCHEMA
    STORE_VERSION = STORE_VERSION
    WHAT = "votes"

    def add(self, vote: Vote) -> None:
        """Store ``vote``; ``DuplicateVoteError`` when this rater already voted on it."""
        row = tuple(getattr(vote, column) for column in _COLUMNS)
        try:
            self.execute(
                f"INSERT INTO votes ({', '.join(_COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?, ?)", row
            )
        except sqlite3.IntegrityError:
            raise DuplicateVoteError(
                f"rater {vote.rater_id} already voted on question {vote.question_id}"
            ) from None

    def votes(self, survey_id: str) -> list[Vote]:
        """Every vote of ``survey_id``, oldest first."""
        rows = self.query(
            f"SELECT {', '.join(_COLUMNS)} FROM votes WHERE survey_id = ? ORDER BY rowid",
            (survey_id,),
        )
        return [Vote.model_validate(dict(zip(_COLUMNS, row, strict=True))) for row in rows]

    def answered(self, survey_id: str, rater_id: str) -> set[str]:
        """The question ids ``rater_id`` has voted on."""
        rows = self.query(
            "SELECT question_id FROM votes WHERE survey_id = ? AND rater_id = ?",
            (survey_id, rater_id),
        )
        return {str(row[0]) for row in rows}

    def count(self, survey_id: str | None = None) -> int:
        """How many votes ``survey_id`` has (every survey's when None)."""
        if survey_id is None:
            rows = self.query("SELECT COUNT(*) FROM votes")
        else:
            rows = self.query("SELECT COUNT(*) FROM votes WHERE survey_id = ?", (survey_id,))
        total = rows[0][0]
        assert isinstance(total, int)
        return total
