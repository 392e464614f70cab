"""``empathybench audit``: can surface-only baselines answer a suite? (see docs/audit.md)"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from empathybench.audit.limits import DEFAULT_TRAIN_N, DEFAULT_TRAIN_SEED, MAX_TRAIN_N
from empathybench.cli.console import console, err_console
from empathybench.errors import UserError

if TYPE_CHECKING:
    from empathybench.annotation.agreement import AgreementReport
    from empathybench.audit.results import Accuracy, AuditReport

EXIT_FAILED = 1


def _cell(accuracy: Accuracy, interval: bool = True) -> str:
    """``81.0 [72.2, 87.5]`` (percent, 95% Wilson interval), or a bare whole percent."""
    if accuracy.accuracy is None:
        return "–"
    if not interval:
        return f"{100 * accuracy.accuracy:.0f}"
    text = f"{100 * accuracy.accuracy:.1f}"
    if accuracy.low is not None and accuracy.high is not None:
        text += f" [{100 * accuracy.low:.1f}, {100 * accuracy.high:.1f}]"
    return text


_STATUS_CELL = {
    "pass": "[green]pass[/]",
    "fail": "[bold red]FAIL[/]",
    "too few": "[yellow]too few items[/]",
}


def audit_tables(report: AuditReport) -> list[Table]:
    """One table per question (baselines × overall and per kind), then the summary."""
    from empathybench.audit.results import verdict

    codes = _kind_codes()
    tables = []
    for q in report.questions:
        kinds = list(q.kind_chance)
        table = Table(
            title=f"{q.question}: % correct on {q.n} items (answer from {q.candidates})",
            title_justify="left",
        )
        table.add_column("baseline", no_wrap=True)
        table.add_column("overall [95% CI]", justify="right", no_wrap=True)
        for kind in kinds:
            table.add_column(codes.get(kind, kind), justify="right")
        for baseline in q.baselines:
            table.add_row(
                baseline.name,
                _cell(baseline.overall),
                *(_cell(baseline.kinds[kind], False) for kind in kinds),
                style="bold" if baseline.name == q.best else None,
            )
        table.add_row(
            "chance",
            f"{100 * q.chance:.1f}",
            *(f"{100 * q.kind_chance[kind]:.0f}" for kind in kinds),
            style="dim",
        )
        tables.append(table)
    summary = Table(title=f"shortcut audit of {report.suite}", title_justify="left")
    for column in ("question", "chance %", "best baseline", "% [95% CI]", "limit %", "result"):
        summary.add_column(column, justify="left" if column[0] in "qb" else "right")
    for q in report.questions:
        best = next(b for b in q.baselines if b.name == q.best)
        summary.add_row(
            q.question,
            f"{100 * q.chance:.1f}",
            q.best,
            _cell(best.overall),
            f"≤ {100 * q.limit:.1f}",
            _STATUS_CELL[q.status],
        )
    summary.add_row("overall", "", "", "", "", verdict(report.status), style="bold")
    tables.append(summary)
    return tables


def _audit(
    suite: Annotated[str, typer.Argument(help="Bundled suite name or JSONL suite file.")],
    train_n: Annotated[
        int,
        typer.Option("--train-n", help=f"Training items to generate (1 to {MAX_TRAIN_N:,})."),
    ] = DEFAULT_TRAIN_N,
    train_seed: Annotated[
        int,
        typer.Option("--train-seed", help="Seed of the training set (not the suite's seed)."),
    ] = DEFAULT_TRAIN_SEED,
    output: Annotated[
        Path | None,
        typer.Option("-o", "--output", help="Folder to write audit.json and audit.md into."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as JSON instead of tables.")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Write into an output folder that holds other files.")
    ] = False,
    annotations: Annotated[
        Path | None,
        typer.Option(
            "--annotations",
            help="An annotation study of this suite (empathybench annotate): also list the "
            "items whose raters agree with the key less than 80% of the time.",
        ),
    ] = None,
) -> None:
    """Train surface-only baselines on a separate generated set; report their accuracy on
    SUITE beside chance. Exits 1 when a question fails its threshold, or has too few items
    to judge."""
    from empathybench.audit import audit_suite
    from empathybench.audit.results import AUDIT_JSON, AUDIT_MARKDOWN, audit_markdown
    from empathybench.jsonl import pretty_json, write_text_files
    from empathybench.scenarios.suites import load_suite

    if output is not None and output.exists() and not output.is_dir():
        raise UserError(f"{output}: is a file; -o/--output takes a folder")
    if output is not None:
        from empathybench.runtime.output_guard import check_output_directory

        check_output_directory(output, kind="audit", markers=(AUDIT_JSON,), force=force)
    loaded = load_suite(suite)
    agreement = _annotation_agreement(annotations, loaded.sha256) if annotations else None
    with err_console.status("auditing") as status:
        report = audit_suite(
            loaded,
            source=suite,
            train_n=train_n,
            train_seed=train_seed,
            progress=lambda step: status.update(f"auditing: {step}"),
        )
    if as_json:
        typer.echo(pretty_json(report), nl=False)
    else:
        _print_report(report)
        if agreement is not None:
            _print_flagged(agreement)
    if output is not None:
        files = {AUDIT_JSON: pretty_json(report), AUDIT_MARKDOWN: audit_markdown(report)}
        if agreement is not None:
            files[ANNOTATIONS_JSON] = pretty_json(agreement)
        paths = write_text_files(output, files)
        (err_console if as_json else console).print(
            f"wrote {', '.join(str(p) for p in paths)}", highlight=False, markup=False
        )
    if not report.passed:
        raise typer.Exit(EXIT_FAILED)


ANNOTATIONS_JSON = "annotations.json"


def _annotation_agreement(directory: Path, suite_sha256: str) -> AgreementReport:
    """Raters' agreement with the key, checked to be about the audited suite."""
    from empathybench.annotation.agreement import item_agreement

    agreement = item_agreement(directory)
    if agreement.suite_sha256 != suite_sha256:
        raise UserError(
            f"{directory}: the annotation study is of suite {agreement.suite_name} "
            f"(sha256 {agreement.suite_sha256[:12]}…), not the audited one "
            f"({suite_sha256[:12]}…)"
        )
    return agreement


