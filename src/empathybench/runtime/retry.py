"""Bounded, classified retries and a requests-per-minute limiter.

Retries use tenacity: only ``ModelCallError``s whose kind is retryable are retried (429,
5xx, timeouts, dropped connections, unusable answers); a server's Retry-After is honoured,
otherwise exponential back-off with jitter. Any other 4xx fails at once.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential_jitter,
)

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


def _is_retryable(error: BaseException) -> bool:
    return isinstance(error, ModelCallError) and error.retryable


class _Wait:
    def __init__(self, initial: float, maximum: float) -> None:
        self._backoff = wait_exponential_jitter(multiplier=initial, max=maximum, jitter=initial)

    def __call__(self, state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome else None
        if isinstance(error, ModelCallError) and error.retry_after is not None:
            return min(max(error.retry_after, 0.0), MAX_RETRY_AFTER_S)
        return float(self._backoff(state))


async def call_with_retries(
    call: Callable[[], Awaitable[T]],
    *,
    max_attempts: int,
    initial_backoff_s: float = 0.5,
    max_backoff_s: float = 30.0,
    on_attempt: Callable[[int], None] | None = None,
) -> T:
    """Run ``call`` until it succeeds, fails for good, or ``max_attempts`` are spent."""
    retrying = AsyncRetrying(
        stop=stop_after_attempt(max_attempts),
        retry=retry_if_exception(_is_retryable),
        wait=_Wait(initial_backoff_s, max_backoff_s),
        reraise=True,
    )
    async for attempt in retrying:
        with attempt:
            if on_attempt is not None:
                on_attempt(attempt.retry_state.attempt_number)
            return await call()
    raise AssertionError("unreachable: tenacity either returns or re-raises")
