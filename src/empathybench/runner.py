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

import asyncio
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from empathybench.errors import ParameterError, UserError
from empathybench.models.base import ModelAPI, ModelCallError, ModelOutput, ModelRequest, ModelSpec
from empathybench.models.guided import AnswerGuide, AnswerMode
from empathybench.models.registry import create_model, resolve_answer_mode
from empathybench.progress import ProgressCallback, ProgressUpdate, report_progress
from empathybench.prompts.answer_guide import answer_guide
from empathybench.prompts.strategies import Strategy, apply_strategy, get_strategy
from empathybench.runtime import provenance
from empathybench.runtime.batch import BatchEntry, answer_in_batches, create_batch_api
from empathybench.runtime.cache import ResponseCache, cache_key, check_cache_path
from empathybench.runtime.directory_lock import hold_directory
from empathybench.runtime.pricing import Price
from empathybench.runtime.retry import RateLimiter, call_with_retries
from empathybench.runtime.run_store import ItemKey, RunStore
from empathybench.runtime.url_secrets import redact_url
from empathybench.types import (
    CallError,
    ChatMessage,
    JudgeRequest,
    Response,
    RunManifest,
    RunTotals,
    RunTrack,
    Scenario,
    Suite,
    SuiteRef,
    TokenUsage,
)
from empathybench.validation import (
    check_count,
    check_directory_target,
    check_number,
)


