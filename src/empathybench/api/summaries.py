"""Summaries and reports from Python."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from empathybench.analysis.summary import RunSummary
    from empathybench.api.paths import RunLike
    from empathybench.report.run_report import ReportFiles


def summarize(
    run: RunLike, *, seed: int = 0, judges: Sequence[str] | None = None, write: bool = True
) -> RunSummary:
    """Per-dimension means with seeded bootstrap 95% CIs, the overall and every count.

    ``judges``: whose verdicts to use (default: the run's LLM judges, else its offline
    judge; the two are never averaged). ``write``: also write ``summary.json`` in the run.
    """
    from empathybench.analysis.summary import build_run_summary  # numpy: only when used
    from empathybench.api.paths import run_directory

    return build_run_summary(
        run_directory(run),
        seed=seed,
        write=write,
        judges=list(judges) if judges is not None else None,
    )


def report(
    runs: Sequence[RunLike], *, out: str | os.PathLike[str] | None = None, seed: int = 0
) -> ReportFiles:
    """Write tables (Markdown, CSV), figures and ``report.html`` for ``runs`` (run
    directories or folders of runs) into ``out`` (default for one run: its directory)."""
    from empathybench.report.run_report import write_report  # matplotlib: only when used

    return write_report(
        [Path(os.fspath(r)) for r in runs],
        Path(os.fspath(out)) if out is not None else None,
        seed=seed,
    )
