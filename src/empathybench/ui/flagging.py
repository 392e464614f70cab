"""Flagging, as in the seed's app: a scored text and its scores appended to a CSV file.

The file is meant to be opened in a spreadsheet, and the text is whatever a visitor typed,
so text cells that a spreadsheet would run as a formula are prefixed with ``'``. One lock
serialises appends from Gradio's worker threads, so rows never interleave and the header is
written exactly once.
"""

from __future__ import annotations

import csv
import os
import threading
from datetime import datetime, timezone
from pathlib import Path

from empathybench.csv_cells import spreadsheet_safe
from empathybench.errors import ParameterError, UserError
from empathybench.scorer import EmpathyScores

FLAG_COLUMNS = (
    "flagged_at",
    "text",
    "cognitive",
    "emotional",
    "behavioral",
    "empathy",
    "scorer",
)


def _header_line() -> str:
    return ",".join(FLAG_COLUMNS)


class FlagLog:
    """The flag CSV: a header once, then one row per flag, each flushed as it is written."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def check(self) -> None:
        """Refuse a file that exists but was not written by this app (it would be mixed)."""
        if self.path.is_dir():
            raise UserError(f"{self.path}: is a folder; give a .csv file for flags")
        if not self.path.is_file() or self.path.stat().st_size == 0:
            return
        try:
            with self.path.open(encoding="utf-8", newline="") as file:
                first = file.readline().rstrip("\r\n")
        except (OSError, UnicodeDecodeError) as error:
            raise UserError(f"{self.path}: cannot be read as a flag file ({error})") from None
        if first != _header_line():
            raise ParameterError(
                f"{self.path}: exists and is not an empathybench flag file (its first line "
                f"is not {_header_line()}); choose another flag_file",
                parameters=["flag_file"],
            )

    def append(
        self, text: str, scores: EmpathyScores, scorer: str, *, now: datetime | None = None
    ) -> None:
        """Add one row for ``text`` scored ``scores`` by ``scorer``."""
        flagged_at = (now or datetime.now(timezone.utc)).isoformat(timespec="seconds")
        row: list[object] = [
            flagged_at,
            spreadsheet_safe(text),
            scores.cognitive,
            scores.emotional,
            scores.behavioral,
            scores.empathy,
            spreadsheet_safe(scorer),
        ]
        with self._lock:
            self.check()
            self.path.parent.mkdir(parents=True, exist_ok=True)
            new_file = not self.path.exists() or self.path.stat().st_size == 0
            try:
                with self.path.open("a", encoding="utf-8", newline="") as file:
                    # RFC 4180 line ends: the csv module then quotes any cell holding a
                    # CR or LF, so a typed line break can never split a row.
                    writer = csv.writer(file, lineterminator="\r\n")
                    if new_file:
                        writer.writerow(FLAG_COLUMNS)
                    writer.writerow(row)
                    file.flush()
                    os.fsync(file.fileno())
            except OSError as error:
                raise UserError(f"{self.path}: cannot write the flag ({error.strerror})") from None
