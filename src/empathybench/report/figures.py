"""Figures with matplotlib (Agg, no display): the seed's bar chart done honestly, and more.

- ``dimensions``: bars per dimension and the overall, one per model, with 95% CI whiskers
  and n under each bar, on a fixed 0–1 axis; a text dimension without a judge is marked
  "needs a judge" instead of being drawn as 0;
- ``radar_<model>``: one radar per model over the dimensions it has scores for, with the CI
  as a band (skipped, with the reason, when fewer than 3 dimensions are scored);
- ``kinds``: the overall per scenario kind, one bar per model, with CIs and n.

Each figure is written as PNG and SVG. Figures are drawn on the Agg canvas directly, without
pyplot, so no global backend, display or figure registry is involved.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.projections.polar import PolarAxes

from empathybench.analysis.summary import Interval
from empathybench.records import DIMENSIONS, SCENARIO_KINDS
from empathybench.report.tables import ReportRun, dimension_title

FIGURE_FORMATS = ("png", "svg")
FIGURES_DIR = "figures"
FIGURE_STYLE: dict[str, Any] = {
    "svg.hashsalt": "empathybench",
    "svg.fonttype": "path",
    "font.size": 9,
}


@dataclass
class FigureSet:
    """The figures written: name → {format: path}, and figures skipped with the reason."""

    files: dict[str, dict[str, Path]] = field(default_factory=dict)
    captions: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "run"


def new_figure(width: float, height: float) -> Figure:
    figure = Figure(figsize=(width, height))
    FigureCanvasAgg(figure)
    return figure


def save_figure(
    figure: Figure, directory: Path, name: str, figures: FigureSet, caption: str
) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    paths = {}
    for fmt in FIGURE_FORMATS:
        path = directory / f"{name}.{fmt}"
        metadata = {"Date": None} if fmt == "svg" else {"Software": None}
        figure.savefig(path, format=fmt, dpi=150, bbox_inches="tight", metadata=metadata)
        paths[fmt] = path
    figures.files[name] = paths
    figures.captions[name] = caption


def error_bars(intervals: Sequence[Interval | None]) -> tuple[list[float], list[list[float]]]:
    heights, below, above = [], [], []
    for interval in intervals:
        mean = interval.mean if interval is not None and interval.mean is not None else math.nan
        heights.append(mean)
        if interval is None or interval.low is None or interval.high is None:
            below.append(0.0)
            above.append(0.0)
        else:
            below.append(max(0.0, mean - interval.low))
            above.append(max(0.0, interval.high - mean))
    return heights, [below, above]


def _n_text(interval: Interval | None) -> str:
    if interval is None or not interval.n:
        return "no data"
    return (
        f"n={interval.n}"
        if interval.n == interval.items
        else f"n={interval.n}, {interval.items} items"
    )


def grouped_bars(
    axes: Axes,
    groups: Sequence[str],
    series: Sequence[tuple[str, Sequence[Interval | None], Sequence[str | None]]],
) -> None:
    """Bars per group, one per series; ``notes`` replace a bar with text (e.g. no judge)."""
    width = 0.8 / max(1, len(series))
    for index, (label, intervals, notes) in enumerate(series):
        positions = [g + (index - (len(series) - 1) / 2) * width for g in range(len(groups))]
        heights, errors = error_bars(intervals)
        axes.bar(positions, heights, width, label=label, yerr=errors, capsize=3, alpha=0.85)
        for x, interval, note in zip(positions, intervals, notes, strict=True):
            text = note or _n_text(interval)
            axes.text(x, 0.01, text, rotation=90, ha="center", va="bottom", fontsize=6)
    axes.set_xticks(range(len(groups)), groups, rotation=20, ha="right")
    axes.set_ylim(0.0, 1.0)
    axes.set_ylabel("mean score (0–1), whiskers: 95% CI")
    axes.grid(axis="y", alpha=0.3)
    axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))


def dimension_bar_chart(runs: Sequence[ReportRun], directory: Path, figures: FigureSet) -> None:
    groups = [dimension_title(d) for d in DIMENSIONS] + ["Overall (item mean)"]
    series = []
    for run in runs:
        by_name = {d.dimension: d for d in run.summary.dimensions}
        intervals: list[Interval | None] = [by_name[d].estimate for d in DIMENSIONS]
        notes: list[str | None] = [
            None if by_name[d].judged else "needs a judge" for d in DIMENSIONS
        ]
        series.append((run.label, [*intervals, run.summary.overall], [*notes, None]))
    figure = new_figure(9.0, 4.2)
    axes = figure.add_subplot()
    grouped_bars(axes, groups, series)
    axes.set_title("Scores per dimension")
    save_figure(figure, directory, "dimensions", figures, "Mean per dimension with 95% CI and n.")


def kind_bar_chart(runs: Sequence[ReportRun], directory: Path, figures: FigureSet) -> None:
    kinds = [
        k for k in SCENARIO_KINDS if any(b.kind == k for r in runs for b in r.summary.per_kind)
    ]
    if not kinds:
        figures.skipped["kinds"] = "no scored items"
        return
    series = []
    for run in runs:
        by_kind = {b.kind: b.overall for b in run.summary.per_kind}
        series.append((run.label, [by_kind.get(k) for k in kinds], [None] * len(kinds)))
    figure = new_figure(8.0, 4.0)
    axes = figure.add_subplot()
    grouped_bars(axes, [k.replace("_", " ") for k in kinds], series)
    axes.set_title("Overall (item mean) by scenario kind")
    save_figure(figure, directory, "kinds", figures, "Overall per scenario kind with 95% CI and n.")


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


def radar_chart(run: ReportRun, directory: Path, figures: FigureSet) -> None:
    name = f"radar_{slug(run.label)}"
    scored = [d for d in run.summary.dimensions if d.judged and d.estimate.mean is not None]
    if len(scored) < 3:
        figures.skipped[name] = (
            f"{run.label}: a radar needs 3+ scored dimensions, this run has {len(scored)}"
        )
        return
    angles = [2 * math.pi * i / len(scored) for i in range(len(scored))]
    closed = [*angles, angles[0]]

    def ring(values: list[float]) -> list[float]:
        return [*values, values[0]]

    means = [d.estimate.mean or 0.0 for d in scored]
    lows = [_or(d.estimate.low, m) for d, m in zip(scored, means, strict=True)]
    highs = [_or(d.estimate.high, m) for d, m in zip(scored, means, strict=True)]
    figure = new_figure(5.0, 5.0)
    axes = figure.add_subplot(projection="polar")
    assert isinstance(axes, PolarAxes)
    axes.fill_between(closed, ring(lows), ring(highs), alpha=0.25, label="95% CI")
    axes.plot(closed, ring(means), marker="o", label="mean")
    axes.set_xticks(angles, [f"{dimension_title(d.dimension)}\nn={d.estimate.n}" for d in scored])
    axes.set_ylim(0.0, 1.0)
    axes.set_yticks([0.25, 0.5, 0.75, 1.0])
    axes.tick_params(axis="x", labelsize=7)
    axes.set_title(run.label, pad=18)
    axes.legend(fontsize=7, loc="lower right", bbox_to_anchor=(1.25, -0.12))
    unscored = len(DIMENSIONS) - len(scored)
    caption = f"{run.label}: mean per dimension (0 at the centre, 1 at the rim), CI band."
    if unscored:
        caption += f" {unscored} dimension(s) without scores are left off."
    save_figure(figure, directory, name, figures, caption)


def write_figures(runs: Sequence[ReportRun], directory: Path) -> FigureSet:
    """Every figure of a report into ``directory`` (PNG and SVG)."""
    figures = FigureSet()
    with matplotlib.rc_context(FIGURE_STYLE):  # type: ignore[arg-type]
        dimension_bar_chart(runs, directory, figures)
        for run in runs:
            radar_chart(run, directory, figures)
        kind_bar_chart(runs, directory, figures)
    return figures
