"""Fixtures of the annotation tests (the data itself is in annotation_helpers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from empathybench.annotation.study import init_study
from tests.annotation.annotation_helpers import write_suite


@pytest.fixture
def suite_path(tmp_path: Path) -> Path:
    return write_suite(tmp_path / "tiny.jsonl")


@pytest.fixture
def study_dir(tmp_path: Path, suite_path: Path) -> Path:
    """A study of all six items of the tiny suite, seed 3, no answers yet."""
    directory = tmp_path / "study"
    init_study(directory, str(suite_path), seed=3)
    return directory
