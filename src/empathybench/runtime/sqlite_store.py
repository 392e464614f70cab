"""A small SQLite file shared by threads: the base of the survey's and the annotation's stores.

One connection (``check_same_thread=False``) behind one lock, autocommit (every statement
is committed on its own), WAL so a reader (the results command) never waits for the app,
and ``PRAGMA user_version`` as the file's format version: a file written by a newer
empathybench is refused rather than misread. Subclasses give the schema, the version and the
words an error uses for the file ("votes", "annotations").
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from empathybench.errors import UserError
from empathybench.runtime.closing import Closing


class SharedSqliteStore(Closing):
    """Open ``path`` (creating the file and its table), check its version, share it safely."""

    SCHEMA: ClassVar[str]
    """``CREATE TABLE IF NOT EXISTS …``: run on every open."""
    STORE_VERSION: ClassVar[int]
    WHAT: ClassVar[str]
    """What the file holds, for messages: ``votes`` → "not a usable votes database"."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        if path.is_dir():
            raise UserError(f"{path}: is a directory, expected a {self.WHAT} database")
        if not path.parent.is_dir():
            raise UserError(f"{path.parent}: no such directory")
        try:
            self._connection = sqlite3.connect(
                path, timeout=30.0, isolation_level=None, check_same_thread=False
            )
            self._prepare(self._connection)
        except sqlite3.DatabaseError as error:
            self.close()
            raise UserError(f"{path}: not a usable {self.WHAT} database ({error})") from None
        except UserError:
            self.close()
            raise

    def _prepare(self, connection: sqlite3.Connection) -> None:
        version = int(connection.execute("PRAGMA user_version").fetchone()[0])
        if version > self.STORE_VERSION:
            raise UserError(
                f"{self.path}: {self.WHAT} file version {version} is newer than this "
                f"empathybench reads ({self.STORE_VERSION}); upgrade empathybench"
            )
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute(self.SCHEMA)
        if version < self.STORE_VERSION:
            connection.execute(f"PRAGMA user_version = {self.STORE_VERSION}")

    def _open(self) -> sqlite3.Connection:
        if self._connection is None:
            raise ValueError(f"the {self.WHAT} store is closed")
        return self._connection

    def query(self, sql: str, parameters: Sequence[object] = ()) -> list[tuple[object, ...]]:
        """The rows of one SELECT, read under the lock."""
        with self._lock:
            return list(self._open().execute(sql, tuple(parameters)).fetchall())

    def execute(self, sql: str, parameters: Sequence[object] = ()) -> None:
        """One committed write; ``sqlite3.IntegrityError`` when it breaks a key."""
        with self._lock:
            self._open().execute(sql, tuple(parameters))

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None
