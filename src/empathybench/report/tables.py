"""The seed-style results table and its companions, as Markdown and CSV.

One row per run (model): each of the six dimensions and the overall as ``mean [low, high]``
(95% bootstrap CI), then counts of what was scored, n/a, unscored and unparsed, of outputs
with no reply (text dimensions 0 by rule) and of replies flagged as degenerate loops. A text
dimension of a run without a judge says "needs a judge"; an offline judge is always named
"offline (approximate)".
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass

from empathybench.analysis.secondary_metrics import EMPATH_CATEGORIES, SecondaryMetrics
from empathybench.analysis.summary import (
    DimensionSummary,
    Interval,
    RunSummary,
    origin_note,
)
from empathybench.judging.offline_judge import judge_label
from empathybench.judging.rubric import RUBRIC
from empathybench.records import DIMENSIONS, SCENARIO_KINDS
from empathybench.runtime.run_data import RunData

NEEDS_A_JUDGE = "needs a judge"
INTERVAL_COLUMNS = ("mean", "ci_low", "ci_high", "n", "items")


@dataclass(frozen=True)
class ReportRun:
    """One run as a report shows it."""

    label: str
    data: RunData
    summary: RunSummary
    secondary: SecondaryMetrics


def dimension_title(dimension: str) -> str:
    return RUBRIC[dimension].title  # type: ignore[index]


def judges_text(judges: Sequence[str]) -> str:
    return ", ".join(judge_label(judge) for judge in judges) if judges else "none"


def format_interval(interval: Interval | None, digits: int = 3) -> str:
    if interval is None or interval.mean is None:
        return "–"
    if interval.low is None or interval.high is None:
        return f"{interval.mean:.{digits}f}"
    return f"{interval.mean:.{digits}f} [{interval.low:.{digits}f}, {interval.high:.{digits}f}]"


def format_number(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def dimension_cell(dimension: DimensionSummary) -> str:
    return format_interval(dimension.estimate) if dimension.judged else NEEDS_A_JUDGE


def counts_cell(dimension: DimensionSummary) -> str:
    """``scored / n/a / unscored``, plus unparsed answers where there were any."""
    if not dimension.judged:
        return f"– / {dimension.na} / –"
    text = f"{dimension.scored} / {dimension.na} / {dimension.unscored}"
    return text + (f" ({dimension.parse_failures} unparsed)" if dimension.parse_failures else "")


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |"

    divider = "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"
    return "\n".join([line(header), divider, *(line(row) for row in rows)])


def headline_header() -> list[str]:
    return [
        "model",
        "judges",
        *(dimension_title(d) for d in DIMENSIONS),
        "Overall (item mean)",
        "seed Overall",
        "responses",
    ]


def headline_rows(runs: Sequence[ReportRun]) -> list[list[str]]:
    rows = []
    for run in runs:
        summary = run.summary
        by_name = {d.dimension: d for d in summary.dimensions}
        rows.append(
            [
                run.label,
                judges_text(summary.judges),
                *(dimension_cell(by_name[d]) for d in DIMENSIONS),
                format_interval(summary.overall),
                format_number(summary.seed_overall),
                str(summary.responses),
            ]
        )
    return rows


def counts_header() -> list[str]:
    return [
        "model",
        *(dimension_title(d) for d in DIMENSIONS),
        "failed responses",
        "no reply (text 0 by rule)",
        "degenerate loops (flagged)",
    ]


def no_reply_cell(summary: RunSummary) -> str:
    """``n`` plus what those outputs held, e.g. ``55 (options_only 52, placeholder 3)``."""
    if not summary.no_reply:
        return "0"
    kinds = ", ".join(f"{kind} {count}" for kind, count in summary.no_reply_kinds.items())
    return f"{summary.no_reply} ({kinds})"


def counts_rows(runs: Sequence[ReportRun]) -> list[list[str]]:
    rows = []
    for run in runs:
        by_name = {d.dimension: d for d in run.summary.dimensions}
        rows.append(
            [
                run.label,
                *(counts_cell(by_name[d]) for d in DIMENSIONS),
                str(run.summary.failed_responses),
                no_reply_cell(run.summary),
                str(run.summary.degenerate),
            ]
        )
    return rows


def kind_header(runs: Sequence[ReportRun]) -> list[str]:
    kinds = [k for k in SCENARIO_KINDS if any(_kind(run, k) for run in runs)]
    return ["model", *kinds]


def _kind(run: ReportRun, kind: str) -> Interval | None:
    for breakdown in run.summary.per_kind:
        if breakdown.kind == kind:
            return breakdown.overall
    return None


def _kind_cell(interval: Interval | None) -> str:
    return "–" if interval is None else f"{format_interval(interval)} (n={interval.items})"


def kind_rows(runs: Sequence[ReportRun]) -> list[list[str]]:
    kinds = kind_header(runs)[1:]
    return [[run.label, *(_kind_cell(_kind(run, k)) for k in kinds)] for run in runs]


def secondary_header() -> list[str]:
    return [
        "model",
        "replies",
        "sentiment (VADER compound)",
        "words per reply",
        "distinct-1",
        "distinct-2",
        "repeated openings",
        *(f"Empath {c} (% of words)" for c in EMPATH_CATEGORIES),
    ]


def secondary_rows(runs: Sequence[ReportRun]) -> list[list[str]]:
    rows = []
    for run in runs:
        metrics = run.secondary
        formulaic = metrics.formulaicity
        rows.append(
            [
                run.label,
                str(metrics.replies),
                format_interval(metrics.sentiment.compound),
                format_interval(metrics.words, 1),
                format_number(formulaic.distinct_1),
                format_number(formulaic.distinct_2),
                format_number(formulaic.repeated_opening_share),
                *(_percent(metrics.empath[c]) for c in EMPATH_CATEGORIES),
            ]
        )
    return rows


def _percent(interval: Interval) -> str:
    scaled = interval.model_copy(
        update={
            key: None if value is None else value * 100
            for key, value in (
                ("mean", interval.mean),
                ("low", interval.low),
                ("high", interval.high),
            )
        }
    )
    return format_interval(scaled, 2)


def markdown_report_tables(runs: Sequence[ReportRun]) -> str:
    """Every table of a report, as one Markdown document."""
    parts = [
        "# empathybench results",
        "",
        "Mean [95% bootstrap CI over items]; n/a dimensions are excluded, never scored 0 or 1.",
        "",
        *[line for note in origin_note(run.summary for run in runs) for line in (note, "")],
        markdown_table(headline_header(), headline_rows(runs)),
        "",
        "## Counts: scored / n/a / unscored",
        "",
        "An output with no reply to the person (only the options, only answer lines, an empty "
        "or placeholder REPLY) scores 0 on the text dimensions by rule, before any judge; a "
        "reply that loops is flagged and counted, not scored down.",
        "",
        markdown_table(counts_header(), counts_rows(runs)),
        "",
        "## Overall by scenario kind",
        "",
        markdown_table(kind_header(runs), kind_rows(runs)),
        "",
        "## Secondary automated metrics (proxies, not scores)",
        "",
        markdown_table(secondary_header(), secondary_rows(runs)),
        "",
    ]
    return "\n".join(parts)


def _csv_interval(interval: Interval) -> list[object]:
    return [interval.mean, interval.low, interval.high, interval.n, interval.items]


def csv_headline(runs: Sequence[ReportRun]) -> str:
    """One row per run; every number unformatted (empty when undefined)."""
    header: list[str] = ["model", "run_id", "run_dir", "strategy", "judges"]
    for dimension in DIMENSIONS:
        header += [
            f"{dimension}_{column}"
            for column in (*INTERVAL_COLUMNS, "judged", "scored", "na", "unscored", "unparsed")
        ]
    header += [f"overall_{column}" for column in INTERVAL_COLUMNS]
    header += ["seed_overall", "responses", "failed_responses", "no_reply", "degenerate"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for run in runs:
        summary = run.summary
        by_name = {d.dimension: d for d in summary.dimensions}
        row: list[object] = [
            run.label,
            summary.run_id,
            str(run.data.directory),
            run.data.manifest.strategy,
            "; ".join(judge_label(j) for j in summary.judges),
        ]
        for dimension in DIMENSIONS:
            d = by_name[dimension]
            row += _csv_interval(d.estimate)
            row += [d.judged, d.scored, d.na, d.unscored, d.parse_failures]
        row += _csv_interval(summary.overall)
        row += [summary.seed_overall, summary.responses, summary.failed_responses]
        row += [summary.no_reply, summary.degenerate]
        writer.writerow(["" if value is None else value for value in row])
    return buffer.getvalue()
