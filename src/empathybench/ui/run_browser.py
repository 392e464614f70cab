"""Browsing finished runs: which runs exist, what one looks like, and one item in full.

The loading, tables, figures and per-item views are the report's own (``load_report_runs``,
``markdown_report_tables``, ``write_figures`` and the HTML report's item views), so the app
shows what ``empathybench report`` writes. This module only turns them into plain text for
read-only Textboxes and keeps the figure files alive long enough for Gradio to serve them.
No gradio import here: it is tested without a server.
"""

from __future__ import annotations

import tempfile
import threading
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from empathybench.analysis.run_sets import UnreadableRun
from empathybench.errors import UserError
from empathybench.records import Scenario
from empathybench.report.figures import write_figures
from empathybench.report.html_report import ItemView, JudgeView, item_views
from empathybench.report.run_report import load_report_runs
from empathybench.report.tables import ReportRun, judges_text, markdown_report_tables
from empathybench.runtime.run_store import MANIFEST
from empathybench.ui.safe_text import escape_html, markdown_literal

MAX_DEPTH = 2
"""How far below ``--runs`` run folders are looked for (a folder of folders of runs)."""
KEPT_FIGURE_FOLDERS = 16


def discover_run_dirs(root: Path, max_depth: int = MAX_DEPTH) -> list[Path]:
    """Folders holding ``manifest.json``: ``root`` itself or up to ``max_depth`` below it.

    A run folder is not searched further (runs do not nest) and hidden folders are skipped,
    so a large results tree stays quick to list.
    """
    found: list[Path] = []
    top = root.resolve()

    def visit(folder: Path, depth: int) -> None:
        if (folder / MANIFEST).is_file():
            found.append(folder)
            return
        if depth >= max_depth:
            return
        try:
            children = sorted(entry for entry in folder.iterdir() if entry.is_dir())
        except OSError:
            return
        for child in children:
            if not child.name.startswith(".") and _inside(child, top):
                visit(child, depth + 1)

    if root.is_dir():
        visit(root, 0)
    return found


def _inside(path: Path, top: Path) -> bool:
    """Whether ``path``, links followed, lies in ``top`` (a link out of it is not followed)."""
    try:
        path.resolve().relative_to(top)
    except (ValueError, OSError, RuntimeError):
        return False
    return True


class RunNotFound(UserError):
    """A typed path that is not a run folder inside the runs folder (one message for all)."""


MAX_TYPED_PATH = 1024


def confined_run_path(root: Path, typed: str, max_depth: int = MAX_DEPTH) -> Path:
    """The run folder (or folder of runs) ``typed`` names inside ``root``.

    Relative paths are taken from ``root``; links are resolved and must stay inside it; at
    most ``max_depth`` folders below it; no ``~``. Anything else — outside, missing, a file,
    a folder without runs — gets the same message, so the box cannot tell what exists
    elsewhere on the machine.
    """
    text = typed.strip()
    not_found = RunNotFound(f"no run folder {text!r} in the runs folder")
    if not text or len(text) > MAX_TYPED_PATH or not text.isprintable():
        raise not_found
    top = root.resolve()
    try:
        resolved = (top / text).resolve()  # an absolute ``text`` replaces ``top``
        depth = len(resolved.relative_to(top).parts)
    except (ValueError, OSError, RuntimeError):
        raise not_found from None
    if depth > max_depth or not resolved.is_dir():
        raise not_found
    if not (resolved / MANIFEST).is_file() and not discover_run_dirs(resolved, max_depth - depth):
        raise not_found
    return resolved


def run_choices(root: Path | None) -> list[tuple[str, str]]:
    """Dropdown choices ``(label, path)``: each run under ``root`` named by where it lies."""
    if root is None:
        return []
    choices = []
    for directory in discover_run_dirs(root):
        relative = directory.relative_to(root).as_posix()
        choices.append((relative if relative != "." else directory.name, str(directory.resolve())))
    return choices


@dataclass(frozen=True)
class ItemText:
    """One answered item, as the app shows it (all plain text)."""

    label: str
    prompt: str
    truth: str
    response: str
    verdicts: str


