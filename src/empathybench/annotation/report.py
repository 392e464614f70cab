"""Writing an agreement report: ``results.json``, ``results.csv`` (per item) and ``results.md``.

Rater ids and participant names come from people and suite files: the Markdown escapes them
(no HTML reaches a viewer) and the CSV makes every cell spreadsheet-safe.
"""

from __future__ import annotations

import html
from pathlib import Path

from empathybench.annotation.agreement import AgreementReport, ItemAgreement, KappaResult
from empathybench.csv_cells import csv_text
from empathybench.jsonl import pretty_json, write_text_files
from empathybench.report.tables import markdown_table

RESULTS_JSON = "results.json"
RESULTS_CSV = "results.csv"
RESULTS_MARKDOWN = "results.md"
ITEM_COLUMNS = (
    "item_id",
    "kind",
    "raters",
    "status",
    "emotion_key",
    "emotion_agreement",
    "emotion_majority",
    "help_key",
    "help_agreement",
    "help_majority",
    "who_key",
    "who_agreement",
    "who_majority",
    "reasons",
)


def share_text(value: float | None) -> str:
    """A share as a percentage (``80%``), or ``–`` when there is none."""
    return "–" if value is None else f"{100 * value:.0f}%"


def kappa_text(result: KappaResult) -> str:
    """``0.41 (12 items, 40 ratings)`` or ``undefined: why``."""
    if result.kappa is None:
        return f"undefined: {result.note}"
    return f"{result.kappa:.2f} ({result.items} items, {result.ratings} ratings)"


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


def item_rows(report: AgreementReport) -> list[list[str]]:
    """One CSV row per item, in study order (columns ``ITEM_COLUMNS``)."""
    return [
        [
            item.item_id,
            item.kind,
            str(item.raters),
            item.status,
            item.emotion_key,
            _number(item.emotion_agreement),
            item.emotion_majority or "",
            item.help_key,
            _number(item.help_agreement),
            item.help_majority or "",
            item.who_key or "",
            _number(item.who_agreement),
            item.who_majority or "",
            "; ".join(item.reasons),
        ]
        for item in report.items
    ]


def _text(value: str | None) -> str:
    return "–" if value is None else html.escape(value, quote=False)


def _markdown_item(item: ItemAgreement) -> list[str]:
    who = "–"
    if item.who_key is not None:
        who = f"{share_text(item.who_agreement)} (key {_text(item.who_key)})"
    return [
        f"`{item.item_id}`",
        item.kind,
        str(item.raters),
        f"{share_text(item.emotion_agreement)} (key {item.emotion_key})",
        f"{share_text(item.help_agreement)} (key {item.help_key})",
        who,
        f"{_text(item.emotion_majority)} / {_text(item.help_majority)}"
        + (f" / {_text(item.who_majority)}" if item.who_key is not None else ""),
        item.status + (f": {'; '.join(item.reasons)}" if item.reasons else ""),
    ]


def results_markdown(report: AgreementReport) -> str:
    """Summary, kappas, flagged items, the per-item table and per-rater accuracy."""
    threshold = share_text(report.min_agreement)
    flagged = ", ".join(f"`{item_id}`" for item_id in report.flagged) or "none"
    lines = [
        f"# Human validation: study `{report.study_id}`",
        "",
        f"Suite `{html.escape(report.suite_name, quote=False)}` (template "
        f"{html.escape(report.template_version, quote=False)}, sha256 "
        f"`{report.suite_sha256[:12]}…`): {report.answers} answers from {report.raters} "
        f"raters on {report.answered_items} of {report.study_items} items; "
        f"{report.rated_items} items have at least 2 raters.",
        "",
        f"- Fleiss' kappa, emotion: {kappa_text(report.kappa_emotion)}",
        f"- Fleiss' kappa, help: {kappa_text(report.kappa_help)}",
        f"- Flagged (under {threshold} agreement with the key): {len(report.flagged)}: {flagged}",
        f"- Too few raters (under 2): {len(report.too_few_raters)}",
        "",
        "## Items",
        "",
        markdown_table(
            [
                "item",
                "kind",
                "raters",
                "emotion",
                "help",
                "who",
                "majority (emotion / help / who)",
                "status",
            ],
            [_markdown_item(item) for item in report.items],
        ),
        "",
        "## Raters",
        "",
        markdown_table(
            ["rater", "answers", "emotion", "help", "who"],
            [
                [
                    html.escape(rater.rater_id, quote=False),
                    str(rater.answers),
                    share_text(rater.emotion_accuracy),
                    share_text(rater.help_accuracy),
                    share_text(rater.who_accuracy),
                ]
                for rater in report.rater_accuracy
            ],
        ),
    ]
    return "\n".join(lines) + "\n"


def write_report(directory: Path, report: AgreementReport) -> list[Path]:
    """``results.json``, ``results.csv`` and ``results.md`` in ``directory``; the paths."""
    return write_text_files(
        directory,
        {
            RESULTS_JSON: pretty_json(report),
            RESULTS_CSV: csv_text(ITEM_COLUMNS, item_rows(report)),
            RESULTS_MARKDOWN: results_markdown(report),
        },
    )
