"""``empathybench ui``: the web app (score a text, browse runs, rate a survey, annotate items)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from empathybench.cli.console import err_console
from empathybench.ui.settings import (
    DEFAULT_FLAG_FILE,
    DEFAULT_HOST,
    DEFAULT_PORT,
    UiSettings,
    check_settings,
    exposure_warning,
    require_gradio,
)


def _ui(
    host: Annotated[
        str, typer.Option(help="Address to listen on (default: this machine only).")
    ] = DEFAULT_HOST,
    port: Annotated[int, typer.Option(help="Port to listen on.")] = DEFAULT_PORT,
    runs: Annotated[
        Path | None, typer.Option(help="Folder whose runs the Runs tab lists (2 levels deep).")
    ] = None,
    survey: Annotated[
        Path | None,
        typer.Option(help="Survey folder (from `empathybench survey build`) for raters."),
    ] = None,
    annotations: Annotated[
        Path | None,
        typer.Option(help="Annotation study folder (from `empathybench annotate init`)."),
    ] = None,
    flag_file: Annotated[
        Path, typer.Option(help="CSV file that Flag appends scored texts to.")
    ] = DEFAULT_FLAG_FILE,
    scorer: Annotated[
        Path | None,
        typer.Option(help="A trained empathy head folder (default: the bundled scorer)."),
    ] = None,
) -> None:
    """Start the web app: score texts (and flag them), browse runs, rate a blind survey,
    annotate benchmark items."""
    settings = UiSettings(
        host=host,
        port=port,
        runs_dir=runs,
        survey_dir=survey,
        annotation_dir=annotations,
        flag_file=flag_file,
        scorer_head=scorer,
    )
    check_settings(settings)
    require_gradio()
    warning = exposure_warning(host, "--host 127.0.0.1")
    if warning is not None:
        err_console.print(warning, style="bold yellow", highlight=False, markup=False)

    from empathybench.ui.app import build_app, launch_app

    launch_app(build_app(settings), settings)


def register(app: typer.Typer) -> None:
    app.command("ui")(_ui)
