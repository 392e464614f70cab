"""Take credentials out of URLs before they are recorded (manifests, reports, logs).

A key is sometimes written into a server URL: ``http://user:KEY@host/v1`` or
``…/v1?api_key=KEY``. What a run records must never hold it, so every URL that is written
down goes through ``redact_url``: the user-info part becomes ``REDACTED`` and so does the
value of every query parameter whose name looks secret (key, token, sig, secret, password,
auth, credential, session, …). Other parameters (``api-version``) are kept, so the record
still says which server and which API were used. ``redact_urls`` does the same for every URL
inside a free text (an error message).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "REDACTED"
_SECRET_NAME = re.compile(
    r"(key|token|sig|signature|secret|passw|pwd|auth|credential|session|cookie)",
    re.IGNORECASE,
)
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+")


def is_secret_parameter(name: str) -> bool:
    return bool(_SECRET_NAME.search(name))


def redact_url(url: str) -> str:
    """``url`` without credentials or secret-looking query values."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return REDACTED
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}@{netloc.rsplit('@', 1)[1]}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(is_secret_parameter(name) for name, _ in pairs):
            query = urlencode(
                [(name, REDACTED if is_secret_parameter(name) else value) for name, value in pairs]
            )
    fragment = REDACTED if parts.fragment and "=" in parts.fragment else parts.fragment
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


def redact_urls(text: str) -> str:
    """``text`` with every URL in it passed through ``redact_url``."""
    return _URL_IN_TEXT.sub(lambda match: redact_url(match.group(0)), text)


def holds_secret(url: str) -> bool:
    """Whether recording ``url`` would lose a credential (``redact_url`` changes it)."""
    return redact_url(url) != url
