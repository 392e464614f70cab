"""Suites and runs as Hugging Face dataset folders: parquet files plus a dataset card.

``datasets.load_dataset(DIR)`` loads a suite folder (split ``test``); a run folder has two
configs, ``responses`` and ``verdicts`` (``load_dataset(DIR, "verdicts")``). Every suite row
also carries the exact canonical record (``scenario_json``), so a suite round-trips byte for
byte; the hidden-truth columns are named in the card and must never be shown to a tested model.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from empathybench.errors import UserError
from empathybench.jsonl import canonical_json

if TYPE_CHECKING:
    from empathybench.records import Suite
    from empathybench.runtime.run_data import RunData

DATA_DIR = "data"
CARD = "README.md"
LICENSE = "apache-2.0"

# (column, what it holds, hidden truth?)
SUITE_COLUMNS: list[tuple[str, str, bool]] = [
    ("id", "item id", False),
    ("kind", "scenario kind", False),
    ("template_version", "template version the item was generated from", False),
    ("prompt_version", "version of the prompt wording", False),
    ("messages", "the chat messages sent to the tested model (role, content)", False),
    ("options", "the three emotion options shown to the model", False),
    ("focus_person", "the person the emotion question is about", False),
    ("correct_letter", "the keyed option letter", True),
    ("correct_option", "the keyed emotion", True),
    ("emotion_valence", "valence of the keyed emotion", True),
    ("help_needed", "whether anyone needs help from the helper", True),
    ("help_person", "group items of template v2: who needs help (null: nobody or n/a)", True),
    ("assistance", "the kinds of response that fit", True),
    ("crisis_resources_expected", "whether a reply should point to real crisis help", True),
    ("dimensions", "the rubric dimensions that apply to the item", True),
    ("scenario_json", "the full item as empathybench writes it (includes the truth)", True),
]
RESPONSE_COLUMNS: list[tuple[str, str]] = [
    ("run_id", "run id"),
    ("scenario_id", "item id"),
    ("epoch", "epoch"),
    ("model", "tested model id"),
    ("strategy", "prompting strategy"),
    ("text", "the model's answer (null when the call failed)"),
    ("error", "why the call failed (null when it did not)"),
    ("input_tokens", "prompt tokens"),
    ("output_tokens", "completion tokens"),
]
VERDICT_COLUMNS: list[tuple[str, str]] = [
    ("scenario_id", "item id"),
    ("epoch", "epoch"),
    ("judge", "judge id"),
    ("dimension", "rubric dimension"),
    ("status", "scored, na (does not apply) or unscored"),
    ("value", "score in [0, 1] (null unless scored)"),
    ("reason", "why it is n/a or unscored (e.g. no reply)"),
    ("scored_by", "offline judges: the head, its digest, encoder and backend (else null)"),
]


@dataclass(frozen=True)
class ExportResult:
    directory: Path
    rows: dict[str, int]
    """Rows per written table (``test``, or ``responses`` and ``verdicts``)."""


def _pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise UserError(
            "exporting datasets needs pyarrow: pip install 'empathybench[hf]'"
        ) from None
    return pyarrow


def _prepare(directory: Path) -> None:
    if directory.exists() and not directory.is_dir():
        raise UserError(f"{directory}: is a file, expected a new folder")
    if directory.is_dir() and any(directory.iterdir()):
        raise UserError(f"{directory}: not empty; export into a new folder")
    (directory / DATA_DIR).mkdir(parents=True, exist_ok=True)


def suite_rows(suite: Suite) -> list[dict[str, Any]]:
    return [
        {
            "id": s.id,
            "kind": s.kind,
            "template_version": s.template_version,
            "prompt_version": s.prompt_version,
            "messages": [{"role": m.role, "content": m.content} for m in s.messages],
            "options": list(s.options),
            "focus_person": s.focus_person,
            "correct_letter": s.correct_letter,
            "correct_option": s.correct_option,
            "emotion_valence": s.emotion.valence,
            "help_needed": s.expected.help_needed,
            "help_person": s.expected.help_person,
            "assistance": list(s.expected.assistance),
            "crisis_resources_expected": s.expected.crisis_resources_expected,
            "dimensions": list(s.dimensions),
            "scenario_json": canonical_json(s),
        }
        for s in suite.scenarios
    ]


def _write_table(
    directory: Path, name: str, rows: list[dict[str, Any]], columns: list[str]
) -> None:
    pyarrow = _pyarrow()
    table = pyarrow.Table.from_pylist(rows) if rows else pyarrow.table({c: [] for c in columns})
    pyarrow.parquet.write_table(table, directory / DATA_DIR / f"{name}-00000-of-00001.parquet")


def _front_matter(configs: list[tuple[str, str, str]]) -> str:
    lines = ["---", f"license: {LICENSE}", "configs:"]
    for index, (config, split, file_stem) in enumerate(configs):
        lines += [
            f"- config_name: {config}",
            *(["  default: true"] if index == 0 else []),
            "  data_files:",
            f"  - split: {split}",
            f"    path: {DATA_DIR}/{file_stem}-*.parquet",
        ]
    lines += ["tags:", "- empathy", "- evaluation", "- empathybench", "---", ""]
    return "\n".join(lines)


def export_suite(suite: Suite, directory: Path) -> ExportResult:
    """A suite as a dataset folder (one split, ``test``) with its card."""
    from empathybench.version import __version__

    _prepare(directory)
    rows = suite_rows(suite)
    _write_table(directory, "test", rows, [c for c, _, _ in SUITE_COLUMNS])
    kinds = Counter(s.kind for s in suite.scenarios)
    versions = sorted({s.template_version for s in suite.scenarios})
    table = ["| column | holds | hidden truth |", "|---|---|---|"] + [
        f"| `{c}` | {what} | {'**yes — never show it to the tested model**' if hidden else ''} |"
        for c, what, hidden in SUITE_COLUMNS
    ]
    card = _front_matter([("default", "test", "test")]) + "\n".join(
        [
            f"# empathybench suite: {suite.name}",
            "",
            f"{len(rows)} items from empathybench {__version__} (template "
            f"{', '.join(versions)}; prompt {suite.prompt_version}). Send each row's "
            "`messages` to the model under test; score with `empathybench judge` or the "
            "`empathybench.rewards` functions.",
            "",
            f"- sha256 of the suite file: `{suite.sha256}`",
            f"- items per kind: {', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}",
            f"- licence: {LICENSE}",
            "",
            "## Columns",
            "",
            *table,
            "",
            "`scenario_json` is the exact JSONL record; `Scenario.model_validate_json` reads it "
            "back and re-encoding gives the suite's bytes.",
            "",
        ]
    )
    (directory / CARD).write_text(card, encoding="utf-8")
    return ExportResult(directory, {"test": len(rows)})


def run_tables(run: RunData) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    responses = [
        {
            "run_id": r.run_id,
            "scenario_id": r.scenario_id,
            "epoch": r.epoch,
            "model": r.model,
            "strategy": r.strategy,
            "text": r.text,
            "error": r.error.message if r.error else None,
            "input_tokens": r.usage.input_tokens,
            "output_tokens": r.usage.output_tokens,
        }
        for _, r in sorted(run.responses.items())
    ]
    verdicts = [
        {
            "scenario_id": key[0],
            "epoch": key[1],
            "judge": judge,
            "dimension": dimension,
            "status": score.status,
            "value": score.value,
            "reason": score.reason,
            "scored_by": verdict.scored_by,
        }
        for judge, by_key in sorted(run.verdicts.items())
        for key, verdict in sorted(by_key.items())
        for dimension, score in sorted(verdict.scores.items())
    ]
    return responses, verdicts


def export_run(run: RunData, directory: Path) -> ExportResult:
    """A run's responses and every judge's verdicts as a dataset folder with two configs."""
    _prepare(directory)
    responses, verdicts = run_tables(run)
    _write_table(directory, "responses", responses, [c for c, _ in RESPONSE_COLUMNS])
    _write_table(directory, "verdicts", verdicts, [c for c, _ in VERDICT_COLUMNS])
    manifest = run.manifest
    card = _front_matter(
        [("responses", "test", "responses"), ("verdicts", "test", "verdicts")]
    ) + "\n".join(
        [
            f"# empathybench run {manifest.run_id}: {run.model} on {manifest.suite.name}",
            "",
            f"- suite: {manifest.suite.source} (sha256 `{manifest.suite.sha256}`, origin "
            f"{manifest.suite.origin})",
            f"- status: {manifest.status}; answer mode {manifest.answer_mode}; strategy "
            f"{manifest.strategy}",
            f"- judges: {', '.join(sorted(run.verdicts)) or 'none'}",
            f"- licence: {LICENSE}",
            "",
            "## responses",
            "",
            "| column | holds |",
            "|---|---|",
            *[f"| `{c}` | {what} |" for c, what in RESPONSE_COLUMNS],
            "",
            "## verdicts (one row per judge, item and dimension)",
            "",
            "| column | holds |",
            "|---|---|",
            *[f"| `{c}` | {what} |" for c, what in VERDICT_COLUMNS],
            "",
            "The run's manifest:",
            "",
            "```json",
            json.dumps(manifest.model_dump(mode="json"), indent=2),
            "```",
            "",
        ]
    )
    (directory / CARD).write_text(card, encoding="utf-8")
    return ExportResult(directory, {"responses": len(responses), "verdicts": len(verdicts)})
