"""``empathybench run``: the main job (a suite through a model into a run directory)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Annotated

import typer

from empathybench.analysis.summary import build_run_summary
from empathybench.cli.console import console
from empathybench.cli.judge_commands import (
    judge_specs,
    run_judges,
    run_offline_judges,
    split_judges,
)
from empathybench.cli.summary_view import print_summary
from empathybench.errors import UserError
from empathybench.judging.families import check_judge
from empathybench.judging.offline_judge import (
    OFFLINE_JUDGE,
    check_offline_judge,
    offline_judge_available,
)
from empathybench.models.base import GenerationParams, ModelSpec
from empathybench.models.local_weights import INSTALL_HINT
from empathybench.models.registry import parse_model_id, resolve_api_key
from empathybench.runner import (
    MAX_EPOCHS,
    RunOptions,
    RunResult,
    execute_run,
    load_run_suite,
    run_answer_mode,
    select_items,
)
from empathybench.runtime.batch import batch_unsupported, has_open_batches
from empathybench.runtime.cache import check_cache_path, default_cache_path
from empathybench.runtime.directory_lock import hold_directory
from empathybench.runtime.output_guard import check_output_directory, path_parser
from empathybench.runtime.pricing import load_prices
from empathybench.runtime.run_store import MANIFEST, RunStore
from empathybench.runtime.url_secrets import REDACTED, redact_url
from empathybench.scenarios.suites import load_suite
from empathybench.types import JudgeRequest, RunManifest
from empathybench.validation import (
    check_count,
    check_directory_target,
    check_exclusive,
    check_existing_directory,
    check_existing_file,
    check_number,
    check_seed,
    check_url,
    validated,
)

DEFAULT_SUITE = "standard-v1"
DEFAULT_MODEL = "local/smollm2"
# A short reply keeps the bundled 135M model's run within minutes on two CPU cores.
DEFAULT_MAX_TOKENS = {"local": 160}
DEFAULT_CONNECTIONS = {"local": 100, "mock": 16}  # local: one batch for standard-v1


def parse_options(pairs: list[str]) -> dict[str, str | int | float | bool]:
    options: dict[str, str | int | float | bool] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise UserError(f"--option takes key=value, got {pair!r}")
        value: str | int | float | bool = raw
        if raw.lower() in ("true", "false"):
            value = raw.lower() == "true"
        else:
            for cast in (int, float):
                try:
                    value = cast(raw)
                    break
                except ValueError:
                    continue
        options[key] = value
    return options


def check_generation(
    *, temperature: float | None, top_p: float | None, max_tokens: int | None, seed: int | None
) -> None:
    """The sampling settings every model command takes, checked before any call."""
    check_number("temperature", temperature, minimum=0, maximum=2)
    check_number("top_p", top_p, above=0, maximum=1)
    check_count("max_tokens", max_tokens)
    check_seed("seed", seed)


def default_run_dir(suite: str, model_id: str, strategy: str, answer_mode: str = "free") -> Path:
    """``runs/SUITE__MODEL__STRATEGY``, with ``__guided`` for guided answers (so a guided run
    never lands in the directory of an earlier free run of the same model)."""
    mode = "__guided" if answer_mode == "guided" else ""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", f"{Path(suite).stem}__{model_id}__{strategy}{mode}")
    return Path("runs") / slug


AnswerModeOption = Annotated[
    str | None,
    typer.Option(
        help="guided: the engine fills the answer fields (option likelihood or a JSON schema) "
        "and the model writes the reply; free: the model writes the whole answer. "
        "Default: guided for local/… with the plain strategy, free otherwise."
    ),
]


def print_run_totals(result: RunResult) -> None:
    manifest = result.manifest
    totals = manifest.totals
    console.print(f"run {manifest.run_id} → {result.store.directory} ({manifest.status})")
    console.print(
        f"items {totals.items}: {totals.completed} answered, {totals.errors} failed, "
        f"{totals.cached} from cache, {result.skipped} already done before this call; "
        f"{result.calls_made} model calls; tokens {totals.input_tokens:,} in / "
        f"{totals.output_tokens:,} out; {totals.wall_s:.1f} s"
        + (f"; cost ${totals.cost_usd:.4f}" if totals.cost_usd is not None else ""),
        highlight=False,
    )


def _run(
    suite: Annotated[str, typer.Option(help="Bundled suite name or JSONL file.")] = DEFAULT_SUITE,
    model: Annotated[str, typer.Option(help="Model id: provider/name.")] = DEFAULT_MODEL,
    run_dir: Annotated[
        Path | None,
        typer.Option(help="Run directory (default: runs/…).", parser=path_parser("--run-dir")),
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option(
            help="Resume the run in this directory with its recorded settings.",
            parser=path_parser("--resume"),
        ),
    ] = None,
    strategy: Annotated[
        str, typer.Option(help="plain | chain-of-empathy | empathize-first")
    ] = "plain",
    epochs: Annotated[int, typer.Option(help="Answers per item (sampled).")] = 1,
    limit: Annotated[int | None, typer.Option(help="Only the first N items.")] = None,
    kinds: Annotated[str | None, typer.Option(help="Comma-separated kinds to run.")] = None,
    max_connections: Annotated[
        int | None, typer.Option(help="Concurrent requests (local: batch size).")
    ] = None,
    rpm: Annotated[float | None, typer.Option(help="Requests-per-minute limit.")] = None,
    max_attempts: Annotated[int, typer.Option(help="Attempts per item.")] = 6,
    temperature: Annotated[float, typer.Option()] = 0.0,
    max_tokens: Annotated[int | None, typer.Option(help="Default 400 (local: 160).")] = None,
    top_p: Annotated[float | None, typer.Option()] = None,
    seed: Annotated[
        int | None, typer.Option(help="Sampling seed, if the provider takes one.")
    ] = None,
    system_prompt: Annotated[str | None, typer.Option(help="Replace the system prompt.")] = None,
    base_url: Annotated[
        str | None, typer.Option(help="Server URL for OpenAI-compatible ids.")
    ] = None,
    api_key_env: Annotated[str | None, typer.Option(help="Variable that holds the key.")] = None,
    option: Annotated[list[str] | None, typer.Option(help="Provider option key=value.")] = None,
    cache: Annotated[Path | None, typer.Option(help="Cache file.")] = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Do not read or write the cache.")
    ] = False,
    prices: Annotated[
        Path | None, typer.Option(help="JSON/YAML token prices per model id.")
    ] = None,
    no_progress: Annotated[bool, typer.Option("--no-progress")] = False,
    judge: Annotated[
        list[str] | None,
        typer.Option(
            help="Score with this judge (repeat for a panel; 'offline' = the approximate "
            "offline judge, used by default when no judge is given)."
        ),
    ] = None,
    no_judge: Annotated[
        bool, typer.Option("--no-judge", help="Score only the deterministic dimensions.")
    ] = False,
    allow_self_judge: Annotated[
        bool, typer.Option(help="Allow a judge from the tested model's family (recorded).")
    ] = False,
    judge_base_url: Annotated[
        str | None, typer.Option(help="Server URL for OpenAI-compatible judges.")
    ] = None,
    answer_mode: AnswerModeOption = None,
    batch: Annotated[
        bool,
        typer.Option(
            "--batch",
            help="Answer through the provider's batch API (openai, anthropic): about half "
            "the price, results within 24 h; resumable by the batch ids in the run folder.",
        ),
    ] = False,
    batch_poll: Annotated[
        float, typer.Option(help="Seconds between polls of a --batch run.")
    ] = 30.0,
    force: Annotated[
        bool,
        typer.Option("--force", help="Write into a --run-dir that is not empty and holds no run."),
    ] = False,
) -> None:
    """Run a suite through a model (default: standard-v1 on the bundled local/smollm2)."""
    check_exclusive({"judge": bool(judge), "no_judge": no_judge})
    check_directory_target("run_dir", run_dir)
    check_existing_directory("resume", resume)
    check_generation(temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed)
    check_count("epochs", epochs, maximum=MAX_EPOCHS)
    check_count("limit", limit)
    check_count("max_attempts", max_attempts)
    check_count("max_connections", max_connections)
    check_number("rpm", rpm, above=0)
    check_url("base_url", base_url)
    check_url("judge_base_url", judge_base_url)
    check_cache_path(cache)
    check_existing_file("prices", prices)
    for judge_id in judge or []:
        check_offline_judge(judge_id)
    if resume is not None:
        manifest = RunStore(resume).read_manifest()
        if answer_mode is not None and answer_mode != manifest.answer_mode:
            raise UserError(
                f"{resume} was run with --answer-mode {manifest.answer_mode}; a resumed run "
                "keeps its answer mode (leave --answer-mode out)"
            )
        spec = resumed_spec(manifest, base_url, resume)
        options = RunOptions(
            suite=load_run_suite(manifest),
            suite_source=manifest.suite.source,
            spec=spec,
            run_dir=resume,
            strategy=manifest.strategy,
            epochs=manifest.epochs,
            limit=manifest.limit,
            kinds=manifest.kinds,
            max_connections=manifest.max_connections,
            requests_per_minute=manifest.requests_per_minute,
            answer_mode=manifest.answer_mode,
        )
        request = resumed_judging(manifest, judge, no_judge, judge_base_url, resume)
    else:
        provider = model.partition("/")[0]
        params = validated(
            GenerationParams,
            temperature=temperature,
            top_p=top_p,
            seed=seed,
            max_tokens=max_tokens
            if max_tokens is not None
            else DEFAULT_MAX_TOKENS.get(provider, 400),
        )
        spec = parse_model_id(
            model,
            base_url=base_url,
            api_key_env=api_key_env,
            system_prompt=system_prompt,
            params=params,
            options=parse_options(option or []),
        )
        mode = run_answer_mode(spec, strategy, answer_mode)  # before any file read or call
        loaded = load_suite(suite)
        mode = run_answer_mode(spec, strategy, answer_mode, loaded)
        kind_list = [k.strip() for k in kinds.split(",")] if kinds else None
        options = RunOptions(
            suite=loaded,
            suite_source=suite if not Path(suite).exists() else str(Path(suite).resolve()),
            spec=spec,
            run_dir=run_dir or default_run_dir(suite, spec.id, strategy, mode),
            strategy=strategy,
            epochs=epochs,
            limit=limit,
            kinds=kind_list,
            max_connections=max_connections
            if max_connections is not None
            else int(spec.options.get("batch_size", DEFAULT_CONNECTIONS.get(provider, 8))),
            requests_per_minute=rpm,
            answer_mode=mode,
        )
        check_output_directory(options.run_dir, kind="run", markers=(MANIFEST,), force=force)
        request = requested_judging(judge, no_judge, judge_base_url, allow_self_judge)
    options.max_attempts = max_attempts
    options.batch = batch or has_open_batches(options.run_dir)
    options.batch_poll_s = batch_poll
    if options.batch:
        reason = batch_unsupported(options.spec)
        if reason is not None:
            raise UserError(reason)
    options.cache_path = None if no_cache else (cache or default_cache_path())
    options.prices = load_prices(prices) if prices else {}
    options.show_progress = not no_progress
    options.judging = request
    select_items(options.suite, options.limit, options.kinds)  # fail fast on bad selection
    resolve_api_key(options.spec)  # a missing key is reported before any work starts
    offline, llm = split_judges(request.judges)
    judges = judge_specs(llm, judge_base_url or request.judge_base_url, {})
    for judge_spec in judges:  # refuse a self-judge before spending anything
        check_judge(options.spec, judge_spec, allow_self_judge=request.allow_self_judge)
    with hold_directory(options.run_dir):  # until the summary is written
        result = asyncio.run(execute_run(options))
        print_run_totals(result)
        if judges:
            run_judges(
                options.run_dir,
                judges,
                allow_self_judge=request.allow_self_judge,
                max_connections=8,
                max_reasks=2,
                cache=options.cache_path,
                show_progress=options.show_progress,
            )
        run_offline_judges(options.run_dir, offline)
        print_summary(build_run_summary(options.run_dir))
    if result.manifest.status != "complete":
        raise typer.Exit(1)


def requested_judging(
    judge: list[str] | None, no_judge: bool, judge_base_url: str | None, allow_self_judge: bool
) -> JudgeRequest:
    """The judges a new run will be scored with (recorded in its manifest for resuming)."""
    if no_judge and judge:
        raise UserError("--no-judge and --judge contradict each other: give one of them")
    if judge is None and not no_judge:
        judge = [OFFLINE_JUDGE] if offline_judge_available() else []
        if not judge:
            console.print(
                f"note: no judge given and the offline judge needs the local extra "
                f"({INSTALL_HINT}); text dimensions stay unscored",
                highlight=False,
            )
    return JudgeRequest(
        judges=list(judge or []),
        no_judge=no_judge,
        judge_base_url=redact_url(judge_base_url) if judge_base_url else None,
        allow_self_judge=allow_self_judge,
    )


def resumed_judging(
    manifest: RunManifest,
    judge: list[str] | None,
    no_judge: bool,
    judge_base_url: str | None,
    directory: Path,
) -> JudgeRequest:
    """The judges a resumed run keeps: those recorded when it started.

    Runs made before judges were recorded take what is given now (the default otherwise).
    """
    recorded = manifest.judging
    if recorded is None:
        return requested_judging(judge, no_judge, judge_base_url, allow_self_judge=False)
    given = judge is not None or no_judge
    if given and (sorted(judge or []) != sorted(recorded.judges) or no_judge != recorded.no_judge):
        started = (
            "--no-judge"
            if recorded.no_judge
            else (" ".join(f"--judge {j}" for j in recorded.judges) or "no judge")
        )
        raise UserError(
            f"{directory} was started with {started}; a resumed run keeps its judges (leave "
            f"--judge/--no-judge out, or add a judge later with: empathybench judge {directory} "
            "--judge ID)"
        )
    if recorded.judge_base_url and judge_base_url is None and REDACTED in recorded.judge_base_url:
        raise UserError(
            f"{directory}: the judges' server URL held a credential that was not recorded; give "
            "it again with --judge-base-url"
        )
    given_url = redact_url(judge_base_url) if judge_base_url is not None else None
    if given_url is not None and recorded.judge_base_url not in (None, given_url):
        raise UserError(
            f"{directory} was judged through {recorded.judge_base_url}; --judge-base-url "
            f"{given_url} is another server"
        )
    return recorded


def resumed_spec(manifest: RunManifest, base_url: str | None, directory: Path) -> ModelSpec:
    """The tested model of a resumed run; ``base_url`` gives back a credential the manifest
    left out (it must name the recorded server)."""
    spec = ModelSpec.model_validate(manifest.model)
    recorded = spec.base_url
    if base_url is None:
        if recorded is not None and REDACTED in recorded:
            raise UserError(
                f"{directory}: the model's server URL held a credential that was not "
                "recorded; give it again with --base-url"
            )
        return spec
    if recorded is None or redact_url(base_url) != recorded:
        raise UserError(
            f"{directory} was run against {recorded or 'the provider default'}; --base-url "
            f"{redact_url(base_url)} is another server (a resumed run keeps its model)"
        )
    return spec.model_copy(update={"base_url": base_url})


def register(app: typer.Typer) -> None:
    app.command("run")(_run)
