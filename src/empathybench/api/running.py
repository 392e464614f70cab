"""Running a suite through a model from Python, then judging it: ``run`` and ``resume``.

Everything that can be refused (an unknown model, a missing key, a bad selection, a judge of
the tested model's own family) is refused before the first model call.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from empathybench.api.judging import JudgePlan, ModelOptions, default_judges, plan_judges
from empathybench.api.judging import execute_plan as judge_plan
from empathybench.api.paths import RunLike, cache_file, run_directory
from empathybench.api.suites import load_suite
from empathybench.errors import ParameterError
from empathybench.judging.run_judges import JudgeRunResult
from empathybench.models.base import GenerationParams, ModelSpec
from empathybench.models.defaults import DEFAULT_MODEL, default_connections, default_max_tokens
from empathybench.models.guided import AnswerMode
from empathybench.models.registry import parse_model_id, recorded_spec, resolve_api_key
from empathybench.progress import ProgressCallback
from empathybench.records import JudgeRequest, RunManifest, Suite
from empathybench.runner import (
    RunOptions,
    execute_run,
    load_run_suite,
    run_answer_mode,
    select_items,
)
from empathybench.runtime.batch import batch_unsupported, has_open_batches
from empathybench.runtime.directory_lock import hold_directory
from empathybench.runtime.event_loop import blocking_twin
from empathybench.runtime.output_guard import check_output_directory
from empathybench.runtime.pricing import Price, load_prices
from empathybench.runtime.run_store import MANIFEST, RunStore
from empathybench.runtime.url_secrets import REDACTED, redact_url
from empathybench.scenarios.suites import DEFAULT_SUITE, write_scenarios
from empathybench.validation import validated

SUITE_FILE = "suite.jsonl"
"""Where a run on an in-memory suite keeps that suite (so it can be judged and resumed)."""


@dataclass(frozen=True)
class RunOutcome:
    """A run directory and what this call did there; usable wherever a path is (``os.fspath``)."""

    directory: Path
    manifest: RunManifest
    calls_made: int
    """Model calls made by this call (retries included)."""
    skipped: int
    """Items already answered before this call."""
    judging: JudgeRunResult | None
    """What the judges of this call did (None when none judged)."""

    @property
    def complete(self) -> bool:
        """Every item has an answer (failed calls leave a run incomplete; resume it)."""
        return self.manifest.status == "complete"

    def __fspath__(self) -> str:
        return str(self.directory)


def model_spec(
    model: str,
    *,
    temperature: float = 0.0,
    top_p: float | None = None,
    seed: int | None = None,
    max_tokens: int | None = None,
    system_prompt: str | None = None,
    base_url: str | None = None,
    api_key_env: str | None = None,
    options: ModelOptions | None = None,
) -> ModelSpec:
    """A model id (``provider/name``) with its settings; ``max_tokens`` defaults per provider."""
    provider = model.partition("/")[0]
    params = validated(
        GenerationParams,
        temperature=temperature,
        top_p=top_p,
        seed=seed,
        max_tokens=max_tokens if max_tokens is not None else default_max_tokens(provider),
    )
    return parse_model_id(
        model,
        base_url=base_url,
        api_key_env=api_key_env,
        system_prompt=system_prompt,
        params=params,
        options=dict(options or {}),
    )


def default_run_dir(
    suite: str, model_id: str, strategy: str, answer_mode: str = "free", dtype: str | None = None
) -> Path:
    """``runs/SUITE__MODEL__STRATEGY``, with ``__guided`` for guided answers and ``__DTYPE`` for a
    local model's non-default number format (so such a run never lands in the directory of an
    earlier run of the same model with other settings)."""
    mode = "__guided" if answer_mode == "guided" else ""
    mode += f"__{dtype}" if dtype else ""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", f"{Path(suite).stem}__{model_id}__{strategy}{mode}")
    return Path("runs") / slug


def _prices(prices: Mapping[str, Price] | str | os.PathLike[str] | None) -> dict[str, Price]:
    if prices is None:
        return {}
    if isinstance(prices, (str, os.PathLike)):
        return load_prices(Path(os.fspath(prices)))
    return dict(prices)


def _suite_source(suite: Suite, directory: Path) -> str:
    """How the run will find its suite again; an in-memory suite is written into the run."""
    if suite.source is not None:
        return suite.source
    path = directory / SUITE_FILE
    write_scenarios(path, suite.scenarios)
    return str(path.resolve())


async def _run_and_judge(
    options: RunOptions,
    plan: JudgePlan,
    *,
    allow_self_judge: bool,
    judge_connections: int,
    max_reasks: int,
) -> RunOutcome:
    select_items(options.suite, options.limit, options.kinds)  # fail fast on a bad selection
    # a run folder with a batch still open at the provider goes on in batch mode
    options.batch = options.batch or has_open_batches(options.run_dir)
    if options.batch:
        reason = batch_unsupported(options.spec)
        if reason is not None:
            raise ParameterError.about("batch", reason)
    resolve_api_key(options.spec)  # a missing key is reported before any work starts
    plan.check_against(options.spec, allow_self_judge=allow_self_judge)
    with hold_directory(options.run_dir):  # no other run or judge writes it meanwhile
        result = await execute_run(options)
        judging = None
        if plan.llm or plan.offline:
            judging = await judge_plan(
                options.run_dir,
                plan,
                allow_self_judge=allow_self_judge,
                max_connections=judge_connections,
                max_reasks=max_reasks,
                cache=options.cache_path,
                progress=options.progress,
            )
    return RunOutcome(
        directory=options.run_dir,
        manifest=RunStore(options.run_dir).read_manifest(),
        calls_made=result.calls_made,
        skipped=result.skipped,
        judging=judging,
    )


async def run_async(
    suite: Suite | str | os.PathLike[str] = DEFAULT_SUITE,
    *,
    model: str | ModelSpec = DEFAULT_MODEL,
    run_dir: str | os.PathLike[str] | None = None,
    judges: Sequence[str | ModelSpec] | None = None,
    allow_self_judge: bool = False,
    judge_base_url: str | None = None,
    strategy: str = "plain",
    answer_mode: AnswerMode | None = None,
    epochs: int = 1,
    limit: int | None = None,
    kinds: Sequence[str] | None = None,
    max_connections: int | None = None,
    requests_per_minute: float | None = None,
    max_attempts: int = 6,
    max_reasks: int = 2,
    cache: str | os.PathLike[str] | bool = True,
    prices: Mapping[str, Price] | str | os.PathLike[str] | None = None,
    progress: ProgressCallback | None = None,
    force: bool = False,
    batch: bool = False,
    batch_poll_s: float = 30.0,
) -> RunOutcome:
    """Answer ``suite`` with ``model`` into ``run_dir``, then score it with ``judges``.

    ``suite``: a ``Suite``, a bundled name (default ``standard-v6``; ``standard-v5`` to
    ``standard-v1`` for comparison with earlier results) or a JSONL file. ``model``: a model id
    (``provider/name``; see ``model_spec`` for its settings) or a ``ModelSpec``.
    ``run_dir`` defaults to ``runs/SUITE__MODEL__STRATEGY``; an existing run there with the
    same settings is continued (answered items are skipped). ``judges``: model ids and/or
    ``offline``; None uses ``default_judges()``, ``[]`` scores only the deterministic
    dimensions. ``answer_mode``: guided for local models by default, else free.
    ``cache``: True for the default response cache, False for none, or a file. ``force``:
    write into a ``run_dir`` that is not empty and holds no run. ``batch``: answer through
    the provider's batch API (openai, anthropic; see ``runtime.batch``), polling every
    ``batch_poll_s`` seconds.
    """
    spec = recorded_spec(model) if isinstance(model, ModelSpec) else model_spec(model)
    run_answer_mode(spec, strategy, answer_mode)  # before any file read or call
    loaded = suite if isinstance(suite, Suite) else load_suite(suite)
    mode = run_answer_mode(spec, strategy, answer_mode, loaded)
    chosen = default_judges() if judges is None else list(judges)
    plan = plan_judges(chosen, base_url=judge_base_url)
    directory = (
        Path(os.fspath(run_dir))
        if run_dir is not None
        else default_run_dir(
            loaded.source or loaded.name,
            spec.id,
            strategy,
            mode,
            str(spec.options["dtype"])
            if spec.provider == "local" and "dtype" in spec.options
            else None,
        )
    )
    select_items(loaded, limit, list(kinds) if kinds is not None else None)
    resolve_api_key(spec)
    plan.check_against(spec, allow_self_judge=allow_self_judge)
    check_output_directory(directory, kind="run", markers=(MANIFEST,), force=force)
    options = RunOptions(
        suite=loaded,
        suite_source=_suite_source(loaded, directory),
        spec=spec,
        run_dir=directory,
        strategy=strategy,
        epochs=epochs,
        limit=limit,
        kinds=list(kinds) if kinds is not None else None,
        max_connections=max_connections
        if max_connections is not None
        else default_connections(spec),
        requests_per_minute=requests_per_minute,
        max_attempts=max_attempts,
        cache_path=cache_file(cache),
        prices=_prices(prices),
        progress=progress,
        answer_mode=mode,
        batch=batch,
        batch_poll_s=batch_poll_s,
        judging=JudgeRequest(
            judges=[j if isinstance(j, str) else j.id for j in chosen],
            no_judge=judges is not None and not judges,
            judge_base_url=redact_url(judge_base_url) if judge_base_url else None,
            allow_self_judge=allow_self_judge,
        ),
    )
    return await _run_and_judge(
        options, plan, allow_self_judge=allow_self_judge, judge_connections=8, max_reasks=max_reasks
    )


run = blocking_twin(run_async, "run")


async def resume_async(
    run: RunLike,
    *,
    judges: Sequence[str | ModelSpec] | None = None,
    allow_self_judge: bool = False,
    judge_base_url: str | None = None,
    base_url: str | None = None,
    max_attempts: int = 6,
    max_reasks: int = 2,
    cache: str | os.PathLike[str] | bool = True,
    prices: Mapping[str, Price] | str | os.PathLike[str] | None = None,
    progress: ProgressCallback | None = None,
    batch: bool = False,
    batch_poll_s: float = 30.0,
    max_connections: int | None = None,
    requests_per_minute: float | None = None,
) -> RunOutcome:
    """Continue a run with the settings recorded in its manifest (failed items are retried),
    then score it with the judges it was started with.

    ``judges`` (None: those recorded) must name the recorded judges; a judge can be added
    later with ``judge``. ``base_url`` / ``judge_base_url`` give back a server URL whose
    credential the manifest left out (they must name the recorded server).
    ``max_connections`` / ``requests_per_minute`` (None: those recorded) change only how fast
    the remaining items are asked (after rate-limit errors, say), never what is asked.
    """
    directory = run_directory(run)
    manifest = RunStore(directory).read_manifest()
    request = resumed_judging(manifest, judges, judge_base_url, directory)
    options = RunOptions(
        suite=load_run_suite(manifest),
        suite_source=manifest.suite.source,
        spec=resumed_spec(manifest, base_url, directory),
        run_dir=directory,
        strategy=manifest.strategy,
        epochs=manifest.epochs,
        limit=manifest.limit,
        kinds=manifest.kinds,
        max_connections=manifest.max_connections if max_connections is None else max_connections,
        requests_per_minute=(
            manifest.requests_per_minute if requests_per_minute is None else requests_per_minute
        ),
        max_attempts=max_attempts,
        cache_path=cache_file(cache),
        prices=_prices(prices),
        progress=progress,
        answer_mode=manifest.answer_mode,
        batch=batch,
        batch_poll_s=batch_poll_s,
        judging=request,
    )
    plan = plan_judges(request.judges, base_url=judge_base_url or request.judge_base_url)
    return await _run_and_judge(
        options,
        plan,
        allow_self_judge=request.allow_self_judge or allow_self_judge,
        judge_connections=8,
        max_reasks=max_reasks,
    )


def _judge_ids(judges: Sequence[str | ModelSpec]) -> list[str]:
    return [j if isinstance(j, str) else j.id for j in judges]


def resumed_judging(
    manifest: RunManifest,
    judges: Sequence[str | ModelSpec] | None,
    judge_base_url: str | None,
    directory: Path,
) -> JudgeRequest:
    """The judges a resumed run keeps: those recorded when it started.

    Runs made before judges were recorded take ``judges`` (None: the default judges).
    """
    recorded = manifest.judging
    if recorded is None:
        chosen = default_judges() if judges is None else _judge_ids(judges)
        return JudgeRequest(
            judges=chosen,
            no_judge=judges is not None and not judges,
            judge_base_url=redact_url(judge_base_url) if judge_base_url else None,
        )
    if judges is not None and (
        sorted(_judge_ids(judges)) != sorted(recorded.judges) or (not judges) != recorded.no_judge
    ):
        started = (
            f"the judge(s) {', '.join(recorded.judges)}"
            if recorded.judges and not recorded.no_judge
            else "no judge"
        )
        raise ParameterError.about(
            "judges",
            f"{directory} was started with {started}; a resumed run keeps its judges (leave "
            f"them out, or add a judge later with: empathybench judge {directory} --judge ID)",
        )
    if recorded.judge_base_url and judge_base_url is None and REDACTED in recorded.judge_base_url:
        raise ParameterError.about(
            "judge_base_url",
            f"{directory}: the judges' server URL held a credential that was not recorded; "
            "give it again",
        )
    given_url = redact_url(judge_base_url) if judge_base_url is not None else None
    if given_url is not None and recorded.judge_base_url not in (None, given_url):
        raise ParameterError.about(
            "judge_base_url",
            f"{given_url} is another server: {directory} was judged through "
            f"{recorded.judge_base_url}",
        )
    return recorded


def resumed_spec(manifest: RunManifest, base_url: str | None, directory: Path) -> ModelSpec:
    """The tested model of a resumed run; ``base_url`` gives back a credential the manifest
    left out (it must name the recorded server)."""
    spec = manifest.model
    recorded = spec.base_url
    if base_url is None:
        if recorded is not None and REDACTED in recorded:
            raise ParameterError.about(
                "base_url",
                f"{directory}: the model's server URL held a credential that was not "
                "recorded; give it again",
            )
        return spec
    if recorded is None or redact_url(base_url) != recorded:
        raise ParameterError.about(
            "base_url",
            f"{redact_url(base_url)} is another server: {directory} was run against "
            f"{recorded or 'the provider default'} (a resumed run keeps its model)",
        )
    return spec.model_copy(update={"base_url": base_url})


resume = blocking_twin(resume_async, "resume")
