"""``empathybench therapy``: questions, run, judge and report for the therapy track."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from empathybench.cli.console import console
from empathybench.cli.judge_commands import judge_specs, report_judge_failures, split_judges
from empathybench.cli.run_commands import (
    AnswerModeOption,
    check_generation,
    parse_options,
    print_run_totals,
)
from empathybench.judging.llm_judge import JudgeSettings
from empathybench.judging.offline_judge import OFFLINE_JUDGE, judge_label
from empathybench.models.base import GenerationParams
from empathybench.models.registry import parse_model_id, resolve_answer_mode, resolve_api_key
from empathybench.runner import RunOptions, execute_run
from empathybench.runtime.cache import check_cache_path, default_cache_path
from empathybench.runtime.directory_lock import hold_directory
from empathybench.runtime.output_guard import check_output_file, has_fields, path_parser
from empathybench.runtime.run_store import RunStore
from empathybench.therapy.prompt import THERAPIST_MAX_TOKENS
from empathybench.therapy.questions import (
    BUNDLED_SAMPLE,
    QuestionSet,
    load_questions,
    write_questions,
)
from empathybench.therapy.study import Study
from empathybench.validation import (
    check_count,
    check_directory_target,
    check_existing_directory,
    check_file_target,
    check_number,
    check_seed,
    check_url,
)

therapy_app = typer.Typer(
    help="The therapy track: counselling questions under the seed's therapist prompt.",
    no_args_is_help=True,
)
DEFAULT_STUDY = Path("studies/therapy")
DEFAULT_CONNECTIONS = {"local": 64, "mock": 16}

StudyOption = Annotated[Path, typer.Option("--study", help="Study directory.")]


def _questions(
    source: str | None, limit: int | None, question_column: str | None, answer_column: str | None
) -> QuestionSet | None:
    if source is None:
        return None
    return load_questions(
        source, limit=limit, question_column=question_column, answer_column=answer_column
    )


@therapy_app.command("questions")
def _questions_command(
    source: Annotated[str, typer.Argument(help=f"{BUNDLED_SAMPLE}, a file, or hub:OWNER/NAME.")],
    limit: Annotated[int | None, typer.Option(help="Keep the first N questions.")] = None,
    question_column: Annotated[str | None, typer.Option(help="Column of the questions.")] = None,
    answer_column: Annotated[str | None, typer.Option(help="Column of the answers.")] = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Write the questions as JSONL.", parser=path_parser("--out")),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace an --out file that is not a question set.")
    ] = False,
) -> None:
    """Load and preprocess questions (skip empty, drop duplicates, first N); optionally save."""
    check_count("limit", limit)
    check_file_target("out", out)
    if out is not None:
        check_output_file(
            out, kind="question set (JSONL)", same_kind=has_fields("id", "question"), force=force
        )
    questions = load_questions(
        source, limit=limit, question_column=question_column, answer_column=answer_column
    )
    with_reference = sum(1 for q in questions.questions if q.reference)
    console.print(
        f"{questions.name}: {len(questions.questions)} questions, {with_reference} with a "
        f"reference answer; sha256 {questions.sha256[:12]}…",
        highlight=False,
    )
    if out is not None:
        write_questions(out, questions.questions)
        console.print(f"wrote {out}", highlight=False)


@therapy_app.command("run")
def _run(
    model: Annotated[str, typer.Option(help="Model id: provider/name.")] = "local/smollm2",
    study: StudyOption = DEFAULT_STUDY,
    questions: Annotated[
        str | None,
        typer.Option(help=f"Start the study from {BUNDLED_SAMPLE}, a file or hub:OWNER/NAME."),
    ] = None,
    limit: Annotated[int | None, typer.Option(help="Keep the first N questions.")] = None,
    question_column: Annotated[str | None, typer.Option()] = None,
    answer_column: Annotated[str | None, typer.Option()] = None,
    epochs: Annotated[int, typer.Option(help="Answers per question (sampled).")] = 1,
    max_tokens: Annotated[int, typer.Option(help="The seed's limit.")] = THERAPIST_MAX_TOKENS,
    temperature: Annotated[float, typer.Option()] = 0.0,
    seed: Annotated[int | None, typer.Option(help="Sampling seed, if taken.")] = None,
    max_connections: Annotated[int | None, typer.Option(help="Concurrent requests.")] = None,
    rpm: Annotated[float | None, typer.Option(help="Requests-per-minute limit.")] = None,
    base_url: Annotated[str | None, typer.Option(help="Server URL (OpenAI-compatible).")] = None,
    api_key_env: Annotated[str | None, typer.Option(help="Variable that holds the key.")] = None,
    option: Annotated[list[str] | None, typer.Option(help="Provider option key=value.")] = None,
    cache: Annotated[Path | None, typer.Option(help="Cache file.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache")] = False,
    no_progress: Annotated[bool, typer.Option("--no-progress")] = False,
    answer_mode: AnswerModeOption = None,
) -> None:
    """Answer the study's questions with a model under the therapist prompt (resumable).

    Guided answers (the default for local models) end on their own: the local engine stops
    at the end of the turn or at a new speaker line and holds back repetition loops.
    """
    check_directory_target("study", study)
    check_count("limit", limit)
    check_count("epochs", epochs)
    check_generation(temperature=temperature, top_p=None, max_tokens=max_tokens, seed=seed)
    check_count("max_connections", max_connections)
    check_number("rpm", rpm, above=0)
    check_url("base_url", base_url)
    check_cache_path(cache)
    if questions is None and not Study(study).exists():
        questions = BUNDLED_SAMPLE
    loaded = _questions(questions, limit, question_column, answer_column)
    provider = model.partition("/")[0]
    spec = parse_model_id(
        model,
        base_url=base_url,
        api_key_env=api_key_env,
        params=GenerationParams(temperature=temperature, seed=seed, max_tokens=max_tokens),
        options=parse_options(option or []),
    )
    earlier = Study(study).run_dir(spec.id)  # a source run again keeps its answer mode
    if answer_mode is None and RunStore(earlier).exists():
        answer_mode = RunStore(earlier).read_manifest().answer_mode
    mode = resolve_answer_mode(spec, answer_mode)
    resolve_api_key(spec)
    with hold_directory(study):  # one process per study at a time
        opened = Study.create_or_open(study, loaded)
        question_set = opened.question_set()
        options = RunOptions(
            suite=question_set,
            suite_source=str(study / "questions.jsonl"),
            spec=spec,
            run_dir=opened.run_dir(spec.id),
            epochs=epochs,
            max_connections=max_connections
            or int(spec.options.get("batch_size", DEFAULT_CONNECTIONS.get(provider, 8))),
            requests_per_minute=rpm,
            cache_path=None if no_cache else (cache or default_cache_path()),
            show_progress=not no_progress,
            answer_mode=mode,
        )
        result = asyncio.run(execute_run(options))
        print_run_totals(result)
        console.print(f"study {study}: sources {', '.join(opened.sources())}", highlight=False)
    if result.manifest.status != "complete":
        raise typer.Exit(1)


@therapy_app.command("judge")
def _judge(
    study: StudyOption = DEFAULT_STUDY,
    judge: Annotated[
        list[str] | None,
        typer.Option(
            help="LLM judge id, or 'offline' (the bundled empathy scorer; 'offline:HEAD_DIR' "
            "for another head). Repeat for several. Default: offline."
        ),
    ] = None,
    source: Annotated[
        list[str] | None, typer.Option(help="Only these sources (default: all).")
    ] = None,
    allow_self_judge: Annotated[bool, typer.Option(help="Allow a same-family judge.")] = False,
    judge_base_url: Annotated[str | None, typer.Option(help="Server URL for judges.")] = None,
    max_connections: Annotated[int, typer.Option()] = 8,
    max_reasks: Annotated[int, typer.Option(help="Re-asks after an invalid answer.")] = 2,
    cache: Annotated[Path | None, typer.Option(help="Cache file.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache")] = False,
    no_progress: Annotated[bool, typer.Option("--no-progress")] = False,
) -> None:
    """Score every source's answers on cognitive, emotional and behavioral empathy (1–3)."""
    check_existing_directory("study", study)
    check_count("max_connections", max_connections)
    check_count("max_reasks", max_reasks, minimum=0)
    check_url("judge_base_url", judge_base_url)
    check_cache_path(cache)
    from empathybench.therapy.judging import TherapyJudgeOptions, judge_study

    offline, llm = split_judges(judge or [OFFLINE_JUDGE])
    result = judge_study(
        TherapyJudgeOptions(
            study_dir=study,
            judges=judge_specs(llm, judge_base_url, {}),
            offline=offline,
            sources=source,
            allow_self_judge=allow_self_judge,
            max_connections=max_connections,
            settings=JudgeSettings(max_reasks=max_reasks),
            cache_path=None if no_cache else (cache or default_cache_path()),
            show_progress=not no_progress,
        )
    )
    judges = ", ".join(judge_label(j) for j in offline + llm)
    failed = sum(p.failed for p in result.passes)
    console.print(
        f"judged {result.judged - failed} answer(s) with {judges}, {failed} failed; "
        f"{result.skipped} already judged",
        highlight=False,
    )
    for decision in result.decisions:
        if decision.decision.same_family:
            console.print(
                f"note: {decision.decision.judge} judged {decision.source}: "
                f"{decision.decision.reason}",
                highlight=False,
            )
    report_judge_failures([(p.judge, p.attempted, p.failed, p.first_error) for p in result.passes])


