"""The therapy report's files: the results table and the answer-shape table (markdown and
CSV), ``therapy.json``, and the figures (``therapy.report_figures``)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import matplotlib

from empathybench.jsonl import atomic_write_text, pretty_json
from empathybench.judging.offline_judge import judge_label
from empathybench.report.figures import FIGURE_STYLE, FigureSet
from empathybench.report.tables import format_interval, markdown_table
from empathybench.therapy.report import MEASURES, TITLES, TherapyReport
from empathybench.therapy.report_figures import bars_figure, radar_figure
from empathybench.therapy.verdicts import COMPONENTS


def therapy_table_rows(report: TherapyReport) -> tuple[list[str], list[list[str]]]:
    header = [
        "source",
        "answers",
        *(TITLES[m] for m in MEASURES),
        "n (questions)",
        "unscored",
        "empathy − human",
    ]
    rows = []
    for summary in report.sources:
        empathy = summary.measure("empathy").estimate
        comparison = summary.versus_human
        versus = "–"
        if comparison is not None and comparison.difference.mean is not None:
            versus = (
                f"{format_interval(comparison.difference, 2)} (p={comparison.p_value:.3f}, "
                f"{comparison.difference.n} q)"
            )
        rows.append(
            [
                summary.source,
                str(summary.answers),
                *(format_interval(summary.measure(m).estimate, 2) for m in MEASURES),
                f"{empathy.n} ({empathy.items})",
                str(sum(summary.measure(m).unscored for m in COMPONENTS)),
                versus,
            ]
        )
    return header, rows


def text_shape_rows(report: TherapyReport) -> tuple[list[str], list[list[str]]]:
    header = [
        "source",
        "words per answer",
        "repeated trigrams (within an answer)",
        "distinct-2",
        "no reply (1 by rule)",
        "degenerate loops (flagged)",
    ]
    rows = []
    for summary in report.sources:
        if summary.text is None:
            continue
        shape = summary.text
        distinct = "–" if shape.distinct_2 is None else f"{shape.distinct_2:.3f}"
        rows.append(
            [
                summary.source,
                format_interval(shape.words, 0),
                format_interval(shape.repeated_trigrams, 3),
                distinct,
                str(summary.no_reply),
                str(summary.degenerate),
            ]
        )
    return header, rows


def therapy_markdown(report: TherapyReport) -> str:
    header, rows = therapy_table_rows(report)
    shape_header, shape_rows = text_shape_rows(report)
    judges = ", ".join(judge_label(j) for j in report.judges)
    scorers = ""
    if len(report.scored_by) == 1:
        scorers = f"Offline scores by {report.scored_by[0]}. "
    elif report.scored_by:
        scorers = (
            f"**Offline scores come from {len(report.scored_by)} scorer set-ups "
            f"({'; '.join(report.scored_by)}): they are not one measurement.** "
        )
    return (
        f"# Therapy track: {report.questions}\n\n"
        f"Judges: {judges}; rubric {', '.join(report.rubric_versions)}. {scorers}"
        "Scores 1 (absent) to "
        f"3 (strong), mean [95% bootstrap CI over questions, seed {report.seed}]. "
        "'empathy − human' is the paired difference of the empathy mean on the questions "
        "both answered.\n\n"
        + markdown_table(header, rows)
        + "\n\n## Answer length and repetition\n\nNot empathy measures: context for the scores "
        "above (a looping answer can still sound warm to a scorer). An empty, placeholder or "
        "punctuation-only answer is scored 1 on every component by rule, before any judge; a "
        "looping answer is flagged and counted, not scored down.\n\n"
        + markdown_table(shape_header, shape_rows)
        + "\n"
    )


def therapy_csv(report: TherapyReport) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header = ["source", "measure", "mean", "ci_low", "ci_high", "n", "questions", "unscored"]
    writer.writerow([*header, "no_reply", "degenerate"])  # per source, on each of its rows
    for summary in report.sources:
        for m in summary.measures:
            e = m.estimate
            row = [summary.source, m.measure, e.mean, e.low, e.high, e.n, e.items, m.unscored]
            writer.writerow([*row, summary.no_reply, summary.degenerate])
    return buffer.getvalue()


def write_therapy_report(report: TherapyReport, output: Path) -> tuple[list[Path], FigureSet]:
    output.mkdir(parents=True, exist_ok=True)
    files = {
        "therapy.json": pretty_json(report),
        "therapy.md": therapy_markdown(report),
        "therapy.csv": therapy_csv(report),
    }
    written = []
    for name, text in files.items():
        atomic_write_text(output / name, text)
        written.append(output / name)
    figures = FigureSet()
    with matplotlib.rc_context(FIGURE_STYLE):  # type: ignore[arg-type]
        radar_figure(report, output / "figures", figures)
        bars_figure(report, output / "figures", figures)
    written += [path for paths in figures.files.values() for path in paths.values()]
    return written, figures
