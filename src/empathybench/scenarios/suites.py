"""Suite files: streaming writer with hashing, reader, and the bundled suites."""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from empathybench.errors import UserError
from empathybench.jsonl import canonical_json, canonical_json_data, read_records
from empathybench.types import Scenario, Suite, SuiteInfo

SUITES_INDEX = "suites.json"
DEFAULT_SUITE = "standard-v1"
"""The suite a run uses when none is given (the frozen standard set)."""


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
        with temporary.open("wb") as handle:
            for item in scenarios:
                if isinstance(item, dict):
                    text = canonical_json_data(item)
                    kind, letter = item["kind"], item["correct_letter"]
                else:
                    text = canonical_json(item)
                    kind, letter = item.kind, item.correct_letter
                line = (text + "\n").encode("utf-8")
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
    entries = json.loads(index.read_text(encoding="utf-8"))
    return {entry["name"]: SuiteInfo.model_validate(entry) for entry in entries}


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
    return Suite(
        name=path.stem,
        sha256=file_sha256(path),
        scenarios=tuple(read_records(path, Scenario)),
        source=str(path.resolve()),
    )


def suite_in_memory(name: str, scenarios: Iterable[Scenario]) -> Suite:
    """A suite with no file yet; its hash is the one ``write_scenarios`` would give its file."""
    items = tuple(scenarios)
    digest = hashlib.sha256()
    for scenario in items:
        digest.update((canonical_json(scenario) + "\n").encode("utf-8"))
    return Suite(name=name, sha256=digest.hexdigest(), scenarios=items)
