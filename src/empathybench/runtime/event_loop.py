"""Run a coroutine to completion from synchronous code: the one place a loop is started.

The library's stages are coroutines (``empathybench.run_async`` and friends); the plain
functions (``empathybench.run``) call them through ``run_coroutine``. With no event loop
running in this thread it starts one; inside a running loop (a notebook cell, a service) it
runs the coroutine on a fresh loop in a worker thread and waits, so the blocking call still
works there — though such callers should rather ``await`` the async twin.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

T = TypeVar("T")
P = ParamSpec("P")


def run_coroutine(coroutine: Coroutine[Any, Any, T]) -> T:
    """The result of ``coroutine``, run on a new event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def blocking_twin(function: Callable[P, Coroutine[Any, Any, T]], name: str) -> Callable[P, T]:
    """The plain twin ``name`` of the coroutine function ``function``: the same parameters
    (one signature to keep, for type checkers too), its result waited for."""

    @functools.wraps(function)
    def twin(*args: P.args, **kwargs: P.kwargs) -> T:
        return run_coroutine(function(*args, **kwargs))

    twin.__name__ = name
    twin.__qualname__ = name
    twin.__doc__ = f"``{function.__name__}``, waited for.\n\n{function.__doc__ or ''}".rstrip()
    return twin
