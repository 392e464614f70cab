"""The classification and sanitising shared by the SDK adapters."""

from __future__ import annotations

import email.utils

import pytest

from empathybench.models.http_errors import kind_for_status, parse_retry_after, sanitise

NOW = 1_800_000_000.0


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "3"}, 3.0),
        ({"retry-after": "1.5"}, 1.5),
        ({"Retry-After": "3", "retry-after-ms": "250"}, 0.25),
        ({"Retry-After": email.utils.formatdate(NOW + 20, usegmt=True)}, 20.0),
        ({"Retry-After": email.utils.formatdate(NOW - 20, usegmt=True)}, 0.0),
        ({"Retry-After": "Wed, 21 Oct 2015 07:28:00 -0000"}, 0.0),
        ({"Retry-After": "soon"}, None),
        ({"Retry-After": "-4"}, None),
        ({"Retry-After": "nan"}, None),
        ({}, None),
    ],
)
def test_parse_retry_after(headers: dict[str, str], expected: float | None) -> None:
    assert parse_retry_after(headers, now=NOW) == expected


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (429, "rate_limit"),
        (408, "timeout"),
        (401, "auth"),
        (403, "auth"),
        (400, "client"),
        (404, "client"),
        (413, "client"),
        (500, "server"),
        (503, "server"),
        (529, "server"),
    ],
)
def test_kind_for_status(status: int, kind: str) -> None:
    assert kind_for_status(status) == kind


def test_sanitise_removes_keys_and_bearer_tokens_and_stays_short() -> None:
    text = sanitise(
        "key sk-abc-123 was wrong;\nheader 'Authorization: Bearer other-token'" + " x" * 500,
        ["sk-abc-123", None, ""],
    )
    assert "sk-abc-123" not in text and "other-token" not in text and "\n" not in text
    assert text.startswith("key *** was wrong; header 'Authorization: Bearer ***'")
    assert len(text) == 240 and text.endswith("…")
