"""``empathybench report``: every report file for one run or several, in one folder.

Writes ``summary.json`` (for one run into its own directory, the run's summary; for a report
folder of several runs, one entry per run — each run directory also gets its own),
``results.md`` and ``results.csv`` (the seed-style table and its companions),
``secondary_metrics.json``, ``figures/*.png|svg`` and ``report.html``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from empathybench.analysis.run_sets import UnreadableRun, load_runs, run_labels
from empathybench.analysis.secondary_metrics import (
    SECONDARY_FILE,
    SecondaryMetricsFile,
    secondary_metrics,
)
from empathybench.analysis.summary import (
    SUMMARY_FILE,
    RunSummary,
    summarize_run_data,
    write_summary,
)
from empathybench.errors import ParameterError, UserError
from empathybench.jsonl import atomic_write_text, pretty_json
from empathybench.records import Record
from empathybench.report.figures import FIGURES_DIR, FigureSet, write_figures
from empathybench.report.html_report import REPORT_FILE, render_report_html
from empathybench.report.tables import ReportRun, csv_headline, markdown_report_tables

REPORT_SUMMARY_SCHEMA = 1
MARKDOWN_FILE = "results.md"
CSV_FILE = "results.csv"


class ReportSummaryEntry(Record):
    label: str
    run_dir: str
    summary: RunSummary


class ReportSummary(Record):
    """``summary.json`` of a report folder that is not a run directory."""

    schema_version: int = REPORT_SUMMARY_SCHEMA
    runs: list[ReportSummaryEntry]


@dataclass
class ReportFiles:
    output: Path
    runs: list[ReportRun]
    files: list[Path] = field(default_factory=list)
    figures: FigureSet = field(default_factory=FigureSet)
    unreadable: list[UnreadableRun] = field(default_factory=list)


def _write_json(path: Path, record: Record) -> Path:
    atomic_write_text(path, pretty_json(record))
    return path


def load_report_runs(
    paths: Sequence[Path], *, seed: int = 0
) -> tuple[list[ReportRun], list[UnreadableRun]]:
    """The runs in ``paths`` (run directories or folders of runs), summarised."""
    runs, unreadable = load_runs(paths)
    if not runs:
        detail = "; ".join(f"{u.directory}: {u.reason}" for u in unreadable)
        raise UserError(f"no readable runs to report ({detail})")
    report_runs = []
    for run, label in zip(runs, run_labels(runs), strict=True):
        report_runs.append(
            ReportRun(
                label=label,
                data=run,
                summary=summarize_run_data(run, seed=seed),
                secondary=secondary_metrics(run, seed=seed),
            )
        )
    return report_runs, unreadable


def write_report(paths: Sequence[Path], out: Path | None, *, seed: int = 0) -> ReportFiles:
    """Tables, figures and report.html for the runs in ``paths`` in the folder ``out``
    (default for one run: its own directory)."""
    runs, unreadable = load_report_runs(paths, seed=seed)
    if out is None:
        if len(runs) > 1:
            raise ParameterError(
                f"a report of {len(runs)} runs needs out (a folder)", parameters=["out"]
            )
        out = runs[0].data.directory
    output = out
    if output.exists() and not output.is_dir():
        raise UserError(f"{output}: exists and is not a folder")
    output.mkdir(parents=True, exist_ok=True)
    report = ReportFiles(output=output, runs=runs, unreadable=unreadable)
    for run in runs:
        write_summary(run.data.directory, run.summary)
    single_run_folder = len(runs) == 1 and output.resolve() == runs[0].data.directory.resolve()
    if single_run_folder:
        report.files.append(output / SUMMARY_FILE)
    else:
        entries = [
            ReportSummaryEntry(
                label=run.label, run_dir=str(run.data.directory), summary=run.summary
            )
            for run in runs
        ]
        report.files.append(_write_json(output / SUMMARY_FILE, ReportSummary(runs=entries)))
    atomic_write_text(output / MARKDOWN_FILE, markdown_report_tables(runs))
    atomic_write_text(output / CSV_FILE, csv_headline(runs))
    secondary = SecondaryMetricsFile(runs=[run.secondary for run in runs])
    report.files += [
        output / MARKDOWN_FILE,
        output / CSV_FILE,
        _write_json(output / SECONDARY_FILE, secondary),
    ]
    report.figures = write_figures(runs, output / FIGURES_DIR)
    report.files += [path for paths in report.figures.files.values() for path in paths.values()]
    html = render_report_html(runs, report.figures, seed=seed)
    atomic_write_text(output / REPORT_FILE, html)
    report.files.append(output / REPORT_FILE)
    return report
