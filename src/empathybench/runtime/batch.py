"""Answer a run's pending items through a provider's batch API (``run --batch``).

About half the price of synchronous calls, answered within a day. The flow:

1. the pending requests that no recorded, uncollected batch already holds are submitted as
   one new batch, and its id is written to ``RUN/batches.json`` (atomically) before any poll;
2. every open batch is polled until it ends, with progress;
3. its results are handed back per item (a ``ModelOutput``, or a ``CallError`` for an item
   that failed, expired or was cancelled) and only then is the batch marked collected.

A run that crashes anywhere in between resumes by the recorded batch id: nothing is
submitted twice. Items whose batch ended without an answer are resubmitted by a later resume,
like any failed item.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from empathybench.errors import ParameterError, UserError
from empathybench.models.base import ModelOutput, ModelRequest, ModelSpec
from empathybench.models.batch_api import BatchAPI, BatchResult, BatchStatus
from empathybench.records import CallError
from empathybench.runtime import provenance

LEDGER_NAME = "batches.json"
POLL_FAILURES = 5
"""Polls in a row that may fail transiently (no connection, 429, 5xx) before the run stops."""
BATCH_PROVIDERS = ("openai", "anthropic")


@dataclass(frozen=True)
class BatchEntry:
    """One pending (item, epoch) and the request it sends."""

    scenario_id: str
    epoch: int
    request_key: str
    request: ModelRequest

    @property
    def slot(self) -> tuple[str, int, str]:
        return (self.scenario_id, self.epoch, self.request_key)


def batch_unsupported(spec: ModelSpec) -> str | None:
    """Why ``spec`` cannot run with ``--batch`` (None when it can)."""
    if spec.provider in BATCH_PROVIDERS:
        return None
    return (
        f"needs a provider with a batch API ({', '.join(BATCH_PROVIDERS)}); "
        f"{spec.id} has none: run it without batch answering"
    )


def create_batch_api(spec: ModelSpec) -> BatchAPI:
    reason = batch_unsupported(spec)
    if reason is not None:
        raise ParameterError.about("batch", reason)
    if spec.provider == "openai":
        from empathybench.models.batch_openai import OpenAIBatchAPI

        return OpenAIBatchAPI(spec)
    from empathybench.models.batch_anthropic import AnthropicBatchAPI

    return AnthropicBatchAPI(spec)


@dataclass
class LedgerBatch:
    id: str
    provider: str
    model: str
    submitted_at: str
    entries: dict[str, tuple[str, int, str]]
    """custom id → (scenario id, epoch, request key)."""
    collected: bool = False


@dataclass
class BatchLedger:
    """``RUN/batches.json``: every batch a run submitted, written atomically."""

    path: Path
    batches: list[LedgerBatch] = field(default_factory=list)

    @classmethod
    def load(cls, run_dir: Path) -> BatchLedger:
        path = run_dir / LEDGER_NAME
        if not path.exists():
            return cls(path)
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            batches = [
                LedgerBatch(
                    id=str(b["id"]),
                    provider=str(b["provider"]),
                    model=str(b["model"]),
                    submitted_at=str(b["submitted_at"]),
                    entries={
                        str(c): (str(e["scenario_id"]), int(e["epoch"]), str(e["request_key"]))
                        for c, e in b["entries"].items()
                    },
                    collected=bool(b["collected"]),
                )
                for b in raw["batches"]
            ]
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise UserError(f"{path} is not a batch ledger: {error}") from None
        return cls(path, batches)

    def open_batches(self) -> list[LedgerBatch]:
        return [batch for batch in self.batches if not batch.collected]

    def save(self) -> None:
        data: dict[str, Any] = {
            "batches": [
                {
                    "id": b.id,
                    "provider": b.provider,
                    "model": b.model,
                    "submitted_at": b.submitted_at,
                    "collected": b.collected,
                    "entries": {
                        c: {"scenario_id": s, "epoch": e, "request_key": k}
                        for c, (s, e, k) in b.entries.items()
                    },
                }
                for b in self.batches
            ]
        }
        temporary = self.path.with_suffix(".json.tmp")
        with temporary.open("w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=1)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, self.path)


def has_open_batches(run_dir: Path) -> bool:
    return bool(BatchLedger.load(run_dir).open_batches())


Record = Callable[[BatchEntry, BatchResult], None]
Progress = Callable[[int, int], None]


async def answer_in_batches(
    api: BatchAPI,
    run_dir: Path,
    pending: Sequence[BatchEntry],
    record: Record,
    *,
    poll_s: float = 30.0,
    on_progress: Progress | None = None,
) -> list[str]:
    """Answer ``pending`` through ``api``, calling ``record`` once per entry.

    Returns the problems of batches that ended with no answer at all (expired, cancelled or
    failed as a whole); their items were still recorded, as errors.
    """
    ledger = BatchLedger.load(run_dir)
    by_slot = {entry.slot: entry for entry in pending}
    adopted: list[LedgerBatch] = []
    held: set[tuple[str, int, str]] = set()
    for batch in ledger.open_batches():
        if batch.provider != api.spec.provider or batch.model != api.spec.name:
            continue
        if any(slot in by_slot for slot in batch.entries.values()):
            adopted.append(batch)
            held.update(batch.entries.values())
        else:  # its answers were recorded before a crash could mark it: nothing left to fetch
            batch.collected = True
            ledger.save()
    fresh = [entry for entry in pending if entry.slot not in held]
    for start in range(0, len(fresh), api.max_requests):
        chunk = fresh[start : start + api.max_requests]
        entries = {f"r{start + index}": entry for index, entry in enumerate(chunk)}
        batch_id = await api.submit({c: entry.request for c, entry in entries.items()})
        batch = LedgerBatch(
            id=batch_id,
            provider=api.spec.provider,
            model=api.spec.name,
            submitted_at=provenance.now_iso(),
            entries={c: entry.slot for c, entry in entries.items()},
        )
        ledger.batches.append(batch)
        ledger.save()  # before the first poll: a crash from here on resumes by this id
        adopted.append(batch)

    problems: list[str] = []
    remaining = list(adopted)
    while remaining:
        statuses = {batch.id: await _status(api, batch.id, poll_s) for batch in remaining}
        if on_progress is not None:
            on_progress(
                sum(s.done for s in statuses.values()), sum(s.total for s in statuses.values())
            )
        for batch in [b for b in remaining if statuses[b.id].ended]:
            problem = await _collect(api, batch, by_slot, statuses[batch.id], record)
            if problem is not None:
                problems.append(problem)
            batch.collected = True
            ledger.save()
            remaining.remove(batch)
        if remaining:
            await asyncio.sleep(poll_s)
    return problems


async def _status(api: BatchAPI, batch_id: str, poll_s: float) -> BatchStatus:
    """The batch's status, riding out a few transient failures (the batch runs on anyway)."""
    from empathybench.models.batch_http import BatchTransientError

    for failures in range(1, POLL_FAILURES + 1):
        try:
            return await api.status(batch_id)
        except BatchTransientError:
            if failures == POLL_FAILURES:
                raise
            await asyncio.sleep(poll_s)
    raise AssertionError("unreachable")


async def _collect(
    api: BatchAPI,
    batch: LedgerBatch,
    by_slot: dict[tuple[str, int, str], BatchEntry],
    status: BatchStatus,
    record: Record,
) -> str | None:
    mine = {c: by_slot[slot] for c, slot in batch.entries.items() if slot in by_slot}
    results = await api.results(batch.id, {c: entry.request for c, entry in mine.items()})
    why = status.problem or "ended"
    answered = 0
    for custom_id, entry in mine.items():
        result = results.get(custom_id)
        if result is None:
            result = CallError(
                kind=_problem_kind(status.problem),
                message=f"batch {batch.id} {why} without a result for this item",
            )
        answered += isinstance(result, ModelOutput)
        record(entry, result)
    if answered == 0 and status.problem is not None and mine:
        return (
            f"batch {batch.id} {status.problem} with no answer: its {len(mine)} items are "
            "recorded as errors (resume the run to resubmit them)"
        )
    return None


def _problem_kind(problem: str | None) -> str:
    if problem is None:
        return "batch_missing"
    word = problem.split()[0].split(":")[0]
    return f"batch_{word}"