def _print_flagged(agreement: AgreementReport) -> None:
    table = Table(
        title=f"items raters disagree on (agreement with the key < "
        f"{100 * agreement.min_agreement:.0f}%, {agreement.raters} raters)",
        title_justify="left",
    )
    table.add_column("item")
    table.add_column("raters", justify="right")
    table.add_column("why")
    for item in agreement.items:
        if item.status == "flagged":
            table.add_row(item.item_id, str(item.raters), "; ".join(item.reasons))
    console.print(table)
    console.print(
        f"{len(agreement.flagged)} flagged, {len(agreement.too_few_raters)} with fewer than two "
        f"raters; Fleiss' kappa emotion {_kappa(agreement.kappa_emotion.kappa)}, "
        f"help {_kappa(agreement.kappa_help.kappa)}",
        highlight=False,
    )


def _kappa(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _print_report(report: AuditReport) -> None:
    from empathybench.audit.results import too_few_note, verdict

    for table in audit_tables(report):
        console.print(table)
    training = report.training
    console.print(
        "kinds: "
        + ", ".join(f"{code}={kind}" for kind, code in _kind_codes().items())
        + f"; trained on {training.used:,} items generated with seed {training.seed} "
        f"({training.dropped} dropped: the suite holds them)",
        highlight=False,
    )
    for question, reason in report.not_audited.items():
        console.print(f"{question}: not audited ({reason})", highlight=False)
    for q in report.questions:
        console.print(f"{q.question} limit: {q.rule}", highlight=False)
        if q.status == "too few":
            console.print(too_few_note(q), highlight=False)
    console.print(f"audit: {verdict(report.status)}", highlight=False)


def _kind_codes() -> dict[str, str]:
    from empathybench.scenarios.generator import KIND_CODES

    return {str(kind): code for kind, code in KIND_CODES.items()}


def register(app: typer.Typer) -> None:
    app.command("audit")(_audit)
