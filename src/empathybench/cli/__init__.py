"""The ``empathybench`` command line: thin wrappers that parse, call the API and print.

Expected mistakes (``UserError``) print one ``error:`` line on stderr and exit with 2;
a check that ran and found problems exits with 1.
"""

from __future__ import annotations

import sys

import typer

from empathybench.cli.annotate_commands import register as register_annotate_commands
from empathybench.cli.audit_commands import register as register_audit_commands
from empathybench.cli.console import err_console
from empathybench.cli.errors import EXIT_USER_ERROR, ReportingGroup, error_message, print_error
from empathybench.cli.export_commands import register as register_export_commands
from empathybench.cli.judge_commands import register as register_judge_commands
from empathybench.cli.original_commands import register as register_original_commands
from empathybench.cli.probe_commands import register as register_probe_commands
from empathybench.cli.report_commands import register as register_report_commands
from empathybench.cli.run_commands import register as register_run_commands
from empathybench.cli.scenario_commands import register as register_scenario_commands
from empathybench.cli.scorer_commands import register as register_scorer_commands
from empathybench.cli.survey_commands import register as register_survey_commands
from empathybench.cli.therapy_commands import register as register_therapy_commands
from empathybench.cli.ui_commands import register as register_ui_commands
from empathybench.errors import UserError

app = typer.Typer(
    name="empathybench",
    cls=ReportingGroup,
    help="Measure, explain and steer the empathy of large language models.",
    no_args_is_help=False,
    add_completion=False,
    pretty_exceptions_enable=False,
)
register_scenario_commands(app)


def _version(value: bool) -> None:
    if value:
        from empathybench import __version__

        typer.echo(f"empathybench {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Measure, explain and steer the empathy of large language models."""


register_run_commands(app)
register_judge_commands(app)
register_report_commands(app)
register_scorer_commands(app)
register_ui_commands(app)
register_probe_commands(app)
register_therapy_commands(app)
register_survey_commands(app)
register_audit_commands(app)
register_annotate_commands(app)
register_original_commands(app)
register_export_commands(app)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the console script."""
    try:
        app(args=argv, standalone_mode=True)
    except UserError as error:
        print_error(error_message(error))
        sys.exit(EXIT_USER_ERROR)
    except KeyboardInterrupt:
        err_console.print("interrupted")
        sys.exit(130)
