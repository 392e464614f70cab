"""A leaderboard as Markdown, CSV and a self-contained HTML page (plus the JSON record)."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from empathybench.analysis.leaderboard import Leaderboard, LeaderboardEntry
from empathybench.jsonl import pretty_json, write_text_files
from empathybench.records import DIMENSIONS
from empathybench.report.html_report import template_environment
from empathybench.report.tables import (
    INTERVAL_COLUMNS,
    dimension_title,
    format_interval,
    format_number,
    markdown_table,
)
from empathybench.runtime.provenance import now_iso
from empathybench.version import __version__

LEADERBOARD_FILES = ("leaderboard.json", "leaderboard.md", "leaderboard.csv", "leaderboard.html")


@dataclass(frozen=True)
class LeaderboardTable:
    header: list[str]
    rows: list[list[str]]


def _next_cell(entry: LeaderboardEntry) -> str:
    if entry.test_note is not None:
        return entry.test_note
    if entry.difference_to_next is None:
        return ""
    text = f"{format_interval(entry.difference_to_next)}, p={format_number(entry.p_value_to_next)}"
    return ("≈ " if entry.tied_with_next else "") + text


def leaderboard_table(board: Leaderboard) -> LeaderboardTable:
    dimensions = [d for d in DIMENSIONS if any(d in e.dimensions for e in board.entries)]
    header = [
        "rank",
        "model",
        "Overall (item mean)",
        "vs next: difference [CI], p",
        *(dimension_title(d) for d in dimensions),
        "seed Overall",
        "responses",
        "failed",
        "no reply",
        "degenerate",
    ]
    rows = [
        [
            str(entry.rank),
            entry.label,
            format_interval(entry.overall),
            _next_cell(entry),
            *(format_interval(entry.dimensions.get(d)) for d in dimensions),
            format_number(entry.seed_overall),
            f"{entry.responses} of {entry.items}",
            str(entry.failed),
            str(entry.no_reply),
            str(entry.degenerate),
        ]
        for entry in board.entries
    ]
    return LeaderboardTable(header, rows)


def description(board: Leaderboard) -> list[str]:
    judges = ", ".join(board.judges) or "no judge (deterministic dimensions only)"
    return [
        f"Suite {board.suite} ({board.suite_sha256[:12]}…), judges: {judges}, rubric: "
        f"{', '.join(board.rubric_versions) or 'none'}.",
        "Ranked by the overall (item mean) with 95% bootstrap CIs over items (seed "
        f"{board.bootstrap_seed}). Each row is tested against the next with a paired bootstrap "
        "over the items both answered; ≈ marks a difference that is not significant at "
        f"{board.significance_level} (a statistical tie). Equal overalls share a rank. "
        "P-values are not adjusted for multiple comparisons. 'no reply' counts outputs with "
        "nothing said to the person (text dimensions 0 by rule, before any judge); "
        "'degenerate' counts looping replies (flagged, not scored down). Only finished runs "
        "are ranked: every item answered or failed, and at most "
        f"{board.max_failed_share:.0%} of model calls failed; the others are left out below.",
    ]


def leaderboard_markdown(board: Leaderboard) -> str:
    table = leaderboard_table(board)
    parts = ["# empathybench leaderboard", "", *description(board), ""]
    parts.append(markdown_table(table.header, table.rows))
    if board.left_out:
        parts += ["", "## Left out", ""]
        parts += [
            f"- {run.label or run.run_dir} ({run.run_dir}): {run.reason}" for run in board.left_out
        ]
    if not board.entries:
        parts += ["", "No run could be ranked."]
    return "\n".join(parts) + "\n"


def leaderboard_csv(board: Leaderboard) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header = ["rank", "model", "run_id", "run_dir", "strategy"]
    header += [f"overall_{c}" for c in INTERVAL_COLUMNS]
    header += ["difference_to_next", "difference_ci_low", "difference_ci_high", "p_value_to_next"]
    header += ["tied_with_next", "seed_overall", "responses", "failed", "items"]
    header += ["no_reply", "degenerate"]
    header += [f"{d}_mean" for d in DIMENSIONS]
    writer.writerow(header)
    for entry in board.entries:
        difference = entry.difference_to_next
        overall = entry.overall
        row: list[object] = [
            entry.rank,
            entry.label,
            entry.run_id,
            entry.run_dir,
            entry.strategy,
            overall.mean,
            overall.low,
            overall.high,
            overall.n,
            overall.items,
            difference.mean if difference else None,
            difference.low if difference else None,
            difference.high if difference else None,
            entry.p_value_to_next,
            entry.tied_with_next,
            entry.seed_overall,
            entry.responses,
            entry.failed,
            entry.items,
            entry.no_reply,
            entry.degenerate,
        ]
        row += [entry.dimensions[d].mean if d in entry.dimensions else None for d in DIMENSIONS]
        writer.writerow(["" if value is None else value for value in row])
    return buffer.getvalue()


def leaderboard_html(board: Leaderboard) -> str:
    table = leaderboard_table(board)
    return (
        template_environment()
        .get_template("leaderboard.html.j2")
        .render(
            title="empathybench leaderboard",
            generated_at=now_iso(),
            version=__version__,
            description=description(board),
            table=table,
            left_out=board.left_out,
        )
    )


def write_leaderboard(board: Leaderboard, output: Path) -> list[Path]:
    texts = (
        pretty_json(board),
        leaderboard_markdown(board),
        leaderboard_csv(board),
        leaderboard_html(board),
    )
    return write_text_files(output, dict(zip(LEADERBOARD_FILES, texts, strict=True)))
