"""Progress of long loops, reported through a callback (no terminal code in the core).

Stages call ``progress(ProgressUpdate(...))`` when a loop starts and after every item; the
command line passes a callback that draws rich progress bars, a notebook or a service can pass
its own (or nothing). Callbacks are called from the event loop's thread and must return
quickly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class ProgressUpdate:
    """Where one loop stands: ``completed`` of ``total`` items of ``task``."""

    task: str
    """What the loop does, e.g. ``answering with mock/echo`` or ``judging with openai/…``."""
    completed: int
    total: int
    input_tokens: int = 0
    output_tokens: int = 0
    items_per_second: float | None = None
    """Items answered by this call per second (None at the start)."""


ProgressCallback = Callable[[ProgressUpdate], None]


def report_progress(callback: ProgressCallback | None, update: ProgressUpdate) -> None:
    """Call ``callback`` with ``update`` when there is one."""
    if callback is not None:
        callback(update)
