"""``empathybench export hf``: suites and runs as Hugging Face dataset folders."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from empathybench.cli.console import console


def register(app: typer.Typer) -> None:
    export_app = typer.Typer(help="Export suites and runs to other tools' formats.")
    app.add_typer(export_app, name="export")

    @export_app.command("hf")
    def export_hf(
        source: Annotated[
            str, typer.Argument(help="A bundled suite's name, a suite file, or a run directory.")
        ],
        out: Annotated[Path, typer.Option("-o", "--out", help="New folder to write.")],
    ) -> None:
        """Write parquet files and a dataset card that datasets.load_dataset(DIR) loads."""
        from empathybench.export.hf import export_run, export_suite
        from empathybench.runtime.run_data import load_run_data
        from empathybench.runtime.run_store import RunStore
        from empathybench.scenarios.suites import load_suite

        path = Path(source)
        if path.is_dir() and RunStore(path).exists():
            store = RunStore(path)
            judges = [d.judge for d in store.read_manifest().judges]
            result = export_run(load_run_data(path, judges=judges), out)
        else:
            result = export_suite(load_suite(source), out)
        rows = ", ".join(f"{name} {n}" for name, n in result.rows.items())
        console.print(f"wrote {result.directory} ({rows} rows)", highlight=False)
