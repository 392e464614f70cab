"""Suites for the Python API: a bundled one by name, a file, or a freshly generated one."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from empathybench.records import ScenarioKind, Suite
from empathybench.scenarios.generator import generate
from empathybench.scenarios.suites import load_suite as _load_suite
from empathybench.scenarios.suites import suite_in_memory, write_scenarios
from empathybench.scenarios.templates import DEFAULT_TEMPLATE_VERSION


def load_suite(suite: str | os.PathLike[str]) -> Suite:
    """A bundled suite by name (``standard-v6`` to ``standard-v1``; checked against its
    recorded hash) or a suite JSONL file."""
    return _load_suite(os.fspath(suite))


def generate_suite(
    n: int,
    seed: int,
    *,
    template_version: str = DEFAULT_TEMPLATE_VERSION,
    mix: Mapping[ScenarioKind, float] | None = None,
    path: str | os.PathLike[str] | None = None,
) -> Suite:
    """``n`` distinct scenarios from the templates, the same for the same ``seed``.

    With ``path`` the suite is written there (canonical JSONL) and loaded back; without it
    the suite stays in memory, and a run made on it writes it into the run directory.
    """
    scenarios = generate(n, seed, mix, template_version)
    if path is None:
        return suite_in_memory(f"generated-{template_version}-n{n}-seed{seed}", scenarios)
    write_scenarios(Path(path), scenarios)
    return _load_suite(os.fspath(path))