@dataclass
class RunSelection:
    """The run (or folder of runs) the user opened, ready to display."""

    runs: list[ReportRun]
    unreadable: list[UnreadableRun] = field(default_factory=list)
    items: dict[str, ItemText] = field(default_factory=dict)
    """Item key (unique across the runs) → its text, in run and item order."""

    def table_markdown(self) -> str:
        """The report's tables with a line per run; every HTML character escaped."""
        lines = [
            f"- **{markdown_literal(run.label)}**: run {markdown_literal(run.data.manifest.run_id)}"
            f", {markdown_literal(run.data.manifest.status)}, "
            f"{len(run.data.responses)} answers, judges: "
            f"{markdown_literal(judges_text(run.summary.judges))}"
            for run in self.runs
        ]
        lines += [
            f"- not readable: {markdown_literal(str(u.directory))}: {markdown_literal(u.reason)}"
            for u in self.unreadable
        ]
        return "\n".join(lines) + "\n\n" + escape_html(markdown_report_tables(self.runs))


def prompt_text(scenario: Scenario) -> str:
    """The exact messages the tested model was sent, one block per message."""
    return "\n\n".join(f"── {message.role} ──\n{message.content}" for message in scenario.messages)


def _pairs(title: str, pairs: list[tuple[str, str]]) -> list[str]:
    return [title, *(f"  {name}: {value}" for name, value in pairs)]


def truth_text(view: ItemView) -> str:
    """The hidden truth, what was read from the answer, and the item's scores."""
    lines = _pairs("Hidden truth (never shown to the tested model)", view.truth)
    lines += ["", *_pairs("Read from the answer", view.parsed)]
    lines += ["", *_pairs(f"Scores (item overall {view.overall})", view.scores)]
    return "\n".join(lines)


def response_text(view: ItemView) -> str:
    if view.response is None:
        return f"(no answer: {view.error or 'the call failed'})"
    return view.response


def judge_text(judge: JudgeView) -> str:
    lines = [f"Judge {judge.label}"]
    if judge.error:
        lines.append(f"  {judge.error}")
    for dimension, value, rationale in judge.rows:
        lines.append(f"  {dimension}: {value}" + (f" — {rationale}" if rationale else ""))
    if judge.crisis_referral:
        lines.append(f"  crisis referral given: {judge.crisis_referral}")
    return "\n".join(lines)


def verdicts_text(view: ItemView) -> str:
    if not view.judges:
        return (
            "No judge has scored this run yet: only the emotion and help answers are scored. "
            "Judge it with `empathybench judge RUN_DIR --judge MODEL`."
        )
    return "\n\n".join(judge_text(judge) for judge in view.judges)


def _item_label(run: ReportRun, view: ItemView, several_runs: bool) -> str:
    label = f"{view.scenario_id} · {view.kind} · epoch {view.epoch} · overall {view.overall}"
    return f"{run.label} · {label}" if several_runs else label


def open_runs(path: Path) -> RunSelection:
    """Load the run at ``path`` (or every run in that folder); a UserError when none reads."""
    runs, unreadable = load_report_runs([path])
    selection = RunSelection(runs=runs, unreadable=unreadable)
    for index, run in enumerate(runs):
        scenarios = run.data.scenarios
        for view in item_views(run, index):
            selection.items[view.anchor] = ItemText(
                label=_item_label(run, view, len(runs) > 1),
                prompt=prompt_text(scenarios[view.scenario_id]),
                truth=truth_text(view),
                response=response_text(view),
                verdicts=verdicts_text(view),
            )
    return selection


class FigureFolders:
    """Temporary folders for figures, the newest few kept so Gradio can still serve them.

    Gradio copies a returned image into its cache after the handler returns, so a folder
    cannot be removed at once; keeping a bounded number stops a long session from filling
    the disk. Folders left at exit are removed by ``TemporaryDirectory``'s finaliser.
    """

    def __init__(self, keep: int = KEPT_FIGURE_FOLDERS) -> None:
        self._folders: deque[tempfile.TemporaryDirectory[str]] = deque()
        self._keep = keep
        self._lock = threading.Lock()

    def new(self) -> Path:
        folder = tempfile.TemporaryDirectory(prefix="empathybench-ui-figures-")
        with self._lock:
            self._folders.append(folder)
            while len(self._folders) > self._keep:
                self._folders.popleft().cleanup()
        return Path(folder.name)

    def write(self, selection: RunSelection) -> list[tuple[str, str]]:
        """The selection's figures as PNG ``(path, caption)`` pairs for a gallery."""
        figures = write_figures(selection.runs, self.new())
        return [
            (str(paths["png"]), figures.captions.get(name, name))
            for name, paths in figures.files.items()
            if "png" in paths
        ]
