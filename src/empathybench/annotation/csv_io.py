"""Answers as CSV: export every stored answer, import answers collected offline.

The export is formula-safe for spreadsheets (``csv_cells``) and re-imports unchanged. An
import checks each row as the app checks a submission (the session's rules) and stores it
on its own, so fixing the rejected rows and importing again adds just them; a row repeating
a stored answer counts as a duplicate, and the first answer stands.
"""

from __future__ import annotations

from pathlib import Path

from empathybench.annotation.records import Annotation
from empathybench.annotation.session import AnnotationSession
from empathybench.annotation.store import DuplicateAnswerError
from empathybench.csv_cells import (
    ImportReport,
    csv_text,
    import_rows,
    option_letter,
    read_csv_rows,
)
from empathybench.errors import UserError
from empathybench.jsonl import atomic_write_text

EXPORT_COLUMNS = ("study_id", "rater_id", "item_id", "emotion", "help", "who", "answered_at")
REQUIRED_IMPORT_COLUMNS = ("rater_id", "item_id", "emotion", "help")
OPTIONAL_IMPORT_COLUMNS = ("who", "answered_at", "study_id")


def export_answers_csv(answers: list[Annotation], path: Path) -> None:
    """Every answer, one row each (``EXPORT_COLUMNS``), for spreadsheets and re-import."""
    if path.is_dir():
        raise UserError(f"{path}: is a directory; give a .csv file path")
    rows = [
        [
            answer.study_id,
            answer.rater_id,
            answer.item_id,
            answer.emotion,
            answer.help,
            answer.who or "",
            answer.answered_at,
        ]
        for answer in answers
    ]
    atomic_write_text(path, csv_text(EXPORT_COLUMNS, rows))


def import_answers_csv(path: Path, session: AnnotationSession) -> ImportReport:
    """Add the answers of a CSV through the session's checks (see the module notes).

    A row for another study (a ``study_id`` that does not match) is rejected: its item ids
    and order may differ.
    """
    rows = read_csv_rows(
        path, required=REQUIRED_IMPORT_COLUMNS, optional=OPTIONAL_IMPORT_COLUMNS, what="answer"
    )

    def add(row: dict[str, str]) -> None:
        session.answer(
            row.get("rater_id") or "",
            (row.get("item_id") or "").strip(),
            option_letter(row.get("emotion") or ""),
            row.get("help") or "",
            row.get("who") or None,
            answered_at=(row.get("answered_at") or "").strip() or None,
        )

    return import_rows(
        rows,
        add,
        duplicate=DuplicateAnswerError,
        id_column="study_id",
        own_id=session.study_id,
        what="answer",
        container="study",
    )
