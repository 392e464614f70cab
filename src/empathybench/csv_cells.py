"""CSV files that are safe to open in a spreadsheet, and back (survey and annotation exports).

Text typed by visitors, raters or models can start with a character that Excel, LibreOffice
or Sheets run as a formula (``=``, ``+``, ``-``, ``@``, tab, carriage return). A leading
``'`` makes such a cell inert. A cell that already starts with quotes before a formula
character gets one more, so ``from_spreadsheet`` undoes exactly what was added and a CSV
written and read back is unchanged.

Reading is for imports of rows people typed: the header is matched case-insensitively, blank
rows are skipped, every row keeps its line number for messages, and a broken file is one
``UserError``; each row is then checked by the caller, which reports ``line N: why``.
"""

from __future__ import annotations

import csv
import io
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from empathybench.errors import UserError
from empathybench.jsonl import MAX_FILE_BYTES, read_text

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_LETTER = re.compile(r"^\s*(?:(?:answer|response|option)\s+)?([A-Za-z])\s*[.)]?\s*$", re.I)


def spreadsheet_safe(cell: str) -> str:
    """``cell`` as inert text for a spreadsheet."""
    return "'" + cell if cell.lstrip("'").startswith(FORMULA_STARTS) else cell


def from_spreadsheet(cell: str) -> str:
    """The original text of a cell written by ``spreadsheet_safe``."""
    if cell.startswith("'") and cell[1:].lstrip("'").startswith(FORMULA_STARTS):
        return cell[1:]
    return cell


def csv_text(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A whole CSV file with every cell made spreadsheet-safe."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, quoting=csv.QUOTE_MINIMAL)
    writer.writerow(header)
    writer.writerows([spreadsheet_safe(cell) for cell in row] for row in rows)
    return buffer.getvalue()


def read_csv_text(path: Path) -> str:
    """The text of a UTF-8 CSV file (BOM dropped), read safely, with fields allowed up to the
    file size limit (the csv module refuses fields over 131,072 characters by default)."""
    csv.field_size_limit(min(sys.maxsize, MAX_FILE_BYTES))
    return read_text(path, "a UTF-8 CSV file", encoding="utf-8-sig")


def read_csv_rows(
    path: Path, *, required: Sequence[str], optional: Sequence[str], what: str
) -> list[tuple[int, dict[str, str]]]:
    """(line number, row by lower-cased column) of a CSV; a broken file is one UserError.

    ``what`` names a row in the missing-column message ("a vote CSV needs a header with …").
    """
    reader = csv.reader(io.StringIO(read_csv_text(path), newline=""))
    try:
        header = [name.strip().lower() for name in next(reader, [])]
        rows = []
        for values in reader:
            if any(value.strip() for value in values):
                cells = [from_spreadsheet(value) for value in values]
                rows.append((reader.line_num, dict(zip(header, cells, strict=False))))
    except csv.Error as error:
        raise UserError(f"{path}: not a valid CSV file (line {reader.line_num}: {error})") from None
    missing = [name for name in required if name not in header]
    if missing:
        raise UserError(
            f"{path}: missing column(s) {', '.join(missing)}; a {what} CSV needs a header with "
            f"{', '.join(required)} (optional: {', '.join(optional)})"
        )
    return rows


def option_letter(value: str) -> str:
    """``A``, ``a``, ``A.``, ``A)``, ``Answer A`` or ``Option a`` → ``A``; else unchanged."""
    match = _LETTER.match(value)
    return match.group(1).upper() if match else value


@dataclass
class ImportReport:
    """What an import did: rows added, rows that repeated a stored answer, rows refused."""

    added: int = 0
    duplicates: int = 0
    rejected: list[str] = field(default_factory=list)
    """``line N: why`` for each refused row."""


def import_rows(
    rows: Iterable[tuple[int, dict[str, str]]],
    add: Callable[[dict[str, str]], None],
    *,
    duplicate: type[UserError],
    id_column: str,
    own_id: str,
    what: str,
    container: str,
) -> ImportReport:
    """Add each row with ``add`` (which raises UserError for a row it refuses, ``duplicate``
    for one already stored); a row whose ``id_column`` names another ``container`` than
    ``own_id`` is refused unread."""
    report = ImportReport()
    for line, row in rows:
        other = (row.get(id_column) or "").strip()
        if other and other != own_id:
            report.rejected.append(
                f"line {line}: {what} for {container} {other}, not this {container}"
            )
            continue
        try:
            add(row)
        except duplicate:
            report.duplicates += 1
        except UserError as error:
            report.rejected.append(f"line {line}: {error}")
        else:
            report.added += 1
    return report
