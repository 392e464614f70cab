"""``empathybench survey build | results | export | import``: the blind survey's commands.

``build`` turns a therapy study's answers into a survey; raters vote in ``empathybench ui``
(or an external form tool, then ``import``); ``results`` un-blinds the votes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from empathybench.cli.console import console, err_console
from empathybench.errors import UserError
from empathybench.validation import (
    check_count,
    check_directory_target,
    check_existing_directory,
    check_existing_file,
    check_file_target,
    check_seed,
)

survey_app = typer.Typer(
    help="The blind most/least-empathetic survey: results, and votes as CSV.",
    no_args_is_help=True,
)

SurveyDirArgument = Annotated[
    Path, typer.Argument(help="Survey directory (form.json, key.json, votes.sqlite).")
]
ForceOption = Annotated[
    bool, typer.Option("--force", help="Replace a --csv file that is not an earlier export.")
]
CsvOption = Annotated[Path, typer.Option("--csv", help="The CSV file of votes.")]


def _build(
    survey_dir: SurveyDirArgument,
    study: Annotated[Path, typer.Option(help="Therapy study whose answers to show.")] = Path(
        "studies/therapy"
    ),
    k: Annotated[int, typer.Option("--k", help="Questions in the survey.")] = 10,
    seed: Annotated[int, typer.Option(help="Seed of the question pick and the letters.")] = 0,
    source: Annotated[
        list[str] | None,
        typer.Option(help="Sources to compare, 2 to 5 (default: all of the study's)."),
    ] = None,
    title: Annotated[str, typer.Option(help="Title shown to raters.")] = (
        "Which answer is the most empathetic?"
    ),
    force: Annotated[
        bool, typer.Option("--force", help="Replace a survey already there (votes are kept).")
    ] = False,
) -> None:
    """Pick K questions (seeded), letter each question's answers A–E, keep the key apart."""
    check_directory_target("survey_dir", survey_dir)
    check_existing_directory("study", study)
    check_count("k", k)
    check_seed("seed", seed)
    from empathybench.survey.build import build_survey, write_survey
    from empathybench.survey.from_study import study_survey_inputs
    from empathybench.therapy.study import Study

    questions, sources = study_survey_inputs(Study(study), source)
    form, key = build_survey(questions, sources, k=k, seed=seed, title=title, origin=str(study))
    write_survey(survey_dir, form, key, force=force)
    console.print(
        f"survey {form.survey_id}: {len(form.items)} questions, sources "
        f"{', '.join(key.sources)} → {survey_dir} (raters see form.json only; key.json "
        "holds the sources). Collect votes with: empathybench ui --survey "
        f"{survey_dir}",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )


def _results(
    survey_dir: SurveyDirArgument,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Folder for the results (default: SURVEY_DIR/results)."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
) -> None:
    """Shares of most/least empathetic votes per source, with 95% CIs, chart and reasons."""
    check_directory_target("out", out)
    check_seed("seed", seed)
    from empathybench.report.tables import format_interval
    from empathybench.survey.build import load_form, load_key
    from empathybench.survey.records import VOTES_FILE
    from empathybench.survey.results import survey_results, write_results
    from empathybench.survey.store import VoteStore

    form, key = load_form(survey_dir), load_key(survey_dir)
    with VoteStore(survey_dir / VOTES_FILE) as store:
        votes = store.votes(form.survey_id)
    if not votes:
        raise UserError(
            f"survey {form.survey_id} in {survey_dir} has no votes yet; "
            "collect some in the app or with empathybench survey import"
        )
    results = survey_results(form, key, votes, seed=seed)
    table = Table(
        title=f"survey {results.survey_id}: {results.votes} votes, {results.raters} raters, "
        f"{results.questions} questions",
        caption="share of all votes [95% CI over raters]; votes: most/least; "
        "chance: share if raters picked at random",
    )
    table.add_column("source", no_wrap=True)
    table.add_column("most [95% CI]", justify="right", no_wrap=True)
    table.add_column("least [95% CI]", justify="right", no_wrap=True)
    table.add_column("votes", justify="right")
    table.add_column("chance", justify="right")
    for share in results.sources:
        table.add_row(
            share.source,
            format_interval(share.most, digits=2),
            format_interval(share.least, digits=2),
            f"{share.most_votes}/{share.least_votes}",
            f"{share.chance:.2f}",
        )
    console.print(table)
    directory = out if out is not None else survey_dir / "results"
    paths = write_results(directory, results)
    console.print(
        f"wrote {len(paths)} files to {directory} (results.md: table and reasons, "
        "survey_votes.png: chart)",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )


def _export(survey_dir: SurveyDirArgument, csv_path: CsvOption, force: ForceOption = False) -> None:
    """Write every vote, with the sources behind its letters, to a CSV file."""
    check_file_target("csv_path", csv_path)
    from empathybench.runtime.output_guard import check_output_file, csv_with_header
    from empathybench.survey.results import EXPORT_COLUMNS

    # an export replaces only an earlier export of its kind (or an empty file)
    same = csv_with_header(EXPORT_COLUMNS)
    check_output_file(csv_path, kind="CSV export of votes", same_kind=same, force=force)
    from empathybench.survey.build import load_form, load_key
    from empathybench.survey.records import VOTES_FILE
    from empathybench.survey.results import export_votes_csv
    from empathybench.survey.store import VoteStore

    form, key = load_form(survey_dir), load_key(survey_dir)
    with VoteStore(survey_dir / VOTES_FILE) as store:
        votes = store.votes(form.survey_id)
    export_votes_csv(votes, key, csv_path)
    console.print(f"wrote {len(votes)} votes to {csv_path}", highlight=False, markup=False)


def _import(survey_dir: SurveyDirArgument, csv_path: CsvOption) -> None:
    """Add votes from a CSV (an export or a form tool's sheet); exit 1 if rows were refused."""
    from empathybench.runtime.directory_lock import hold_directory

    check_existing_file("csv_path", csv_path)
    from empathybench.survey.results import import_votes_csv
    from empathybench.survey.session import SurveySession

    with SurveySession.open(survey_dir) as session, hold_directory(survey_dir):
        report = import_votes_csv(csv_path, session)
    console.print(
        f"added {report.added}, duplicates {report.duplicates}, rejected {len(report.rejected)}",
        highlight=False,
    )
    for problem in report.rejected:
        err_console.print(f"rejected {problem}", highlight=False, markup=False)
    if report.rejected:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    survey_app.command("build")(_build)
    survey_app.command("results")(_results)
    survey_app.command("export")(_export)
    survey_app.command("import")(_import)
    app.add_typer(survey_app, name="survey")
