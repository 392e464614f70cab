"""Rich progress bars for the library's progress callback (``empathybench.progress``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.status import Status

from empathybench.cli.console import err_console
from empathybench.progress import ProgressCallback, ProgressUpdate


@contextmanager
def progress_bars(enabled: bool = True) -> Iterator[ProgressCallback | None]:
    """A callback drawing one bar per task on stderr while the block runs (None: no bars)."""
    if not enabled:
        yield None
        return
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[tokens]}"),
        console=err_console,
    )
    tasks: dict[str, TaskID] = {}

    def update(event: ProgressUpdate) -> None:
        rate = f"{event.items_per_second:.1f} items/s" if event.items_per_second else ""
        tokens = (
            f"{event.input_tokens:,} in / {event.output_tokens:,} out tokens"
            if event.input_tokens or event.output_tokens
            else ""
        )
        if event.task not in tasks:
            tasks[event.task] = progress.add_task(event.task, total=event.total, rate="", tokens="")
        progress.update(
            tasks[event.task],
            completed=event.completed,
            total=event.total,
            rate=rate,
            tokens=tokens,
        )

    with progress:
        yield update


@contextmanager
def status_spinner() -> Iterator[ProgressCallback]:
    """A callback showing each started step (``completed < total``) as a spinner on stderr
    until it reports itself finished, for steps that have no countable items."""
    shown: list[Status] = []

    def update(event: ProgressUpdate) -> None:
        while shown:
            shown.pop().stop()
        if event.completed < event.total:
            status = err_console.status(event.task)
            status.start()
            shown.append(status)

    try:
        yield update
    finally:
        while shown:
            shown.pop().stop()
