"""``empathybench import-results``: the original tester's results as a run folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from empathybench.cli.console import console

DEFAULT_IMPORT_DIR = Path("runs")


def register(app: typer.Typer) -> None:
    @app.command("import-results")
    def import_results_command(
        results: Annotated[
            Path,
            typer.Argument(
                help="The original tester's baseline_results_<model>_eval_<judge>.json."
            ),
        ],
        run_dir: Annotated[
            Path | None,
            typer.Option(help="New run directory. Default: runs/original__<model>__<judge>."),
        ] = None,
        suite: Annotated[
            Path | None,
            typer.Option(
                help="The original item file the results were made on (default: rebuilt from "
                "the results, with the original generator's system prompt)."
            ),
        ] = None,
        model: Annotated[
            str | None, typer.Option(help="The tested model (default: from the file name).")
        ] = None,
        judge: Annotated[
            str | None, typer.Option(help="The judge that scored it (default: from the file name).")
        ] = None,
    ) -> None:
        """Import the original benchmark's results: responses + the original judge's scores,
        so the same responses can be judged again with `empathybench judge`."""
        from empathybench.analysis.summary import build_run_summary
        from empathybench.cli.summary_view import print_summary
        from empathybench.original.results import import_results, names_from_file
        from empathybench.runtime.run_store import judge_slug

        if run_dir is None:
            file_model, file_judge = names_from_file(results)
            tested = model or file_model or results.stem
            name = f"original__{tested}__{judge or file_judge or 'unjudged'}"
            run_dir = DEFAULT_IMPORT_DIR / judge_slug(name)
        imported = import_results(results, run_dir, suite_path=suite, model=model, judge=judge)
        console.print(
            f"imported {imported.responses} response(s) of {imported.model} on "
            f"{imported.items} original item(s) → {imported.run_dir}"
            + (f"; verdicts of {imported.judge}" if imported.judge else "; no scores in the file"),
            highlight=False,
        )
        if imported.published:
            table = Table(title="as the original tester computes it (every item, all six)")
            table.add_column("dimension")
            table.add_column("mean", justify="right")
            for dimension, mean in imported.published.items():
                table.add_row(dimension, f"{mean:.3f}")
            console.print(table)
            print_summary(build_run_summary(imported.run_dir))
        console.print(
            f"judge the same responses again: empathybench judge {imported.run_dir} --judge "
            "PROVIDER/MODEL",
            highlight=False,
        )
