"""The flag CSV: header once, formulas made inert, rows whole under concurrent appends."""

import csv
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from empathybench.csv_cells import spreadsheet_safe
from empathybench.errors import UserError
from empathybench.scorer import EmpathyScores
from empathybench.ui.flagging import FLAG_COLUMNS, FlagLog
from empathybench.ui.scoring import ScoredText, flag

SCORES = EmpathyScores(cognitive=2.5, emotional=1.25, behavioral=3.0, empathy=2.25)


def rows(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as file:
        return list(csv.reader(file))


def test_the_header_is_written_once_and_rows_are_appended(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "flags.csv"
    log = FlagLog(path)
    moment = datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    log.append("I hear you, that sounds hard.", SCORES, "bundled:empathy-v1", now=moment)
    FlagLog(path).append("Second, with a comma, and\na newline", SCORES, "head-dir")
    table = rows(path)
    assert table[0] == list(FLAG_COLUMNS)
    assert len(table) == 3
    assert table[1] == [
        "2025-01-02T03:04:05+00:00",
        "I hear you, that sounds hard.",
        "2.5",
        "1.25",
        "3.0",
        "2.25",
        "bundled:empathy-v1",
    ]
    assert table[2][1] == "Second, with a comma, and\na newline"
    assert datetime.fromisoformat(table[2][0]).utcoffset() == timedelta(0)
    assert path.read_text(encoding="utf-8").count("flagged_at") == 1


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_cells_a_spreadsheet_would_run_are_made_inert(start: str, tmp_path: Path) -> None:
    text = f'{start}HYPERLINK("http://evil.example","click")'
    assert spreadsheet_safe(text) == "'" + text
    path = tmp_path / "flags.csv"
    FlagLog(path).append(text, SCORES, f"{start}scorer")
    row = rows(path)[1]
    assert row[1] == "'" + text
    assert row[6] == f"'{start}scorer"


def test_ordinary_text_is_kept_as_is() -> None:
    for text in ["I hear you", "3 = strong", " =not at the start", "ünïcødé ✓", ""]:
        assert spreadsheet_safe(text) == text


def test_concurrent_flags_never_interleave(tmp_path: Path) -> None:
    path = tmp_path / "flags.csv"
    log = FlagLog(path)
    threads_count, per_thread = 8, 25
    start = threading.Barrier(threads_count)

    def worker(index: int) -> None:
        start.wait()
        for n in range(per_thread):
            log.append(f'thread {index} flag {n}, with "quotes"\nand lines', SCORES, "s")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(threads_count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    table = rows(path)
    assert table[0] == list(FLAG_COLUMNS)
    body = table[1:]
    assert len(body) == threads_count * per_thread
    assert all(len(row) == len(FLAG_COLUMNS) for row in body)
    expected = {
        f'thread {i} flag {n}, with "quotes"\nand lines'
        for i in range(threads_count)
        for n in range(per_thread)
    }
    assert {row[1] for row in body} == expected


def test_a_file_that_is_not_a_flag_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "accounts.csv"
    path.write_text("name,balance\nalice,10\n", encoding="utf-8")
    log = FlagLog(path)
    with pytest.raises(UserError, match="not an empathybench flag file"):
        log.check()
    with pytest.raises(UserError, match="not an empathybench flag file"):
        log.append("text", SCORES, "s")
    assert path.read_text(encoding="utf-8") == "name,balance\nalice,10\n"


def test_flagging_before_scoring_is_a_friendly_error(tmp_path: Path) -> None:
    log = FlagLog(tmp_path / "flags.csv")
    with pytest.raises(UserError, match="Score a text first"):
        flag(log, None, "s")
    assert not log.path.exists()
    flag(log, ScoredText("kind words", SCORES), "s")
    assert rows(log.path)[1][1] == "kind words"
