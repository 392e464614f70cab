"""Finding, loading and naming the runs that a report, leaderboard or item analysis covers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from empathybench.errors import UserError
from empathybench.runtime.run_data import RunData, load_run_data
from empathybench.runtime.run_store import MANIFEST


@dataclass(frozen=True)
class UnreadableRun:
    directory: Path
    reason: str


def find_run_dirs(paths: Sequence[Path]) -> list[tuple[Path, bool]]:
    """Run directories named in ``paths``: ``(directory, named explicitly)``, in order.

    A path holding ``manifest.json`` is a run; any other folder is searched (recursively)
    for runs. A missing path, a file, or a folder without runs is a UserError.
    """
    if not paths:
        raise UserError("give at least one run directory (or a folder of runs)")
    found: list[tuple[Path, bool]] = []
    for path in paths:
        if not path.exists():
            raise UserError(f"{path}: no such file or directory")
        if not path.is_dir():
            raise UserError(f"{path}: not a run directory (a run is a folder with {MANIFEST})")
        if (path / MANIFEST).is_file():
            found.append((path, True))
            continue
        inside = sorted(manifest.parent for manifest in path.rglob(MANIFEST))
        if not inside:
            raise UserError(f"{path}: not a run directory and no runs inside (no {MANIFEST})")
        found.extend((directory, False) for directory in inside)
    unique: dict[Path, tuple[Path, bool]] = {}
    for directory, explicit in found:
        first, was_explicit = unique.get(directory.resolve(), (directory, False))
        unique[directory.resolve()] = (first, was_explicit or explicit)
    return list(unique.values())


def load_runs(paths: Sequence[Path]) -> tuple[list[RunData], list[UnreadableRun]]:
    """Load every run in ``paths``. A run named explicitly that cannot be read is a UserError;
    one found inside a folder is returned as unreadable, with the reason."""
    runs: list[RunData] = []
    unreadable: list[UnreadableRun] = []
    for directory, explicit in find_run_dirs(paths):
        try:
            runs.append(load_run_data(directory))
        except UserError as error:
            if explicit:
                raise
            unreadable.append(UnreadableRun(directory, str(error)))
    return runs, unreadable


def run_label(run: RunData) -> str:
    """The model, with the prompt strategy when it is not the plain one."""
    strategy = run.manifest.strategy
    return run.model if strategy == "plain" else f"{run.model} ({strategy})"


def run_labels(runs: Sequence[RunData]) -> list[str]:
    """One distinct label per run: ``run_label``, plus the run id where two would clash."""
    base = [run_label(run) for run in runs]
    counts = Counter(base)
    return [
        label if counts[label] == 1 else f"{label} [{run.manifest.run_id}]"
        for label, run in zip(base, runs, strict=True)
    ]
