"""What the SDK adapters share: classifying failed calls, Retry-After, key-safe messages.

The ``openai`` and ``anthropic`` SDKs raise errors of the same shape (a status error with
``status_code``, ``response`` and ``body``; a timeout error that is a kind of connection
error; a response validation error), so one classifier serves both, given the SDK's classes.
Every message built here passes through ``sanitise`` so that an API key can never reach a
log, a record or a terminal, even when a provider echoes it back.
"""

from __future__ import annotations

import email.utils
import json
import math
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import timezone
from typing import Protocol, cast

from empathybench.errors import UserError
from empathybench.models.base import ErrorKind, ModelCallError, ModelSpec

DEFAULT_TIMEOUT_SECONDS = 120.0
MAX_MESSAGE_CHARS = 240
REDACTED = "***"
_BEARER = re.compile(r"(?i)\b(bearer\s+)[^\s'\",}]+")
_SPACES = re.compile(r"\s+")


class _Headers(Protocol):
    def items(self) -> Iterable[tuple[str, str]]: ...


class _Response(Protocol):
    @property
    def headers(self) -> _Headers: ...


class _StatusError(Protocol):
    """The part of ``openai.APIStatusError`` / ``anthropic.APIStatusError`` used here."""

    status_code: int
    body: object | None
    message: str

    @property
    def response(self) -> _Response: ...


@dataclass(frozen=True)
class SdkErrors:
    """One SDK's exception classes, most specific first where they inherit."""

    status: type[Exception]
    timeout: type[Exception]
    connection: type[Exception]
    validation: type[Exception]
    base: type[Exception]


def timeout_seconds(spec: ModelSpec) -> float:
    """The ``timeout`` option (seconds per request), validated."""
    value = spec.options.get("timeout", DEFAULT_TIMEOUT_SECONDS)
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise UserError(f"{spec.id}: option timeout must be a number of seconds, not {value!r}")
    try:
        seconds = float(value)
    except ValueError:
        raise UserError(
            f"{spec.id}: option timeout must be a number of seconds, not {value!r}"
        ) from None
    if not math.isfinite(seconds) or seconds <= 0:
        raise UserError(f"{spec.id}: option timeout must be a positive number of seconds")
    return seconds


def token_count(value: object) -> int | None:
    """A usage count from an unvalidated response body, or None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def sanitise(text: str, secrets: Iterable[str | None]) -> str:
    """One short line with every secret and bearer token replaced by ``***``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    text = _SPACES.sub(" ", _BEARER.sub(rf"\g<1>{REDACTED}", text)).strip()
    if len(text) > MAX_MESSAGE_CHARS:
        text = text[: MAX_MESSAGE_CHARS - 1] + "…"
    return text


def kind_for_status(status: int) -> ErrorKind:
    """The error kind of an HTTP status that is not a success."""
    if status == 429:
        return "rate_limit"
    if status == 408:
        return "timeout"
    if status in (401, 403):
        return "auth"
    if status >= 500:
        return "server"
    if status >= 400:
        return "client"
    return "bad_response"


def parse_retry_after(headers: _Headers, *, now: float | None = None) -> float | None:
    """Seconds to wait: ``retry-after-ms``, else ``Retry-After`` as seconds or an HTTP date."""
    lowered = {name.lower(): value.strip() for name, value in headers.items()}
    milliseconds = _non_negative(lowered.get("retry-after-ms"))
    if milliseconds is not None:
        return milliseconds / 1000
    value = lowered.get("retry-after")
    if not value:
        return None
    seconds = _non_negative(value)
    if seconds is not None:
        return seconds
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if moment.tzinfo is None:  # an HTTP date is always GMT
        moment = moment.replace(tzinfo=timezone.utc)
    return max(0.0, moment.timestamp() - (time.time() if now is None else now))


def _non_negative(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) and number >= 0 else None


def provider_message(body: object | None, fallback: str) -> str:
    """The human part of an error body: ``error.message`` in both providers' formats."""
    if isinstance(body, Mapping):
        error = body.get("error")
        if isinstance(error, Mapping) and isinstance(error.get("message"), str):
            return str(error["message"])
        if isinstance(error, str):
            return error
        if isinstance(body.get("message"), str):
            return str(body["message"])
    if isinstance(body, str) and body.strip():
        return body
    return fallback


def error_for_status(
    status: int,
    headers: _Headers,
    body: object | None,
    fallback: str,
    secrets: Iterable[str | None],
) -> ModelCallError:
    kind = kind_for_status(status)
    retry_after = parse_retry_after(headers) if kind in ("rate_limit", "server") else None
    message = sanitise(provider_message(body, fallback), secrets) or "no details"
    return ModelCallError(kind, message, status=status, retry_after=retry_after)


def classify_sdk_error(
    error: Exception, sdk: SdkErrors, secrets: Iterable[str | None], *, timeout: float
) -> ModelCallError:
    """Any exception from an SDK call (or its response parsing) as a ``ModelCallError``."""
    secrets = tuple(secrets)
    if isinstance(error, sdk.status):
        failed = cast(_StatusError, error)
        return error_for_status(
            failed.status_code, failed.response.headers, failed.body, failed.message, secrets
        )
    if isinstance(error, sdk.timeout):
        return ModelCallError("timeout", f"no response within {timeout:g} s")
    if isinstance(error, sdk.connection):
        return ModelCallError("connection", _describe(error, secrets))
    if isinstance(error, sdk.validation):
        return ModelCallError(
            "bad_response", _describe(error, secrets), status=cast(_StatusError, error).status_code
        )
    if isinstance(error, json.JSONDecodeError):
        return ModelCallError("bad_response", f"response body is not valid JSON ({error.msg})")
    if isinstance(error, UnicodeDecodeError):
        return ModelCallError("bad_response", "response body is not valid UTF-8")
    if isinstance(error, sdk.base):
        return ModelCallError("client", _describe(error, secrets))
    raise error


def _describe(error: BaseException, secrets: Iterable[str | None]) -> str:
    """The error and the lower-level cause the SDK wrapped (e.g. 'Server disconnected')."""
    text = str(error) or type(error).__name__
    cause = error.__cause__ or error.__context__
    if cause is not None and (not str(cause) or str(cause) not in text):
        detail = f": {cause}" if str(cause) else ""
        text = f"{text.rstrip('.')}: {type(cause).__name__}{detail}"
    return sanitise(text, secrets)
