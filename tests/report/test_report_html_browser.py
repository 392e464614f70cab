"""report.html and leaderboard.html in real headless Chromium: content, drill-down, no script."""

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from empathybench.analysis.leaderboard import build_leaderboard
from empathybench.analysis.run_sets import load_runs
from empathybench.records import Suite
from empathybench.report.leaderboard_report import write_leaderboard
from empathybench.report.run_report import write_report
from tests.fakes.browser import chromium
from tests.fakes.mock_runs import (
    PLANTED_IMAGE,
    PLANTED_REPLY,
    PLANTED_SCRIPT,
    answering,
    make_run,
    scripted_judge,
)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def runs(
    small_suite: Suite, small_suite_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> list[Path]:
    base = tmp_path_factory.mktemp("html-runs")
    planted_judge = "mock/judge-planted"
    hostile = make_run(
        base / "hostile",
        small_suite,
        small_suite_path,
        "mock/hostile",
        model=answering(small_suite, "mock/hostile", right_ids=set(), reply=PLANTED_REPLY),
        judges=[planted_judge],
        judge_models={planted_judge: scripted_judge(planted_judge, f"judge says {PLANTED_SCRIPT}")},
    )
    honest = make_run(
        base / "honest",
        small_suite,
        small_suite_path,
        "mock/honest",
        judges=[planted_judge],
        judge_models={planted_judge: scripted_judge(planted_judge, "fine")},
    )
    return [hostile, honest]


@contextmanager
def opened(path: Path) -> Iterator[tuple[Any, list[str]]]:
    """The page at ``path`` in a fresh headless Chromium, and the URLs it requested.

    The browser starts only after the runs and files are made: Playwright's sync API keeps
    an event loop running, and the runner's ``asyncio.run`` cannot start inside one.
    """
    with chromium() as browser:
        page = browser.new_page()
        requests: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        page.goto(path.resolve().as_uri())
        page.wait_for_load_state("load")
        yield page, requests


def test_the_table_and_figures_are_there(runs: list[Path], tmp_path: Path) -> None:
    write_report(runs, tmp_path / "report")
    with opened(tmp_path / "report" / "report.html") as (page, requests):
        table = page.locator("#headline-table")
        assert table.is_visible()
        assert table.locator("tbody tr").count() == 2
        assert "mock/hostile" in table.inner_text() and "Emotion Recognition" in table.inner_text()
        images = page.locator(".figures img")
        assert images.count() >= 3
        assert all(
            page.evaluate("(img) => img.naturalWidth", images.nth(i).element_handle()) > 0
            for i in range(images.count())
        )
        # Self-contained: nothing but the file itself and inline data was requested.
        assert all(url.startswith(("file://", "data:")) for url in requests), requests


def test_the_drill_down_opens(runs: list[Path], tmp_path: Path) -> None:
    write_report(runs[1:], tmp_path / "report")
    with opened(tmp_path / "report" / "report.html") as (page, _):
        item = page.locator("details.item").first
        truth = item.locator("h4", has_text="Hidden truth")
        assert item.get_attribute("open") is None and not truth.is_visible()
        item.locator("summary").click()
        assert item.get_attribute("open") is not None
        assert truth.is_visible()
        assert item.locator("text=Judge mock/judge-planted").is_visible()
        assert "fine" in item.inner_text()  # the judge's rationale


def test_planted_markup_in_a_response_never_runs(runs: list[Path], tmp_path: Path) -> None:
    write_report(runs[:1], tmp_path / "report")
    html = (tmp_path / "report" / "report.html").read_text()
    assert PLANTED_SCRIPT not in html and PLANTED_IMAGE not in html
    with opened(tmp_path / "report" / "report.html") as (page, _):
        items = page.locator("details.item")
        for index in range(min(items.count(), 5)):
            items.nth(index).locator("summary").click()
        page.wait_for_timeout(300)  # time for an injected onerror handler to fire, were it live
        assert page.evaluate("typeof window.__pwned") == "undefined"
        assert page.evaluate("document.querySelectorAll('script').length") == 0
        assert page.evaluate("document.querySelectorAll('img[src=\"x\"]').length") == 0
        response = items.first.locator("pre.response")
        assert response.is_visible()
        shown = response.inner_text()
        assert PLANTED_REPLY in shown  # visible, verbatim, as text
        # The judge's rationale is shown as text too.
        assert f"judge says {PLANTED_SCRIPT}" in items.first.inner_text()


def test_the_leaderboard_page_lists_ranks_and_what_was_left_out(
    runs: list[Path], small_suite: Suite, small_suite_path: Path, tmp_path: Path
) -> None:
    other = make_run(
        tmp_path / "other", small_suite, small_suite_path, "mock/other", judges=["mock/judge-a"]
    )
    loaded, unreadable = load_runs([*runs, other])
    write_leaderboard(build_leaderboard(loaded, unreadable), tmp_path / "board")
    with opened(tmp_path / "board" / "leaderboard.html") as (page, _):
        table = page.locator("#leaderboard-table")
        assert table.locator("tbody tr").count() == 2
        assert "mock/honest" in table.inner_text()
        assert "mock/other" in page.locator("#left-out").inner_text()
        assert page.evaluate("typeof window.__pwned") == "undefined"
