"""The therapy report's figures: the seed's radar of C/E/B per source, and the same means
as bars with their 95% CIs."""

from __future__ import annotations

import math
from pathlib import Path

from matplotlib.projections.polar import PolarAxes

from empathybench.report.figures import FigureSet, error_bars, new_figure, save_figure
from empathybench.therapy.report import MEASURES, TITLES, TherapyReport
from empathybench.therapy.verdicts import COMPONENTS


def radar_figure(report: TherapyReport, directory: Path, figures: FigureSet) -> None:
    """The seed's Figure 2: one polygon per source over the three components (1–3)."""
    angles = [2 * math.pi * i / len(COMPONENTS) for i in range(len(COMPONENTS))]
    closed = [*angles, angles[0]]
    figure = new_figure(5.5, 5.0)
    axes = figure.add_subplot(projection="polar")
    assert isinstance(axes, PolarAxes)
    drawn = 0
    for summary in report.sources:
        means = [summary.measure(name).estimate.mean for name in COMPONENTS]
        if any(mean is None for mean in means):
            continue
        values = [float(mean) for mean in means if mean is not None]
        axes.plot(closed, [*values, values[0]], marker="o", label=summary.source)
        axes.fill(closed, [*values, values[0]], alpha=0.08)
        drawn += 1
    if not drawn:
        figures.skipped["therapy_radar"] = "no source has all three components scored"
        return
    axes.set_theta_offset(math.pi / 2)  # cognitive at the top, then clockwise
    axes.set_theta_direction(-1)
    axes.set_xticks(angles, [TITLES[name] for name in COMPONENTS])
    axes.tick_params(axis="x", pad=14)
    axes.set_ylim(1.0, 3.0)
    axes.set_yticks([1.5, 2.0, 2.5, 3.0])
    axes.set_rlabel_position(180)  # the scale runs down between the two lower axes
    axes.set_title("Empathy components by source (1 centre – 3 rim)", pad=18)
    axes.legend(fontsize=7, loc="lower right", bbox_to_anchor=(1.35, -0.12))
    save_figure(
        figure, directory, "therapy_radar", figures, "Mean C/E/B per source (seed Figure 2)."
    )


def bars_figure(report: TherapyReport, directory: Path, figures: FigureSet) -> None:
    """The same means with their 95% CIs, which the radar cannot show honestly."""
    figure = new_figure(7.5, 3.8)
    axes = figure.add_subplot()
    width = 0.8 / max(1, len(report.sources))
    for index, summary in enumerate(report.sources):
        intervals = [summary.measure(m).estimate for m in MEASURES]
        heights, errors = error_bars(intervals)
        positions = [
            g + (index - (len(report.sources) - 1) / 2) * width for g in range(len(MEASURES))
        ]
        axes.bar(
            positions, heights, width, yerr=errors, capsize=3, label=summary.source, alpha=0.85
        )
    axes.set_xticks(range(len(MEASURES)), [TITLES[m] for m in MEASURES])
    axes.set_ylim(1.0, 3.0)
    axes.set_ylabel("mean (1–3), whiskers: 95% CI")
    axes.grid(axis="y", alpha=0.3)
    axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    save_figure(
        figure, directory, "therapy_components", figures, "C/E/B and empathy per source, 95% CI."
    )
