"""``empathybench annotate init | results | export | import``: human validation of items.

``init`` draws a study from a suite; raters answer in ``empathybench ui --annotations DIR``
(or offline, then ``import``); ``results`` compares their answers with the key and with each
other and flags items under the agreement threshold. See docs/annotation.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import JustifyMethod
from rich.table import Table
from rich.text import Text

from empathybench.cli.console import console, err_console
from empathybench.validation import (
    check_count,
    check_directory_target,
    check_existing_file,
    check_file_target,
    check_number,
    check_seed,
)

annotate_app = typer.Typer(
    help="Human validation of benchmark items: raters answer blind, agreement is reported.",
    no_args_is_help=True,
)

StudyDirArgument = Annotated[
    Path,
    typer.Argument(help="Study directory (study.json, form.json, key.json, annotations.sqlite)."),
]
ForceOption = Annotated[
    bool, typer.Option("--force", help="Replace a --csv file that is not an earlier export.")
]
CsvOption = Annotated[Path, typer.Option("--csv", help="The CSV file of answers.")]


def _print(text: str) -> None:
    console.print(text, highlight=False, markup=False, soft_wrap=True)


def _init(
    suite: Annotated[str, typer.Argument(help="A bundled suite name or a suite JSONL file.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The study directory to create.")],
    n: Annotated[
        int | None, typer.Option("--n", help="Items in the study (default: all of the suite's).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the item order (and of the pick).")] = 0,
) -> None:
    """Draw an annotation study from SUITE: the form raters see, with the key kept apart."""
    check_directory_target("out", out)
    check_count("n", n)
    check_seed("seed", seed)
    from empathybench.annotation.study import init_study

    outcome = init_study(out, suite, seed=seed, n=n)
    study = outcome.study
    groups = sum(item.is_group for item in outcome.form.items)
    said = {
        "created": "created",
        "replaced": "replaced the unanswered study in",
        "unchanged": "already initialised (unchanged):",
    }[outcome.action]
    _print(
        f"study {study.study_id} {said} {out}: {len(study.item_ids)} items ({groups} group) "
        f"from {study.suite_name} (template {study.template_version}, seed {study.seed}). "
        f"Raters see form.json only; key.json holds the answers. Collect answers with: "
        f"empathybench ui --annotations {out}"
    )


def _results(
    study_dir: StudyDirArgument,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Folder for the results (default: STUDY_DIR/results)."),
    ] = None,
    min_agreement: Annotated[
        float, typer.Option(help="Flag items whose agreement with the key is below this share.")
    ] = 0.8,
    force: Annotated[
        bool, typer.Option("--force", help="Write into an output folder that holds other files.")
    ] = False,
) -> None:
    """Per-item agreement with the key, Fleiss' kappa between raters, flagged items."""
    check_directory_target("out", out)
    if out is not None:
        from empathybench.runtime.output_guard import check_output_directory

        check_output_directory(
            out, kind="set of annotation results", markers=("results.json",), force=force
        )
    check_number("min_agreement", min_agreement, minimum=0, maximum=1)
    from empathybench.annotation.agreement import item_agreement
    from empathybench.annotation.report import kappa_text, share_text, write_report

    report = item_agreement(study_dir, min_agreement=min_agreement)
    table = Table(
        title=f"study {report.study_id}: {report.answers} answers, {report.raters} raters, "
        f"{report.answered_items} of {report.study_items} items",
        caption=f"share of raters agreeing with the key; flagged: under "
        f"{share_text(report.min_agreement)} on emotion, help or who (2+ raters)",
    )
    columns: list[tuple[str, JustifyMethod]] = [
        ("item", "left"),
        ("kind", "left"),
        ("raters", "right"),
        ("emotion", "right"),
        ("help", "right"),
        ("who", "right"),
        ("majority", "left"),
        ("status", "left"),
    ]
    for column, justify in columns:
        table.add_column(column, justify=justify, no_wrap=column in ("item", "kind"))
    for item in report.items:
        majority = f"{item.emotion_majority or '–'} / {item.help_majority or '–'}"
        if item.who_key is not None:
            majority += f" / {item.who_majority or '–'}"
        table.add_row(  # Text: ids and names from a suite file are not rich markup
            Text(item.item_id),
            item.kind,
            str(item.raters),
            share_text(item.emotion_agreement),
            share_text(item.help_agreement),
            share_text(item.who_agreement),
            Text(majority),
            item.status,
            style="red" if item.status == "flagged" else None,
        )
    console.print(table)
    _print(f"Fleiss' kappa, emotion: {kappa_text(report.kappa_emotion)}")
    _print(f"Fleiss' kappa, help: {kappa_text(report.kappa_help)}")
    raters = ", ".join(
        f"{rater.rater_id} {share_text(rater.emotion_accuracy)}/{share_text(rater.help_accuracy)}"
        for rater in report.rater_accuracy
    )
    _print(f"rater accuracy (emotion/help): {raters}")
    _print(
        f"flagged: {len(report.flagged)} item(s) under {share_text(report.min_agreement)}; "
        f"too few raters: {len(report.too_few_raters)}"
    )
    directory = out if out is not None else study_dir / "results"
    paths = write_report(directory, report)
    _print(f"wrote {', '.join(path.name for path in paths)} to {directory}")


def _export(study_dir: StudyDirArgument, csv_path: CsvOption, force: ForceOption = False) -> None:
    """Write every answer of the study to a CSV file (spreadsheet-safe)."""
    check_file_target("csv_path", csv_path)
    from empathybench.annotation.csv_io import EXPORT_COLUMNS
    from empathybench.runtime.output_guard import check_output_file, csv_with_header

    # an export replaces only an earlier export of its kind (or an empty file)
    same = csv_with_header(EXPORT_COLUMNS)
    check_output_file(csv_path, kind="CSV export of answers", same_kind=same, force=force)
    from empathybench.annotation.csv_io import export_answers_csv
    from empathybench.annotation.session import AnnotationSession

    with AnnotationSession.open(study_dir) as session:
        answers = session.store.answers(session.study_id)
    export_answers_csv(answers, csv_path)
    _print(f"wrote {len(answers)} answers to {csv_path}")


def _import(study_dir: StudyDirArgument, csv_path: CsvOption) -> None:
    """Add answers from a CSV (an export, or answers collected offline); exit 1 if rows were
    refused."""
    check_existing_file("csv_path", csv_path)
    from empathybench.annotation.csv_io import import_answers_csv
    from empathybench.annotation.session import AnnotationSession

    with AnnotationSession.open(study_dir) as session:
        report = import_answers_csv(csv_path, session)
    _print(f"added {report.added}, duplicates {report.duplicates}, rejected {len(report.rejected)}")
    for problem in report.rejected:
        err_console.print(f"rejected {problem}", highlight=False, markup=False, soft_wrap=True)
    if report.rejected:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    annotate_app.command("init")(_init)
    annotate_app.command("results")(_results)
    annotate_app.command("export")(_export)
    annotate_app.command("import")(_import)
    app.add_typer(annotate_app, name="annotate")
