"""Whether a run is finished and sound enough to rank, with its true response counts.

A leaderboard or an item analysis compares runs item by item, so it takes only runs that
ran to the end: every planned item (suite selection x epochs) has a record, answered or
explicitly failed, and the run is not running (its manifest is not left at ``running`` by a
killed process, and no process holds its directory). A run where more than a small share
of the model calls failed is not ranked either: its means would rest on the items that
happened to succeed. Every run left out is listed with the reason and its counts.
"""

from __future__ import annotations

from dataclasses import dataclass

from empathybench.errors import UserError
from empathybench.records import Record
from empathybench.runtime.append_log import ItemKey
from empathybench.runtime.directory_lock import directory_in_use
from empathybench.runtime.run_data import RunData

MAX_FAILED_SHARE = 0.05
"""Runs with more failed model calls than this share of their items are not ranked."""


class RunCounts(Record):
    """A run's planned items and what became of them (latest record per item)."""

    items: int
    answered: int
    failed: int
    missing: int

    def text(self) -> str:
        return (
            f"{self.answered} of {self.items} items answered, {self.failed} failed, "
            f"{self.missing} never run"
        )


@dataclass(frozen=True)
class RunState:
    counts: RunCounts
    problem: str | None
    """Why the run cannot be ranked; None when it can."""


def check_failed_share(max_failed_share: float) -> None:
    if not 0.0 <= max_failed_share <= 1.0:  # also refuses NaN
        raise UserError(f"max_failed_share must be between 0 and 1, got {max_failed_share}")


def planned_items(run: RunData) -> list[ItemKey]:
    """The (scenario id, epoch) pairs the run set out to answer."""
    manifest = run.manifest
    chosen = [s.id for s in run.suite.scenarios if not manifest.kinds or s.kind in manifest.kinds]
    if manifest.limit is not None:
        chosen = chosen[: manifest.limit]
    return [(sid, epoch) for epoch in range(manifest.epochs) for sid in chosen]


def run_counts(run: RunData) -> RunCounts:
    planned = planned_items(run)
    answered = sum(1 for key in planned if (r := run.responses.get(key)) is not None and r.ok)
    failed = sum(1 for key in planned if (r := run.responses.get(key)) is not None and not r.ok)
    return RunCounts(
        items=len(planned),
        answered=answered,
        failed=failed,
        missing=len(planned) - answered - failed,
    )


def _first_error(run: RunData) -> str:
    for response in run.responses.values():
        if response.error is not None:
            status = f" {response.error.status}" if response.error.status else ""
            return f"; first error: {response.error.kind}{status}: {response.error.message[:160]}"
    return ""


def run_state(run: RunData, *, max_failed_share: float = MAX_FAILED_SHARE) -> RunState:
    """The counts of ``run`` and, when it cannot be ranked, why."""
    check_failed_share(max_failed_share)
    counts = run_counts(run)
    resume = f"finish it with: empathybench run --resume {run.directory}"
    writer = directory_in_use(run.directory)
    if writer is not None:
        who = f"process {writer}" if writer > 0 else "another process"
        return RunState(counts, f"still running ({who}): {counts.text()} so far")
    if run.manifest.status == "running":
        return RunState(
            counts,
            f"interrupted before it finished (killed or crashed): {counts.text()}; {resume}",
        )
    if counts.missing:
        return RunState(counts, f"incomplete: {counts.text()}; {resume}")
    if counts.items == 0:
        return RunState(counts, "no items planned")
    if counts.failed > max_failed_share * counts.items:
        return RunState(
            counts,
            f"{counts.failed} of {counts.items} model calls failed (more than "
            f"{max_failed_share:.0%}): {counts.text()}{_first_error(run)}; retry the failed "
            f"items with: empathybench run --resume {run.directory}",
        )
    return RunState(counts, None)
