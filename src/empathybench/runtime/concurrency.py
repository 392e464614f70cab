"""Work through items with a bounded number of concurrent tasks, reporting progress."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import TypeVar

from empathybench.errors import ParameterError
from empathybench.progress import ProgressCallback, ProgressUpdate, report_progress

ItemT = TypeVar("ItemT")


def check_connections(max_connections: int) -> None:
    """Zero or fewer connections would do nothing (or wait forever): refuse them."""
    if max_connections < 1:
        raise ParameterError.about("max_connections", f"must be at least 1, got {max_connections}")


async def for_each_concurrently(
    items: Sequence[ItemT],
    handle: Callable[[ItemT], Awaitable[None]],
    *,
    description: str,
    max_connections: int,
    progress: ProgressCallback | None = None,
) -> int:
    """Await ``handle(item)`` for every item, at most ``max_connections`` at once; the count.

    Workers pull from one shared iterator, so a slow item never holds back the others.
    ``progress`` hears ``description`` with the count at the start and after every item.
    """
    check_connections(max_connections)
    work: Iterator[ItemT] = iter(items)
    done = 0
    report_progress(progress, ProgressUpdate(description, 0, len(items)))

    async def worker() -> None:
        nonlocal done
        for item in work:
            await handle(item)
            done += 1
            report_progress(progress, ProgressUpdate(description, done, len(items)))

    workers = min(max_connections, max(len(items), 1))
    await asyncio.gather(*(worker() for _ in range(workers)))
    return done
