"""Item analysis as JSON, CSV (every item) and Markdown (the summary and the flagged items)."""

from __future__ import annotations

import csv
import io
from collections import Counter
from pathlib import Path

from empathybench.analysis.item_analysis import (
    MIN_MODELS_FOR_DISCRIMINATION,
    MIN_MODELS_FOR_DISCRIMINATION_FLAG,
    MIN_MODELS_FOR_FLAGS,
    NEGATIVE_DISCRIMINATION,
    ItemAnalysis,
)
from empathybench.jsonl import pretty_json, write_text_files
from empathybench.report.tables import format_number, judges_text, markdown_table

ITEM_FILES = ("item_analysis.json", "item_analysis.csv", "item_analysis.md")


def item_csv(analysis: ItemAnalysis) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header = ["scenario_id", "kind", "responses", "models", "difficulty", "emotion_accuracy"]
    header += ["help_accuracy", "discrimination", "epoch_spread", "flags", "key_disputes"]
    header += [f"score: {label}" for label in analysis.runs]
    writer.writerow(header)
    for item in analysis.items:
        row: list[object] = [
            item.scenario_id,
            item.kind,
            item.responses,
            item.models,
            item.difficulty,
            item.emotion_accuracy,
            item.help_accuracy,
            item.discrimination,
            item.epoch_spread,
            "; ".join(item.flags),
            "; ".join(item.key_disputes),
        ]
        row += [item.model_scores.get(label) for label in analysis.runs]
        writer.writerow(["" if value is None else value for value in row])
    return buffer.getvalue()


def item_markdown(analysis: ItemAnalysis) -> str:
    flagged = analysis.flagged
    counts = Counter(flag for item in flagged for flag in item.flags)
    lines = [
        "# empathybench item analysis",
        "",
        f"Suite {analysis.suite} ({analysis.suite_sha256[:12]}…), {len(analysis.items)} items, "
        f"{len(analysis.runs)} model(s): {', '.join(analysis.runs)}.",
        f"Key checks by: {', '.join(analysis.key_judges) or 'none (no key judge given)'}.",
        "Judges per run: "
        + "; ".join(f"{run}: {judges_text(analysis.judges[run])}" for run in analysis.runs)
        + ".",
        "",
        "Difficulty: mean item score over every model and epoch (1 = everyone fully right). "
        "Discrimination: item-rest correlation across models (needs "
        f"{MIN_MODELS_FOR_DISCRIMINATION}+ models; flagged at {NEGATIVE_DISCRIMINATION} or below "
        f"with {MIN_MODELS_FOR_DISCRIMINATION_FLAG}+). Right/wrong flags need "
        f"{MIN_MODELS_FOR_FLAGS}+ models.",
        "",
        f"## {len(flagged)} flagged item(s)",
        "",
    ]
    lines += [f"- {flag}: {count}" for flag, count in counts.most_common()]
    if flagged:
        header = ["item", "kind", "difficulty", "emotion right", "discrimination", "flags"]
        rows = [
            [
                item.scenario_id,
                item.kind,
                format_number(item.difficulty),
                format_number(item.emotion_accuracy),
                format_number(item.discrimination),
                "; ".join(item.flags + item.key_disputes),
            ]
            for item in flagged
        ]
        lines += ["", markdown_table(header, rows)]
    return "\n".join(lines) + "\n"


def write_item_analysis(analysis: ItemAnalysis, output: Path) -> list[Path]:
    texts = (
        pretty_json(analysis),
        item_csv(analysis),
        item_markdown(analysis),
    )
    return write_text_files(output, dict(zip(ITEM_FILES, texts, strict=True)))
