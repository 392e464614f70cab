"""Without Chromium, browser tests skip with the reason — or fail when CI requires them."""

from pathlib import Path

import pytest

from tests.fakes import browser


def test_missing_chromium_skips_or_fails_when_required(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(browser, "CHROMIUM", tmp_path / "no-chromium")
    monkeypatch.delenv("EMPATHYBENCH_REQUIRE_BROWSER", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no Chromium at"), browser.chromium():
        pass
    monkeypatch.setenv("EMPATHYBENCH_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception, match="required but cannot run"), browser.chromium():
        pass
