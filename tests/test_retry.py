"""The retry loop: only retryable kinds, bounded attempts, Retry-After honoured."""

from __future__ import annotations

import asyncio

import pytest

from empathybench.models.base import ModelCallError
from empathybench.runtime.retry import backoff_seconds, call_with_retries


def run(errors: list[ModelCallError | None], max_attempts: int) -> tuple[list[int], object]:
    attempts: list[int] = []
    queue = list(errors)

    async def call() -> str:
        error = queue.pop(0)
        if error is not None:
            raise error
        return "answer"

    async def go() -> object:
        try:
            return await call_with_retries(
                call, max_attempts=max_attempts, initial_backoff_s=0.001, on_attempt=attempts.append
            )
        except ModelCallError as error:
            return error

    return attempts, asyncio.run(go())


def test_retryable_errors_are_retried_until_an_answer() -> None:
    attempts, result = run([ModelCallError("server", "x"), ModelCallError("timeout", "y"), None], 5)
    assert (attempts, result) == ([1, 2, 3], "answer")


def test_a_final_error_is_not_retried() -> None:
    attempts, result = run([ModelCallError("client", "bad request", status=400)], 5)
    assert attempts == [1] and isinstance(result, ModelCallError) and result.kind == "client"


def test_attempts_are_bounded() -> None:
    attempts, result = run([ModelCallError("server", str(i)) for i in range(5)], 3)
    assert attempts == [1, 2, 3] and isinstance(result, ModelCallError)
    assert result.message == "2"


def test_other_exceptions_pass_through_at_once() -> None:
    async def call() -> str:
        raise KeyError("bug")

    with pytest.raises(KeyError):
        asyncio.run(call_with_retries(call, max_attempts=3))


def test_backoff_honours_retry_after_and_grows_within_bounds() -> None:
    limited = ModelCallError("rate_limit", "slow down", retry_after=7.0)
    assert backoff_seconds(limited, 1, initial=0.5, maximum=30) == 7.0
    huge = ModelCallError("rate_limit", "slow down", retry_after=10_000.0)
    assert backoff_seconds(huge, 1, initial=0.5, maximum=30) == 300.0
    plain = ModelCallError("server", "oops")
    assert 0.5 <= backoff_seconds(plain, 1, initial=0.5, maximum=30) <= 1.0
    assert 4.0 <= backoff_seconds(plain, 4, initial=0.5, maximum=30) <= 4.5
    assert backoff_seconds(plain, 40, initial=0.5, maximum=30) == 30
    assert backoff_seconds(plain, 5000, initial=0.5, maximum=30) == 30
