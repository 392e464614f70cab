"""Work through items with a bounded number of concurrent tasks and a progress bar."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import TypeVar

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from empathybench.errors import ParameterError

ItemT = TypeVar("ItemT")


def check_connections(max_connections: int) -> None:
    """Zero or fewer connections would do nothing (or wait forever): refuse them."""
    if max_connections < 1:
        raise ParameterError("max_connections", f"must be at least 1, got {max_connections}")


async def for_each_concurrently(
    items: Sequence[ItemT],
    handle: Callable[[ItemT], Awaitable[None]],
    *,
    description: str,
    max_connections: int,
    show_progress: bool,
) -> int:
    """Await ``handle(item)`` for every item, at most ``max_connections`` at once; the count.

    Workers pull from one shared iterator, so a slow item never holds back the others.
    """
    check_connections(max_connections)
    work: Iterator[ItemT] = iter(items)
    done = 0
    progress = Progress(
        TextColumn(f"[bold]{description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        disable=not show_progress,
    )

    async def worker() -> None:
        nonlocal done
        for item in work:
            await handle(item)
            done += 1
            progress.advance(task)

    with progress:
        task = progress.add_task(description, total=len(items))
        workers = min(max_connections, max(len(items), 1))
        await asyncio.gather(*(worker() for _ in range(workers)))
    return done
