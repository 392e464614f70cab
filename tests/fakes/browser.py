"""Headless Chromium for page tests: Debian's /usr/bin/chromium driven by Playwright.

Playwright never downloads a browser here; it launches the system Chromium. Without it (or
without the playwright package) the test is skipped with the reason — unless
EMPATHYBENCH_REQUIRE_BROWSER=1 (as in CI), where it fails instead.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def browser_missing() -> str | None:
    if importlib.util.find_spec("playwright") is None:
        return "the playwright package is not installed (pip install -e '.[dev]')"
    if not CHROMIUM.is_file():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    return None


@contextmanager
def chromium() -> Iterator[Any]:
    """A launched Chromium browser (Playwright ``Browser``), closed afterwards."""
    reason = browser_missing()
    if reason is not None:
        if os.environ.get("EMPATHYBENCH_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests are required but cannot run: {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
