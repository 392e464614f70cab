"""CSV cells that are safe to open in a spreadsheet, and back.

Text typed by visitors, raters or models can start with a character that Excel, LibreOffice
or Sheets run as a formula (``=``, ``+``, ``-``, ``@``, tab, carriage return). A leading
``'`` makes such a cell inert. A cell that already starts with quotes before a formula
character gets one more, so ``from_spreadsheet`` undoes exactly what was added and a CSV
written and read back is unchanged.
"""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(cell: str) -> str:
    """``cell`` as inert text for a spreadsheet."""
    return "'" + cell if cell.lstrip("'").startswith(FORMULA_STARTS) else cell


def from_spreadsheet(cell: str) -> str:
    """The original text of a cell written by ``spreadsheet_safe``."""
    if cell.startswith("'") and cell[1:].lstrip("'").startswith(FORMULA_STARTS):
        return cell[1:]
    return cell
