"""Suite files: streaming writer with hashing, reader, and the bundled suites."""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from empathybench.errors import UserError
from empathybench.jsonl import (
    canonical_json,
    canonical_json_bytes,
    parse_record,
    read_json,
    read_json_objects,
    read_records,
)
from empathybench.records import Scenario, Suite, SuiteInfo

SUITES_INDEX = "suites.json"
DEFAULT_SUITE = "standard-v6"
"""The suite a run uses when none is given: the frozen standard set of the newest template
version (``standard-v1`` stays bundled, by name, for comparison with earlier results)."""
SPACE_INDEX = ("provenance", "space_index")
"""Where a generated record holds its position in the generator's space: an integer beyond
64 bits for episode versions, which the writer swaps in by its digits."""


@dataclass
class WriteSummary:
    path: Path
    n: int = 0
    sha256: str = ""
    kinds: Counter[str] = field(default_factory=Counter)
    letters: Counter[str] = field(default_factory=Counter)


def write_scenarios(path: Path, scenarios: Iterable[Scenario | dict[str, Any]]) -> WriteSummary:
    """Stream scenarios (or generator records) to ``path`` as canonical JSONL.

    The file appears only when complete. A record dict serialises to the same bytes as the
    ``Scenario`` validated from it (a test keeps the two paths identical).
    """
    summary = WriteSummary(path=path)
    digest = hashlib.sha256()
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        # A record is ~4 KB: the default 8 KB buffer would make nearly every write a system
        # call.
        with temporary.open("wb", buffering=1 << 20) as handle:
            for item in scenarios:
                if isinstance(item, dict):
                    line = canonical_json_bytes(item, SPACE_INDEX) + b"\n"
                    kind, letter = item["kind"], item["correct_letter"]
                else:
                    line = (canonical_json(item) + "\n").encode("utf-8")
                    kind, letter = item.kind, item.correct_letter
                digest.update(line)
                handle.write(line)
                summary.n += 1
                summary.kinds[kind] += 1
                summary.letters[letter] += 1
        temporary.replace(path)
    finally:
        temporary.unlink(missing_ok=True)
    summary.sha256 = digest.hexdigest()
    return summary


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def suites_dir() -> Path:
    return Path(str(resources.files("empathybench") / "data" / "suites"))


def bundled_suites() -> dict[str, SuiteInfo]:
    index = suites_dir() / SUITES_INDEX
    entries = read_json(index)
    if not isinstance(entries, list):
        raise UserError(f"{index}: expected a list of suites; reinstall empathybench")
    return {
        info.name: info
        for info in (parse_record(entry, SuiteInfo, str(index)) for entry in entries)
    }


def load_suite(name_or_path: str) -> Suite:
    """A bundled suite by name (checked against its recorded hash) or a JSONL file."""
    bundled = bundled_suites()
    if name_or_path in bundled:
        info = bundled[name_or_path]
        path = suites_dir() / info.file
        actual = file_sha256(path)
        if actual != info.sha256:
            raise UserError(
                f"bundled suite {info.name} is modified (sha256 {actual[:12]}…, expected "
                f"{info.sha256[:12]}…); reinstall empathybench"
            )
        return Suite(
            name=info.name,
            sha256=actual,
            scenarios=tuple(read_records(path, Scenario)),
            info=info,
            source=info.name,
        )
    path = Path(name_or_path)
    if not path.exists():
        known = ", ".join(sorted(bundled)) or "none"
        raise UserError(f"{name_or_path}: no such file or bundled suite (bundled: {known})")
    if path.is_dir():
        raise UserError(f"{path}: is a directory, expected a suite JSONL file")
    from empathybench.original.items import (
        is_original_items_file,
        is_original_results_file,
        load_original_items,
    )

    if is_original_results_file(path):
        raise UserError(
            f"{path}: the original tester's results, not a suite: import them with "
            "`empathybench import-results`"
        )

    scenarios = load_original_items(path) if is_original_items_file(path) else _unique(path)
    if not scenarios:
        # Every command that takes a suite would otherwise run, export or annotate nothing
        # and report success.
        raise UserError(f"{path}: has no items (an empty suite file)")
    return Suite(
        name=path.stem,
        sha256=file_sha256(path),
        scenarios=tuple(scenarios),
        source=str(path.resolve()),
    )


def _unique(path: Path) -> tuple[Scenario, ...]:
    """The scenarios of a suite file; an id used twice is an error naming both lines."""
    first_line: dict[str, int] = {}
    scenarios = []
    for number, data in read_json_objects(path):
        scenario = parse_record(data, Scenario, f"{path}:{number}")
        if scenario.id in first_line:
            raise UserError(
                f"{path}:{number}: duplicate scenario id {scenario.id!r} (first on line "
                f"{first_line[scenario.id]}); run `empathybench validate {path}`"
            )
        first_line[scenario.id] = number
        scenarios.append(scenario)
    return tuple(scenarios)


def suite_in_memory(name: str, scenarios: Iterable[Scenario]) -> Suite:
    """A suite with no file yet; its hash is the one ``write_scenarios`` would give its file."""
    items = tuple(scenarios)
    digest = hashlib.sha256()
    for scenario in items:
        digest.update((canonical_json(scenario) + "\n").encode("utf-8"))
    return Suite(name=name, sha256=digest.hexdigest(), scenarios=items)
