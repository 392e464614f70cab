"""Items × model → responses: async, bounded, cached, resumable.

``execute_run`` is the whole stage: it opens (or resumes) a run directory, skips items that
already have a successful response, sends the rest through the model with a concurrency
limit, an optional requests-per-minute limit and classified retries, and appends each
response to ``responses.jsonl`` the moment it finishes.

What a run answers is an ``ItemSet``: a benchmark ``Suite`` of scenarios, or a therapy
question set. Both give named, hashed, ordered items that carry their own chat messages.

The answer mode (``guided`` by default for local models, else ``free``) is recorded in the
manifest. In guided mode every request carries the item's ``AnswerGuide`` (its answer fields
read from the prompt, the scene's people as PERSON values) and the adapter fills the fields
itself; see ``models.guided``.
"""

from __future__ import annotations

import time

from empathybench.errors import UserError
from empathybench.models.base import ModelAPI
from empathybench.models.registry import create_model
from empathybench.progress import ProgressUpdate, report_progress
from empathybench.prompts.strategies import get_strategy
from empathybench.records import Response, RunManifest, RunTotals, Suite
from empathybench.run_batches import answer_pending_in_batches
from empathybench.run_manifest import check_same_run, new_manifest, recorded_model
from empathybench.run_options import (
    MAX_EPOCHS,
    ItemSet,
    RunItem,
    RunOptions,
    RunResult,
    check_run_options,
    run_answer_mode,
    select_items,
)
from empathybench.run_requests import RunningTotals, answer_item, item_guide
from empathybench.runtime import provenance
from empathybench.runtime.cache import ResponseCache
from empathybench.runtime.concurrency import for_each_concurrently
from empathybench.runtime.directory_lock import hold_directory
from empathybench.runtime.retry import RateLimiter
from empathybench.runtime.run_store import RunStore

__all__ = [
    "MAX_EPOCHS",
    "ItemSet",
    "RunItem",
    "RunOptions",
    "RunResult",
    "check_run_options",
    "execute_run",
    "item_guide",
    "load_run_suite",
    "recorded_model",
    "run_answer_mode",
    "select_items",
]


def load_run_suite(manifest: RunManifest) -> Suite:
    """The suite a run was made on, checked against the hash recorded in its manifest."""
    from empathybench.scenarios.suites import load_suite

    if manifest.track != "scenarios":
        raise UserError(
            f"run {manifest.run_id} answered {manifest.track} questions, not benchmark "
            f"scenarios: use the empathybench {manifest.track} commands for it"
        )
    suite = load_suite(manifest.suite.source)
    if suite.sha256 != manifest.suite.sha256:
        raise UserError(
            f"the suite {manifest.suite.source} changed since run {manifest.run_id} was made "
            f"(sha256 {suite.sha256[:12]}…, recorded {manifest.suite.sha256[:12]}…)"
        )
    return suite


async def execute_run(options: RunOptions, model: ModelAPI | None = None) -> RunResult:
    """Run (or resume) ``options`` and return the latest response of every item.

    The run directory is held exclusively (``runtime.directory_lock``) from before the
    manifest is read until the last record is written: a second process gets
    ``DirectoryInUse`` before it sends any call.
    """
    with hold_directory(options.run_dir):
        return await _execute_run(options, model)