@therapy_app.command("report")
def _report(
    study: StudyOption = DEFAULT_STUDY,
    judge: Annotated[
        list[str] | None, typer.Option(help="Judges to report (default: LLM judges, else offline).")
    ] = None,
    source: Annotated[list[str] | None, typer.Option(help="Only these sources.")] = None,
    out: Annotated[Path | None, typer.Option(help="Output folder (default: STUDY/report).")] = None,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
) -> None:
    """C/E/B and empathy per source with 95% CIs, the radar chart, Markdown/CSV/JSON."""
    check_existing_directory("study", study)
    check_directory_target("out", out)
    check_seed("seed", seed)
    from empathybench.therapy.report import (
        REPORT_DIR,
        build_therapy_report,
        text_shape_rows,
        therapy_table_rows,
        write_therapy_report,
    )

    opened = Study(study).require()
    report = build_therapy_report(opened, judges=judge, sources=source, seed=seed)
    header, rows = therapy_table_rows(report)
    table = Table(
        title=f"therapy: {report.questions} — judges: "
        + ", ".join(judge_label(j) for j in report.judges)
    )
    for column in header:
        table.add_column(column, overflow="fold", no_wrap=column == "source")
    for row in rows:
        table.add_row(*row)
    console.print(table)
    shape_header, shape_rows = text_shape_rows(report)
    shape = Table(title="answer length and repetition (context, not empathy scores)")
    for column in shape_header:
        shape.add_column(column, overflow="fold", no_wrap=column == "source")
    for row in shape_rows:
        shape.add_row(*row)
    console.print(shape)
    written, figures = write_therapy_report(report, out or study / REPORT_DIR)
    for name, reason in figures.skipped.items():
        console.print(f"figure {name} skipped: {reason}", highlight=False)
    console.print(f"wrote {len(written)} files to {out or study / REPORT_DIR}", highlight=False)


def register(app: typer.Typer) -> None:
    app.add_typer(therapy_app, name="therapy")
