"""Votes in SQLite: one row per (survey, rater, question), written the moment it is cast.

SQLite's PRIMARY KEY is what makes a second vote by the same rater on the same question
fail, so two browser tabs (or two Gradio worker threads) racing on the same question store
exactly one vote; no read-then-write check is involved. Every insert is committed on its own
(autocommit), and WAL mode lets the results command read while the app keeps writing.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from types import TracebackType

from empathybench.errors import UserError
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


class VoteStore:
    """The votes file of a survey directory, safe to share between threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        if path.is_dir():
            raise UserError(f"{path}: is a directory, expected a votes database")
        if not path.parent.is_dir():
            raise UserError(f"{path.parent}: no such directory")
        self._connection: sqlite3.Connection | None = None
        try:
            self._connection = sqlite3.connect(
                path, timeout=30.0, isolation_level=None, check_same_thread=False
            )
            self._prepare(self._connection)
        except sqlite3.DatabaseError as error:
            self.close()
            raise UserError(f"{path}: not a usable votes database ({error})") from None
        except UserError:
            self.close()
            raise

    def _prepare(self, connection: sqlite3.Connection) -> None:
        version = int(connection.execute("PRAGMA user_version").fetchone()[0])
        if version > STORE_VERSION:
            raise UserError(
                f"{self.path}: votes file version {version} is newer than this empathybench "
                f"reads ({STORE_VERSION}); upgrade empathybench"
            )
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute(_SCHEMA)
        if version < STORE_VERSION:
            connection.execute(f"PRAGMA user_version = {STORE_VERSION}")

    def _open(self) -> sqlite3.Connection:
        if self._connection is None:
            raise ValueError("the vote store is closed")
        return self._connection

    def add(self, vote: Vote) -> None:
        """Store ``vote``; ``DuplicateVoteError`` when this rater already voted on it."""
        row = tuple(getattr(vote, column) for column in _COLUMNS)
        with self._lock:
            try:
                self._open().execute(
                    f"INSERT INTO votes ({', '.join(_COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    row,
                )
            except sqlite3.IntegrityError:
                raise DuplicateVoteError(
                    f"rater {vote.rater_id} already voted on question {vote.question_id}"
                ) from None

    def votes(self, survey_id: str) -> list[Vote]:
        """Every vote of ``survey_id``, oldest first."""
        with self._lock:
            rows = (
                self._open()
                .execute(
                    f"SELECT {', '.join(_COLUMNS)} FROM votes WHERE survey_id = ? ORDER BY rowid",
                    (survey_id,),
                )
                .fetchall()
            )
        return [Vote(**dict(zip(_COLUMNS, row, strict=True))) for row in rows]

    def answered(self, survey_id: str, rater_id: str) -> set[str]:
        """The question ids ``rater_id`` has voted on."""
        with self._lock:
            rows = (
                self._open()
                .execute(
                    "SELECT question_id FROM votes WHERE survey_id = ? AND rater_id = ?",
                    (survey_id, rater_id),
                )
                .fetchall()
            )
        return {str(row[0]) for row in rows}

    def count(self, survey_id: str | None = None) -> int:
        """How many votes ``survey_id`` has (every survey's when None)."""
        query = "SELECT COUNT(*) FROM votes"
        parameters: tuple[str, ...] = ()
        if survey_id is not None:
            query, parameters = query + " WHERE survey_id = ?", (survey_id,)
        with self._lock:
            return int(self._open().execute(query, parameters).fetchone()[0])

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def __enter__(self) -> VoteStore:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
