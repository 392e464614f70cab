import asyncio
import sys
from pathlib import Path

import pytest

from empathybench.models.registry import parse_model_id
from empathybench.records import Suite
from empathybench.runner import RunOptions, execute_run
from empathybench.scenarios.generator import generate
from empathybench.scenarios.suites import load_suite, write_scenarios

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # lets tests import shared helpers as tests.fakes.*
    sys.path.insert(0, str(ROOT))


@pytest.fixture(scope="session")
def small_suite_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("suites") / "small.jsonl"
    write_scenarios(path, generate(30, seed=77, template_version="v1"))
    return path


@pytest.fixture(scope="session")
def small_suite(small_suite_path: Path) -> Suite:
    return load_suite(str(small_suite_path))


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the user's real response cache."""
    monkeypatch.setenv("EMPATHYBENCH_CACHE", str(tmp_path / "cache.sqlite"))


@pytest.fixture
def run_dir(small_suite: Suite, small_suite_path: Path, tmp_path: Path) -> Path:
    """A finished run of the small suite through the mock model ``mock/tested``."""
    directory = tmp_path / "run"
    asyncio.run(
        execute_run(
            RunOptions(
                suite=small_suite,
                suite_source=str(small_suite_path),
                spec=parse_model_id("mock/tested"),
                run_dir=directory,
            )
        )
    )
    return directory
