"""Judge an existing run: every judge scores every answered item, without re-running models.

Verdicts go to ``verdicts/<judge>.jsonl`` in the run directory, appended as they finish;
re-judging skips items a judge has already scored (a verdict whose judge call failed is
tried again, and one recorded before the no-reply rule on an output with no reply is redone
by the rule). Judge calls share the response cache. A judge from the tested model's family
is refused unless explicitly allowed, and each judge's decision is recorded in the manifest.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from empathybench.judging.families import check_judge
from empathybench.judging.llm_judge import JudgeSettings, judge_response
from empathybench.judging.no_reply import classify_reply
from empathybench.models.base import ModelAPI, ModelSpec
from empathybench.models.registry import create_model
from empathybench.progress import ProgressCallback
from empathybench.records import JudgeDecision, Response, Scenario, Verdict
from empathybench.runner import load_run_suite
from empathybench.runtime.append_log import AppendLog, ItemKey
from empathybench.runtime.cache import ResponseCache
from empathybench.runtime.concurrency import check_connections, for_each_concurrently
from empathybench.runtime.directory_lock import hold_directory
from empathybench.runtime.provenance import now_iso
from empathybench.runtime.run_store import RunStore
from empathybench.therapy.verdicts import TherapyVerdict


@dataclass
class JudgeRunOptions:
    run_dir: Path
    judges: list[ModelSpec]
    allow_self_judge: bool = False
    max_connections: int = 8
    settings: JudgeSettings = field(default_factory=JudgeSettings)
    cache_path: Path | None = None
    progress: ProgressCallback | None = None

    def __post_init__(self) -> None:
        check_connections(self.max_connections)


@dataclass(frozen=True)
class JudgePass:
    """What one judge did in this call: judgements attempted, and how many failed (the call
    failed, or every answer was invalid), with the first reason."""

    judge: str
    attempted: int
    failed: int
    first_error: str | None

    @property
    def all_failed(self) -> bool:
        return self.attempted > 0 and self.failed == self.attempted


def judge_pass(
    judge: str, pending: list[ItemKey], verdicts: Mapping[ItemKey, Verdict | TherapyVerdict]
) -> JudgePass:
    errors = [v.error for key in pending if (v := verdicts.get(key)) is not None and v.error]
    missing = sum(1 for key in pending if key not in verdicts)
    first = next(iter(errors), None)
    return JudgePass(
        judge=judge,
        attempted=len(pending),
        failed=len(errors) + missing,
        first_error=(
            f"{first.kind}{f' {first.status}' if first.status else ''}: {first.message}"
            if first
            else None
        ),
    )


def merge_passes(judge: str, passes: list[JudgePass]) -> JudgePass:
    """One judge's passes over several logs (the sources of a therapy study) as one."""
    return JudgePass(
        judge=judge,
        attempted=sum(p.attempted for p in passes),
        failed=sum(p.failed for p in passes),
        first_error=next((p.first_error for p in passes if p.first_error), None),
    )


@dataclass
class JudgeRunResult:
    decisions: list[JudgeDecision]
    verdicts: dict[str, dict[ItemKey, Verdict]]
    judged: int
    skipped: int
    passes: list[JudgePass] = field(default_factory=list)


def record_decisions(store: RunStore, decisions: list[JudgeDecision]) -> None:
    """Add (or replace) these judges' decisions in the run's manifest."""
    manifest = store.read_manifest()
    recorded = {decision.judge: decision for decision in manifest.judges}
    recorded.update({decision.judge: decision for decision in decisions})
    store.write_manifest(
        manifest.model_copy(update={"judges": list(recorded.values()), "updated_at": now_iso()})
    )


def pending_items(
    responses: dict[ItemKey, Response],
    existing: dict[ItemKey, Verdict],
    scenarios: dict[str, Scenario],
) -> list[ItemKey]:
    """Answered items this judge has not scored yet, whose judge call failed, or whose verdict
    the no-reply rule now reads the other way: judged although they hold no reply (redone by
    rule, no call), or set aside by an earlier rule although they hold one (e.g. a reply in
    Russian to a Russian suite, which held no words before words counted in every script)."""

    def stale(key: ItemKey, verdict: Verdict) -> bool:
        if verdict.error is not None:
            return True
        ruled_out = classify_reply(responses[key].text, scenarios[key[0]]) is not None
        return ruled_out != (verdict.no_reply is not None)

    return [
        key
        for key, response in responses.items()
        if response.ok and (key not in existing or stale(key, existing[key]))
    ]


async def judge_run(
    options: JudgeRunOptions, models: dict[str, ModelAPI] | None = None
) -> JudgeRunResult:
    """Score the answered items of a run with every judge in ``options`` (the run directory
    is held exclusively meanwhile, see ``runtime.directory_lock``)."""
    store = RunStore(options.run_dir)
    store.read_manifest()  # not a run: say so before a lock file is made
    with hold_directory(options.run_dir):
        return await _judge_run(store, options, models)


async def _judge_run(
    store: RunStore, options: JudgeRunOptions, models: dict[str, ModelAPI] | None
) -> JudgeRunResult:
    manifest = store.read_manifest()
    tested = manifest.model
    decisions = [
        check_judge(tested, judge, allow_self_judge=options.allow_self_judge)
        for judge in options.judges
    ]
    scenarios: dict[str, Scenario] = {s.id: s for s in load_run_suite(manifest).scenarios}
    responses = {k: r for k, r in store.latest_responses().items() if k[0] in scenarios}
    cache = ResponseCache(options.cache_path) if options.cache_path else None
    results: dict[str, dict[ItemKey, Verdict]] = {}
    passes: list[JudgePass] = []
    judged = skipped = 0
    try:
        for spec in options.judges:
            judge = (models or {}).get(spec.id) or create_model(spec)
            log = store.verdicts(spec.id)
            existing = log.latest()
            pending = pending_items(responses, existing, scenarios)
            skipped += sum(1 for r in responses.values() if r.ok) - len(pending)
            log.open()
            try:
                judged += await _judge_all(
                    judge, log, pending, responses, scenarios, manifest.run_id, options, cache
                )
            finally:
                log.close()
                if models is None or spec.id not in models:
                    await judge.aclose()
            results[spec.id] = log.latest()
            passes.append(judge_pass(spec.id, pending, results[spec.id]))
    finally:
        if cache is not None:
            cache.close()
    record_decisions(store, decisions)
    return JudgeRunResult(
        decisions=decisions, verdicts=results, judged=judged, skipped=skipped, passes=passes
    )


async def _judge_all(
    judge: ModelAPI,
    log: AppendLog[Verdict],
    pending: list[ItemKey],
    responses: dict[ItemKey, Response],
    scenarios: dict[str, Scenario],
    run_id: str,
    options: JudgeRunOptions,
    cache: ResponseCache | None,
) -> int:
    async def judge_one(key: ItemKey) -> None:
        verdict = await judge_response(
            judge,
            scenarios[key[0]],
            responses[key].text or "",
            run_id=run_id,
            epoch=key[1],
            settings=options.settings,
            cache=cache,
        )
        log.append(verdict)

    return await for_each_concurrently(
        pending,
        judge_one,
        description=f"judging with {judge.spec.id}",
        max_connections=options.max_connections,
        progress=options.progress,
    )
