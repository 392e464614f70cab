"""The one path of every live model call: the response cache, bounded classified retries
(``runtime.retry``), an optional rate limiter, and a count of the transport attempts.

The runner's answers, every LLM judge (benchmark, therapy) and the key checks call
``generate``; none of them reads or writes the cache or retries on its own. The caller owns
the cache key (it knows which versions change the answer) and ``Attempts`` (one per call
for a response, one per transcript for a judge, which adds the attempts of its re-asks).
A cache hit costs no attempt; only a successful output is stored.
"""

from __future__ import annotations

from dataclasses import dataclass

from empathybench.models.base import ModelAPI, ModelOutput, ModelRequest
from empathybench.runtime.cache import ResponseCache
from empathybench.runtime.retry import RateLimiter, call_with_retries


@dataclass
class Attempts:
    """Transport attempts made through ``generate`` (counted also when the call fails)."""

    count: int = 0


@dataclass(frozen=True)
class Generated:
    output: ModelOutput
    cached: bool


async def generate(
    model: ModelAPI,
    request: ModelRequest,
    *,
    key: str,
    cache: ResponseCache | None,
    max_attempts: int,
    max_backoff_s: float = 30.0,
    limiter: RateLimiter | None = None,
    attempts: Attempts | None = None,
) -> Generated:
    """``model``'s output for ``request``: from the cache under ``key``, else called with
    retries and stored. Raises the last ``ModelCallError`` when the call fails for good."""
    cached = cache.get(key) if cache is not None else None
    if cached is not None:
        return Generated(cached, cached=True)
    counter = attempts if attempts is not None else Attempts()
    first = counter.count

    def count(number: int) -> None:
        counter.count = first + number

    async def call() -> ModelOutput:
        if limiter is not None:
            await limiter.acquire()
        return await model.generate(request)

    output = await call_with_retries(
        call, max_attempts=max_attempts, max_backoff_s=max_backoff_s, on_attempt=count
    )
    if cache is not None:
        cache.put(key, model.spec.id, output)
    return Generated(output, cached=False)
