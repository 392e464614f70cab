"""Status lines: a user's mistake in its own words, anything else without a traceback."""

import logging

import pytest

from empathybench.errors import UserError
from empathybench.ui.messages import UNEXPECTED, problem


def test_a_user_error_is_shown_escaped() -> None:
    message = problem(UserError("/runs/<b>x</b>: not a run directory"), "Not saved: ")
    assert message == "⚠️ Not saved: /runs/&lt;b&gt;x&lt;/b&gt;: not a run directory"


def test_an_unexpected_error_is_logged_not_shown(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="empathybench.ui"):
        message = problem(RuntimeError("secret internals at /srv/app.py line 3"))
    assert message == UNEXPECTED
    assert "secret internals" not in message
    [record] = caplog.records
    assert record.exc_info is not None and "secret internals" in str(record.exc_info[1])
