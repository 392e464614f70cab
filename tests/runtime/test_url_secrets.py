"""Credentials never reach a record: user-info and secret-looking query values are removed."""

from __future__ import annotations

import pytest

from empathybench.records import CallError
from empathybench.runtime.url_secrets import holds_secret, redact_url, redact_urls


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://user:KEY@host:8000/v1", "http://REDACTED@host:8000/v1"),
        ("https://KEY@host/v1", "https://REDACTED@host/v1"),
        (
            "https://h/v1?api_key=KEY&api-version=2024-06-01",
            "https://h/v1?api_key=REDACTED&api-version=2024-06-01",
        ),
        ("https://h/x?sig=KEY&token=KEY&Access_Token=KEY", None),
        ("https://h/x?key=KEY", "https://h/x?key=REDACTED"),
        ("http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v1"),
    ],
)
def test_secrets_are_removed_and_the_rest_kept(url: str, expected: str | None) -> None:
    redacted = redact_url(url)
    assert "KEY" not in redacted
    if expected is not None:
        assert redacted == expected
    assert holds_secret(url) == (redacted != url)


def test_urls_inside_error_messages_are_redacted_when_recorded() -> None:
    text = "connection to http://u:KEY@h/v1?token=KEY failed; see https://docs.example/x"
    assert "KEY" not in redact_urls(text)
    assert "https://docs.example/x" in redact_urls(text)
    error = CallError(kind="connection", message=text)
    assert "KEY" not in error.message
