"""A run's pending answers through the provider's batch API (``runtime.batch``) instead of
live calls; cached answers are recorded without being sent."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from empathybench.models.base import ModelOutput
from empathybench.models.guided import AnswerMode
from empathybench.prompts.strategies import Strategy
from empathybench.records import CallError, Response
from empathybench.run_options import RunItem, RunOptions
from empathybench.run_requests import prepare_request, response_from_output
from empathybench.runtime import provenance
from empathybench.runtime.batch import BatchEntry, answer_in_batches, create_batch_api
from empathybench.runtime.cache import ResponseCache


async def answer_pending_in_batches(
    options: RunOptions,
    strategy: Strategy,
    pending: Sequence[tuple[RunItem, int]],
    run_id: str,
    cache: ResponseCache | None,
    answer_mode: AnswerMode,
    record: Callable[[Response], None],
    on_progress: Callable[[int, int], None],
) -> list[str]:
    """Answer ``pending`` through the provider's batch API; cached answers are not sent.

    Returns the problems of batches that ended with nothing answered (see ``runtime.batch``).
    """
    spec = options.spec
    started = time.perf_counter()
    entries: list[BatchEntry] = []
    commons: dict[tuple[str, int, str], dict[str, object]] = {}
    for item, epoch in pending:
        request, key, common = prepare_request(options, strategy, item, epoch, run_id, answer_mode)
        cached = cache.get(key) if cache is not None else None
        if cached is not None:
            record(response_from_output(common, cached, latency=0.0, attempts=0, cached=True))
            continue
        entry = BatchEntry(item.id, epoch, key, request)
        entries.append(entry)
        commons[entry.slot] = common

    def on_result(entry: BatchEntry, result: ModelOutput | CallError) -> None:
        common = commons[entry.slot]
        latency = time.perf_counter() - started
        if isinstance(result, CallError):
            record(
                Response(
                    **common,
                    text=None,
                    latency_s=round(latency, 4),
                    attempts=1,
                    cached=False,
                    error=result,
                    finished_at=provenance.now_iso(),
                )
            )
            return
        if cache is not None:
            cache.put(entry.request_key, spec.id, result)
        record(response_from_output(common, result, latency=latency, attempts=1, cached=False))

    api = create_batch_api(spec)
    try:
        return await answer_in_batches(
            api,
            options.run_dir,
            entries,
            on_result,
            poll_s=options.batch_poll_s,
            on_progress=on_progress,
        )
    finally:
        await api.aclose()
