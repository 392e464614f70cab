"""``empathybench therapy``: questions, run, judge and report for the therapy track."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from empathybench.api.running import model_spec
from empathybench.cli.console import console
from empathybench.cli.judge_view import report_judge_failures
from empathybench.cli.options import AnswerModeOption, cache_choice, parse_options
from empathybench.cli.progress import progress_bars
from empathybench.cli.run_commands import check_generation, print_run_totals
from empathybench.judging.offline_judge import OFFLINE_JUDGE, judge_label
from empathybench.models.defaults import DEFAULT_MODEL
from empathybench.runtime.cache import check_cache_path
from empathybench.runtime.output_guard import (
    check_output_file,
    has_fields,
    path_parser,
    refuse_input_as_output,
)
from empathybench.therapy.pipeline import DEFAULT_STUDY, judge_therapy, run_therapy
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
        refuse_input_as_output(out, [source], "--out")
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
    model: Annotated[str, typer.Option(help="Model id: provider/name.")] = DEFAULT_MODEL,
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
        questions = BUNDLED_SAMPLE  # a new study: the sample, with --limit applied
    spec = model_spec(
        model,
        temperature=temperature,
        seed=seed,
        max_tokens=max_tokens,
        base_url=base_url,
        api_key_env=api_key_env,
        options=parse_options(option or []),
    )
    with progress_bars(not no_progress) as progress:
        outcome = run_therapy(
            spec,
            study=study,
            questions=_questions(questions, limit, question_column, answer_column),
            epochs=epochs,
            answer_mode=answer_mode,
            max_connections=max_connections,
            requests_per_minute=rpm,
            cache=cache_choice(cache, no_cache),
            progress=progress,
        )
    print_run_totals(outcome)
    console.print(f"study {study}: sources {', '.join(Study(study).sources())}", highlight=False)
    if not outcome.complete:
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
    judges = judge or [OFFLINE_JUDGE]
    with progress_bars(not no_progress) as progress:
        result = judge_therapy(
            study,
            judges=judges,
            sources=source,
            allow_self_judge=allow_self_judge,
            base_url=judge_base_url,
            max_connections=max_connections,
            max_reasks=max_reasks,
            cache=cache_choice(cache, no_cache),
            progress=progress,
        )
    failed = sum(p.failed for p in result.passes)
    console.print(
        f"judged {result.judged - failed} answer(s) with "
        f"{', '.join(judge_label(j) for j in judges)}, {failed} failed; "
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
    report_judge_failures(result.passes)


@therapy_app.command("report")
def _report(
    study: StudyOption = DEFAULT_STUDY,
    judge: Annotated[
        list[str] | None, typer.Option(help="Judges to report (default: LLM judges, else offline).")
    ] = None,
    source: Annotated[list[str] | None, typer.Option(help="Only these sources.")] = None,
    out: Annotated[Path | None, typer.Option(help="Output folder (default: STUDY/report).")] = None,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    force: Annotated[
        bool, typer.Option("--force", help="Write into an output folder that holds other files.")
    ] = False,
) -> None:
    """C/E/B and empathy per source with 95% CIs, the radar chart, Markdown/CSV/JSON."""
    check_existing_directory("study", study)
    check_directory_target("out", out)
    if out is not None:
        from empathybench.runtime.output_guard import check_output_directory

        check_output_directory(out, kind="therapy report", markers=("therapy.json",), force=force)
    check_seed("seed", seed)
    from empathybench.therapy.report import REPORT_DIR, build_therapy_report
    from empathybench.therapy.report_files import (
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