class RunItem(Protocol):
    """One thing a model answers: a scenario, or a therapy question in the therapist prompt."""

    @property
    def id(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def prompt_version(self) -> str: ...
    @property
    def messages(self) -> Sequence[ChatMessage]: ...


class ItemSet(Protocol):
    """What a run answers: named, hashed (sha256 of its file), ordered items."""

    @property
    def name(self) -> str: ...
    @property
    def sha256(self) -> str: ...
    @property
    def track(self) -> RunTrack: ...
    @property
    def prompt_version(self) -> str: ...
    @property
    def items(self) -> Sequence[RunItem]: ...


@dataclass
class RunOptions:
    suite: ItemSet
    suite_source: str
    spec: ModelSpec
    run_dir: Path
    strategy: str = "plain"
    epochs: int = 1
    limit: int | None = None
    kinds: list[str] | None = None
    max_connections: int = 8
    requests_per_minute: float | None = None
    max_attempts: int = 6
    max_backoff_s: float = 30.0
    cache_path: Path | None = None
    prices: dict[str, Price] = field(default_factory=dict)
    progress: ProgressCallback | None = None
    """Called when the run starts and after every answer (see ``empathybench.progress``)."""
    answer_mode: AnswerMode | None = None
    """guided | free; None: guided for local models, free for the rest."""
    batch: bool = False
    """Answer through the provider's batch API (see ``runtime.batch``)."""
    batch_poll_s: float = 30.0
    judging: JudgeRequest | None = None
    """The judges the caller will score with, recorded for ``run --resume`` (None: keep
    what the manifest says)."""


MAX_EPOCHS = 1000
"""Most answers per item a run takes (the item list is built up front)."""


def check_run_options(options: RunOptions) -> None:
    """Refuse out-of-range settings before any file is written or model called."""
    check_count("epochs", options.epochs, maximum=MAX_EPOCHS)
    check_count("limit", options.limit)
    check_count("max_connections", options.max_connections)
    check_count("max_attempts", options.max_attempts)
    check_number("requests_per_minute", options.requests_per_minute, above=0)
    check_number("max_backoff_s", options.max_backoff_s, minimum=0)
    check_number("batch_poll_s", options.batch_poll_s, above=0)
    check_directory_target("run_dir", options.run_dir)
    check_cache_path(options.cache_path)


@dataclass
class RunResult:
    manifest: RunManifest
    store: RunStore
    responses: dict[ItemKey, Response]
    calls_made: int
    skipped: int


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


def select_items(item_set: ItemSet, limit: int | None, kinds: list[str] | None) -> list[RunItem]:
    if limit is not None and limit <= 0:
        raise ParameterError(f"limit must be a positive number, got {limit}", parameters=["limit"])
    chosen = [item for item in item_set.items if kinds is None or item.kind in kinds]
    if not chosen:
        raise ParameterError(
            f"kinds {kinds} match no items in {item_set.name}", parameters=["kinds"]
        )
    return chosen[:limit] if limit is not None else chosen


def run_answer_mode(
    spec: ModelSpec, strategy: str, requested: str | None, suite: ItemSet | None = None
) -> AnswerMode:
    """The answer mode of a run (see ``registry.resolve_answer_mode``).

    A strategy that asks for a reasoning line before the answer (chain-of-empathy,
    empathize-first) needs free answers: guided answers start with the fields. Local models
    then default to free, and an explicit ``guided`` is refused. The same holds for the
    original benchmark's items, which ask no question to guide.
    """
    mode = resolve_answer_mode(spec, requested)
    if mode == "guided" and isinstance(suite, Suite) and suite.origin == "original-benchmark":
        if requested is None:
            return "free"
        raise UserError(
            f"{suite.name}: the original benchmark's items ask no EMOTION or NEEDS_HELP "
            "question, so there is nothing to guide: use --answer-mode free"
        )
    if mode == "guided" and get_strategy(strategy).system_addendum is not None:
        if requested is None:
            return "free"
        raise ParameterError(
            f"strategy={strategy} asks for a line of reasoning before the answer, which "
            "guided answers leave no room for: use answer_mode=free",
            parameters=["strategy", "answer_mode"],
        )
    return mode


def item_guide(item: RunItem, messages: Sequence[ChatMessage]) -> AnswerGuide:
    """The answer guide of an item as sent: its format, its scene's people as PERSON values."""
    names = [person.name for person in item.participants] if isinstance(item, Scenario) else []
    return answer_guide(messages, names)


def _new_manifest(
    options: RunOptions, strategy: Strategy, n_items: int, answer_mode: AnswerMode
) -> RunManifest:
    now = provenance.now_iso()
    return RunManifest(
        run_id=uuid.uuid4().hex[:12],
        created_at=now,
        updated_at=now,
        status="running",
        suite=SuiteRef(
            name=options.suite.name,
            source=options.suite_source,
            sha256=options.suite.sha256,
            n=len(options.suite.items),
            origin=options.suite.origin if isinstance(options.suite, Suite) else "empathybench",
        ),
        model=recorded_model(options.spec),
        strategy=strategy.name,
        strategy_version=strategy.version,
        prompt_version=options.suite.prompt_version,
        epochs=options.epochs,
        limit=options.limit,
        kinds=options.kinds,
        max_connections=options.max_connections,
        requests_per_minute=options.requests_per_minute,
        package_versions=provenance.package_versions(),
        python=provenance.python_version(),
        platform=provenance.platform_name(),
        git_revision=provenance.git_revision(),
        totals=RunTotals(items=n_items),
        track=options.suite.track,
        answer_mode=answer_mode,
        judging=options.judging,
    )


def recorded_model(spec: ModelSpec) -> dict[str, object]:
    """The model spec as a manifest records it: its server URL without credentials."""
    data = spec.model_dump(mode="json")
    if spec.base_url:
        data["base_url"] = redact_url(spec.base_url)
    return data


def _check_same_run(existing: RunManifest, fresh: RunManifest, directory: Path) -> None:
    mismatches = [
        name
        for name, old, new in (
            ("track", existing.track, fresh.track),
            ("suite", existing.suite.sha256, fresh.suite.sha256),
            ("model", existing.model, fresh.model),
            ("strategy", existing.strategy_version, fresh.strategy_version),
            ("prompt version", existing.prompt_version, fresh.prompt_version),
            ("answer mode", existing.answer_mode, fresh.answer_mode),
        )
        if old != new
    ]
    if mismatches:
        raise ParameterError(
            f"{directory} holds a different run ({', '.join(mismatches)} differ: "
            f"{existing.model.get('provider')}/{existing.model.get('name')} on "
            f"{existing.suite.name}); choose another run_dir or resume that run",
            parameters=["run_dir"],
        )


class _Totals:
    def __init__(self, items: int) -> None:
        self.items, self.completed, self.errors, self.cached = items, 0, 0, 0
        self.input_tokens = self.output_tokens = 0

    def add(self, response: Response) -> None:
        self.completed += response.ok
        self.errors += not response.ok
        self.cached += response.cached
        self.input_tokens += response.usage.input_tokens
        self.output_tokens += response.usage.output_tokens


def _prepare(
    options: RunOptions,
    strategy: Strategy,
    item: RunItem,
    epoch: int,
    run_id: str,
    answer_mode: AnswerMode,
) -> tuple[ModelRequest, str, dict[str, object]]:
    """The request of one (item, epoch), its cache key and the fields of its ``Response``."""
    spec = options.spec
    params = spec.params
    if options.epochs > 1 and params.seed is not None:
        params = params.model_copy(update={"seed": params.seed + epoch})
    messages = apply_strategy(strategy, item.messages, spec.system_prompt)
    request = ModelRequest(
        messages=messages,
        params=params,
        guide=item_guide(item, messages) if answer_mode == "guided" else None,
    )
    key = cache_key(
        spec,
        request,
        epoch=epoch,
        versions={"strategy": strategy.version, "prompt": item.prompt_version},
    )
    common: dict[str, object] = {
        "run_id": run_id,
        "scenario_id": item.id,
        "epoch": epoch,
        "model": spec.id,
        "strategy": strategy.name,
        "request_key": key,
    }
    return request, key, common


async def _answer(
    model: ModelAPI,
    options: RunOptions,
    strategy: Strategy,
    item: RunItem,
    epoch: int,
    run_id: str,
    cache: ResponseCache | None,
    limiter: RateLimiter,
    answer_mode: AnswerMode,
) -> Response:
    spec = options.spec
    request, key, common = _prepare(options, strategy, item, epoch, run_id, answer_mode)
    cached = cache.get(key) if cache is not None else None
    if cached is not None:
        return _response(common, cached, latency=0.0, attempts=0, cached=True)
    attempts = 0

    def count(number: int) -> None:
        nonlocal attempts
        attempts = number

    async def call() -> ModelOutput:
        await limiter.acquire()
        return await model.generate(request)

    started = time.perf_counter()
    try:
        output = await call_with_retries(
            call,
            max_attempts=options.max_attempts,
            max_backoff_s=options.max_backoff_s,
            on_attempt=count,
        )
    except Exception as error:  # an adapter bug must not lose the run either: record it
        if isinstance(error, ModelCallError):
            failure = CallError(kind=error.kind, message=error.message, status=error.status)
        else:
            failure = CallError(kind="internal", message=f"{type(error).__name__}: {error}")
        return Response(
            **common,
            text=None,
            latency_s=round(time.perf_counter() - started, 4),
            attempts=attempts,
            cached=False,
            error=failure,
            finished_at=provenance.now_iso(),
        )
    if cache is not None:
        cache.put(key, spec.id, output)
    return _response(
        common, output, latency=time.perf_counter() - started, attempts=attempts, cached=False
    )


def _response(
    common: dict[str, object], output: ModelOutput, *, latency: float, attempts: int, cached: bool
) -> Response:
    return Response.model_validate(
        {
            **common,
            "text": output.text,
            "reasoning": output.reasoning,
            "stop_reason": output.stop_reason,
            "refusal": output.refusal,
            "usage": TokenUsage(
                input_tokens=output.input_tokens or 0, output_tokens=output.output_tokens or 0
            ),
            "latency_s": round(latency, 4),
            "attempts": attempts,
            "cached": cached,
            "provider_model": output.provider_model,
            "finished_at": provenance.now_iso(),
        }
    )


async def _answer_in_batches(
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
        request, key, common = _prepare(options, strategy, item, epoch, run_id, answer_mode)
        cached = cache.get(key) if cache is not None else None
        if cached is not None:
            record(_response(common, cached, latency=0.0, attempts=0, cached=True))
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
        record(_response(common, result, latency=latency, attempts=1, cached=False))

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
    manifest = _new_manifest(options, strategy, len(items), answer_mode)
    if store.exists():
        existing = store.read_manifest()
        _check_same_run(existing, manifest, options.run_dir)
        manifest = manifest.model_copy(
            update={
                "run_id": existing.run_id,
                "created_at": existing.created_at,
                "totals": RunTotals(items=len(items), wall_s=existing.totals.wall_s),
                "judging": options.judging or existing.judging,
                "judges": existing.judges,
            }
        )
    store.write_manifest(manifest)
    previous = store.latest_responses()
    pending = [(s, e) for s, e in items if not (r := previous.get((s.id, e))) or not r.ok]
    skipped = len(items) - len(pending)

    totals = _Totals(len(items))
    for item, epoch in items:
        if (item.id, epoch) in previous and previous[(item.id, epoch)].ok:
            totals.add(previous[(item.id, epoch)])
    own_model = model is None and not options.batch
    sync_model = (
        None
        if options.batch
        else model or create_model(options.spec, max_connections=options.max_connections)
    )
    cache = ResponseCache(options.cache_path) if options.cache_path else None
    limiter = RateLimiter(options.requests_per_minute)
    work: Iterator[tuple[RunItem, int]] = iter(pending)
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

        async def worker(model: ModelAPI) -> None:
            for item, epoch in work:
                record(
                    await _answer(
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
            problems = await _answer_in_batches(
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
            await asyncio.gather(
                *(
                    worker(sync_model)
                    for _ in range(min(options.max_connections, max(len(pending), 1)))
                )
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