async def _execute_run(options: RunOptions, model: ModelAPI | None) -> RunResult:
    check_run_options(options)
    strategy = get_strategy(options.strategy)
    answer_mode = run_answer_mode(
        options.spec, options.strategy, options.answer_mode, options.suite
    )
    chosen = select_items(options.suite, options.limit, options.kinds)
    items = [(item, epoch) for epoch in range(options.epochs) for item in chosen]
    store = RunStore(options.run_dir)
    manifest = new_manifest(options, strategy, len(items), answer_mode)
    if store.exists():
        existing = store.read_manifest()
        check_same_run(existing, manifest, options.run_dir)
        manifest = manifest.model_copy(
            update={
                "run_id": existing.run_id,
                "created_at": existing.created_at,
                "totals": RunTotals(items=len(items), wall_s=existing.totals.wall_s),
                "judging": options.judging or existing.judging,
                "judges": existing.judges,
            }
        )
    # Everything that can fail on bad input (a malformed responses file, a model that cannot
    # be made) happens before the manifest is written: a failed resume leaves a finished
    # run as it was, and a failed start leaves no run behind.
    previous = store.latest_responses()
    pending = [(s, e) for s, e in items if not (r := previous.get((s.id, e))) or not r.ok]
    skipped = len(items) - len(pending)

    totals = RunningTotals(len(items))
    for item, epoch in items:
        if (item.id, epoch) in previous and previous[(item.id, epoch)].ok:
            totals.add(previous[(item.id, epoch)])
    own_model = model is None and not options.batch
    sync_model = (
        None
        if options.batch
        else model or create_model(options.spec, max_connections=options.max_connections)
    )
    try:
        store.write_manifest(manifest)
    except BaseException:
        if own_model and sync_model is not None:
            await sync_model.aclose()
        raise
    cache = ResponseCache(options.cache_path) if options.cache_path else None
    limiter = RateLimiter(options.requests_per_minute)
    calls_before = 0
    answered = 0
    problems: list[str] = []
    started = time.perf_counter()
    store.responses.open()
    task = f"answering with {options.spec.id}"
    report_progress(options.progress, ProgressUpdate(task, skipped, len(items)))
    try:

        def record(response: Response) -> None:
            nonlocal calls_before, answered
            store.responses.append(response)
            calls_before += response.attempts
            answered += response.ok
            totals.add(response)
            done = totals.completed + totals.errors
            elapsed = max(time.perf_counter() - started, 1e-9)
            report_progress(
                options.progress,
                ProgressUpdate(
                    task,
                    done,
                    len(items),
                    input_tokens=totals.input_tokens,
                    output_tokens=totals.output_tokens,
                    items_per_second=(done - skipped) / elapsed,
                ),
            )

        def batch_progress(done: int, total: int) -> None:
            report_progress(
                options.progress,
                ProgressUpdate(
                    f"{task} (batch {done}/{total})",
                    totals.completed + totals.errors,
                    len(items),
                ),
            )

        async def answer_one(model: ModelAPI, pair: tuple[RunItem, int]) -> None:
            item, epoch = pair
            record(
                await answer_item(
                    model,
                    options,
                    strategy,
                    item,
                    epoch,
                    manifest.run_id,
                    cache,
                    limiter,
                    answer_mode,
                )
            )

        if sync_model is None:
            problems = await answer_pending_in_batches(
                options,
                strategy,
                pending,
                manifest.run_id,
                cache,
                answer_mode,
                record,
                batch_progress,
            )
        else:
            model = sync_model
            await for_each_concurrently(  # progress: ``record`` reports it, with the tokens
                pending,
                lambda pair: answer_one(model, pair),
                description=task,
                max_connections=options.max_connections,
            )
    finally:
        store.responses.close()
        if cache is not None:
            cache.close()
        if own_model and sync_model is not None:
            await sync_model.aclose()
        latest = store.latest_responses()
        complete = all((s.id, e) in latest and latest[(s.id, e)].ok for s, e in items)
        price = options.prices.get(options.spec.id)
        manifest = manifest.model_copy(
            update={
                "updated_at": provenance.now_iso(),
                "status": "complete" if complete else "incomplete",
                "totals": RunTotals(
                    items=totals.items,
                    completed=totals.completed,
                    errors=totals.errors,
                    cached=totals.cached,
                    input_tokens=totals.input_tokens,
                    output_tokens=totals.output_tokens,
                    cost_usd=(
                        round(price.cost(totals.input_tokens, totals.output_tokens), 6)
                        if price
                        else None
                    ),
                    wall_s=round(manifest.totals.wall_s + time.perf_counter() - started, 3),
                ),
            }
        )
        store.write_manifest(manifest)
    if problems and answered == 0:
        raise UserError("; ".join(problems))
    return RunResult(
        manifest=manifest, store=store, responses=latest, calls_made=calls_before, skipped=skipped
    )
