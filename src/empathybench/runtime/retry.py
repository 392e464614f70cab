"""Bounded, classified retries and a requests-per-minute limiter.

Only ``ModelCallError``s whose kind is retryable are retried (429, 5xx, timeouts, dropped
connections, unusable answers); a server's Retry-After is honoured, otherwise exponential
back-off with jitter (tenacity's ``wait_exponential_jitter`` formula). Any other 4xx fails at
once. The loop is written out rather than built on tenacity's ``AsyncRetrying``: it runs once
per model call, and a call that succeeds first time (nearly all of them) then costs one
``await`` and no objects; see issue 18.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from empathybench.models.base import ModelCallError

T = TypeVar("T")
MAX_RETRY_AFTER_S = 300.0


class RateLimiter:
    """Spaces calls evenly so that no more than ``per_minute`` start in any minute."""

    def __init__(self, per_minute: float | None) -> None:
        self._interval = 60.0 / per_minute if per_minute else 0.0
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def acquire(self) -> None:
        if not self._interval:
            return
        async with self._lock:
            now = time.monotonic()
            wait = max(0.0, self._next - now)
            self._next = max(now, self._next) + self._interval
        if wait:
            await asyncio.sleep(wait)


def backoff_seconds(
    error: ModelCallError, attempt: int, *, initial: float, maximum: float
) -> float:
    """How long to wait after failed attempt number ``attempt`` (1-based)."""
    if error.retry_after is not None:
        return min(max(error.retry_after, 0.0), MAX_RETRY_AFTER_S)
    try:
        wait = initial * 2.0 ** (attempt - 1) + random.uniform(0, initial)
    except OverflowError:
        return maximum
    return max(0.0, min(wait, maximum))


async def call_with_retries(
    call: Callable[[], Awaitable[T]],
    *,
    max_attempts: int,
    initial_backoff_s: float = 0.5,
    max_backoff_s: float = 30.0,
    on_attempt: Callable[[int], None] | None = None,
) -> T:
    """Run ``call`` until it succeeds, fails for good, or ``max_attempts`` are spent."""
    attempt = 1
    while True:
        if on_attempt is not None:
            on_attempt(attempt)
        try:
            return await call()
        except ModelCallError as error:
            if not error.retryable or attempt >= max_attempts:
                raise
            await asyncio.sleep(
                backoff_seconds(error, attempt, initial=initial_backoff_s, maximum=max_backoff_s)
            )
        attempt += 1
