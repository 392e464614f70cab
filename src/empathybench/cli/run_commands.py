"""``empathybench run``: the main job (a suite through a model into a run directory)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from empathybench.api.judging import default_judges
from empathybench.api.running import RunOutcome, model_spec, resume, run
from empathybench.api.summaries import summarize
from empathybench.cli.console import console
from empathybench.cli.errors import flag_for
from empathybench.cli.judge_view import print_judging, report_judge_failures
from empathybench.cli.options import AnswerModeOption, cache_choice, parse_options
from empathybench.cli.progress import progress_bars
from empathybench.cli.summary_view import print_summary
from empathybench.errors import UserError
from empathybench.models.defaults import DEFAULT_MODEL
from empathybench.models.local_weights import INSTALL_HINT
from empathybench.models.registry import answer_mode_named
from empathybench.runner import MAX_EPOCHS
from empathybench.runtime.cache import check_cache_path
from empathybench.runtime.output_guard import path_parser
from empathybench.runtime.run_store import RunStore
from empathybench.scenarios.suites import DEFAULT_SUITE
from empathybench.validation import (
    check_count,
    check_directory_target,
    check_exclusive,
    check_existing_directory,
    check_existing_file,
    check_number,
    check_seed,
    check_url,
)


def check_generation(
    *, temperature: float | None, top_p: float | None, max_tokens: int | None, seed: int | None
) -> None:
    """The sampling settings every model command takes, checked before any call."""
    check_number("temperature", temperature, minimum=0, maximum=2)
    check_number("top_p", top_p, above=0, maximum=1)
    check_count("max_tokens", max_tokens)
    check_seed("seed", seed)


def print_run_totals(outcome: RunOutcome) -> None:
    manifest = outcome.manifest
    totals = manifest.totals
    console.print(f"run {manifest.run_id} → {outcome.directory} ({manifest.status})")
    console.print(
        f"items {totals.items}: {totals.completed} answered, {totals.errors} failed, "
        f"{totals.cached} from cache, {outcome.skipped} already done before this call; "
        f"{outcome.calls_made} model calls; tokens {totals.input_tokens:,} in / "
        f"{totals.output_tokens:,} out; {totals.wall_s:.1f} s"
        + (f"; cost ${totals.cost_usd:.4f}" if totals.cost_usd is not None else ""),
        highlight=False,
    )


def _judges(judge: list[str] | None, no_judge: bool, *, resuming: bool) -> list[str] | None:
    """``--judge`` / ``--no-judge`` as the library's ``judges`` (None: the default judges, or
    on ``--resume`` those the run was started with)."""
    if no_judge:
        return []
    if judge is not None:
        return judge
    if not resuming and not default_judges():
        console.print(
            f"note: no judge given and the offline judge needs the local extra "
            f"({INSTALL_HINT}); text dimensions stay unscored",
            highlight=False,
        )
    return None


# What a run is started with and ``--resume`` takes from the run's manifest instead (or,
# for ``--force``, what means nothing when continuing a run): given beside ``--resume`` they
# would be silently ignored, so they are refused. ``--max-connections`` and ``--rpm`` only
# pace the calls, so a resumed run takes new ones (after rate-limit errors, say).
RECORDED_SETTINGS = (
    "suite",
    "model",
    "run_dir",
    "strategy",
    "epochs",
    "limit",
    "kinds",
    "temperature",
    "max_tokens",
    "top_p",
    "seed",
    "system_prompt",
    "api_key_env",
    "option",
    "force",
)


def given_explicitly(ctx: typer.Context, name: str) -> bool:
    """Whether the user gave option ``name`` (not left to its default)."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name != "DEFAULT"


def check_resume_settings(ctx: typer.Context) -> None:
    """``--resume`` continues a run with the settings it was started with."""
    given = [name for name in RECORDED_SETTINGS if given_explicitly(ctx, name)]
    if given:
        flags = ", ".join(flag_for(ctx.command, name) for name in given)
        raise UserError(
            f"--resume continues the run with the settings it was started with; leave out "
            f"{flags} (or start a new run)"
        )


def _run(
    ctx: typer.Context,
    suite: Annotated[
        str,
        typer.Option(help="Bundled suite name (`empathybench suites` lists them) or JSONL file."),
    ] = DEFAULT_SUITE,
    model: Annotated[str, typer.Option(help="Model id: provider/name.")] = DEFAULT_MODEL,
    run_dir: Annotated[
        Path | None,
        typer.Option(help="Run directory (default: runs/…).", parser=path_parser("--run-dir")),
    ] = None,
    resume_dir: Annotated[
        Path | None,
        typer.Option(
            "--resume",
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
    """Run a suite through a model (default: standard-v6 on the bundled local/smollm2)."""
    check_exclusive({"judge": bool(judge), "no_judge": no_judge})
    check_directory_target("run_dir", run_dir)
    check_existing_directory("resume", resume_dir)
    check_generation(temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed)
    check_count("epochs", epochs, maximum=MAX_EPOCHS)
    check_count("limit", limit)
    check_count("max_attempts", max_attempts)
    check_count("max_connections", max_connections)
    check_number("rpm", rpm, above=0)
    check_number("batch_poll", batch_poll, above=0)
    check_url("base_url", base_url)
    check_url("judge_base_url", judge_base_url)
    check_cache_path(cache)
    check_existing_file("prices", prices)
    mode = answer_mode_named(answer_mode) if answer_mode is not None else None
    if resume_dir is not None:
        check_resume_settings(ctx)
        recorded = RunStore(resume_dir).read_manifest().answer_mode
        if mode is not None and mode != recorded:
            raise UserError(
                f"{resume_dir} was run with --answer-mode {recorded}; a resumed run "
                "keeps its answer mode (leave --answer-mode out)"
            )
    judges = _judges(judge, no_judge, resuming=resume_dir is not None)
    with progress_bars(not no_progress) as progress:
        if resume_dir is not None:
            outcome = resume(
                resume_dir,
                judges=judges,
                allow_self_judge=allow_self_judge,
                judge_base_url=judge_base_url,
                base_url=base_url,
                max_attempts=max_attempts,
                cache=cache_choice(cache, no_cache),
                prices=prices,
                progress=progress,
                batch=batch,
                batch_poll_s=batch_poll,
                max_connections=max_connections,
                requests_per_minute=rpm,
            )
        else:
            spec = model_spec(
                model,
                temperature=temperature,
                top_p=top_p,
                seed=seed,
                max_tokens=max_tokens,
                system_prompt=system_prompt,
                base_url=base_url,
                api_key_env=api_key_env,
                options=parse_options(option or []),
            )
            outcome = run(
                suite,
                model=spec,
                run_dir=run_dir,
                judges=judges,
                allow_self_judge=allow_self_judge,
                judge_base_url=judge_base_url,
                strategy=strategy,
                answer_mode=mode,
                epochs=epochs,
                limit=limit,
                kinds=[k.strip() for k in kinds.split(",")] if kinds else None,
                max_connections=max_connections,
                requests_per_minute=rpm,
                max_attempts=max_attempts,
                cache=cache_choice(cache, no_cache),
                prices=prices,
                progress=progress,
                force=force,
                batch=batch,
                batch_poll_s=batch_poll,
            )
    print_run_totals(outcome)
    if outcome.judging is not None:
        print_judging(outcome.judging)
    print_summary(summarize(outcome))
    if outcome.judging is not None:
        report_judge_failures(outcome.judging)
    if not outcome.complete:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("run")(_run)
