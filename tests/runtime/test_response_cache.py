"""The response cache only saves calls: a locked database or an unreadable row never costs an
answer, and says so."""

import sqlite3
from pathlib import Path

import pytest

import empathybench as eb
from empathybench.models.base import ModelOutput
from empathybench.runtime import cache as cache_module
from empathybench.runtime.cache import ResponseCache


@pytest.fixture
def short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_module, "BUSY_TIMEOUT_S", 0.05, raising=False)


def _hold_write_lock(path: Path) -> sqlite3.Connection:
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    return other


def test_a_write_to_a_locked_cache_warns_and_keeps_going(
    tmp_path: Path, short_busy_timeout: None
) -> None:
    path = tmp_path / "cache.sqlite"
    cache = ResponseCache(path)
    other = _hold_write_lock(path)
    try:
        with pytest.warns(RuntimeWarning, match="answer kept but not cached"):
            cache.put("k", "mock/echo", ModelOutput(text="hello"))
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert cache.get("k") is None
    cache.put("k", "mock/echo", ModelOutput(text="hello"))
    assert cache.get("k") == ModelOutput(text="hello")
    cache.close()


def test_an_unreadable_row_is_a_miss_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    cache = ResponseCache(path)
    cache.put("k", "mock/echo", ModelOutput(text="hello"))
    with sqlite3.connect(path) as raw:
        raw.execute("UPDATE responses SET value = '{\"not\": \"an output\"}' WHERE key = 'k'")
    with pytest.warns(RuntimeWarning, match="cannot read a cached answer"):
        assert cache.get("k") is None
    cache.close()


def test_a_run_whose_cache_is_locked_loses_no_answer(
    tmp_path: Path, short_busy_timeout: None
) -> None:
    path = tmp_path / "cache.sqlite"
    ResponseCache(path).close()
    other = _hold_write_lock(path)
    try:
        with pytest.warns(RuntimeWarning, match="answer kept but not cached"):
            run = eb.run(
                "standard-v2",
                model="mock/echo",
                run_dir=tmp_path / "run",
                judges=[],
                limit=3,
                cache=path,
            )
    finally:
        other.execute("ROLLBACK")
        other.close()
    responses = eb.summarize(run)
    assert responses.dimensions
    lines = (tmp_path / "run" / "responses.jsonl").read_text().splitlines()
    assert len(lines) == 3
    assert all('"error":null' in line.replace(" ", "") for line in lines)
