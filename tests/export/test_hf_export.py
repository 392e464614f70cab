"""``empathybench export hf``: folders that ``datasets.load_dataset`` loads, round-tripping."""

from __future__ import annotations

from pathlib import Path

import pytest

from empathybench.jsonl import canonical_json
from empathybench.records import Scenario
from empathybench.runtime.run_store import RunStore
from empathybench.scenarios.suites import load_suite, suites_dir
from tests.fakes.cli_process import run_cli

datasets = pytest.importorskip("datasets")


def test_suite_round_trips_byte_for_byte(tmp_path: Path) -> None:
    out = tmp_path / "hf"
    result = run_cli("export", "hf", "standard-v1", "-o", str(out))
    assert result.returncode == 0, result.stderr
    loaded = datasets.load_dataset(str(out), cache_dir=str(tmp_path / "hf-cache"))["test"]
    suite = load_suite("standard-v1")
    assert len(loaded) == len(suite.scenarios) == 100
    back = [Scenario.model_validate_json(row["scenario_json"]) for row in loaded]
    assert back == list(suite.scenarios)
    encoded = "".join(canonical_json(s) + "\n" for s in back).encode()
    assert encoded == (suites_dir() / "standard-v1.jsonl").read_bytes()
    first, scenario = loaded[0], suite.scenarios[0]
    assert first["messages"] == [{"role": m.role, "content": m.content} for m in scenario.messages]
    assert first["correct_letter"] == scenario.correct_letter
    card = (out / "README.md").read_text()
    assert suite.sha256 in card and "license: apache-2.0" in card
    assert "| `correct_letter` |" in card and "never show it to the tested model" in card


def test_run_exports_responses_and_verdicts(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    made = run_cli(
        "run", "--model", "mock/echo", "--limit", "6", "--run-dir", str(run_dir),
        "--judge", "mock/judge", "--judge", "offline", "--no-progress",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    out = tmp_path / "hf"
    result = run_cli("export", "hf", str(run_dir), "-o", str(out))
    assert result.returncode == 0, result.stderr
    # datasets caches local folders by path and may serve an earlier export: own cache
    cache = str(tmp_path / "hf-cache")
    responses = datasets.load_dataset(str(out), "responses", cache_dir=cache)["test"]
    verdicts = datasets.load_dataset(str(out), "verdicts", cache_dir=cache)["test"]
    stored = RunStore(run_dir).latest_responses()
    assert sorted(responses["text"]) == sorted(r.text for r in stored.values())
    assert set(verdicts["judge"]) == {"mock/judge", "offline"}
    store = RunStore(run_dir)
    judged = {judge: store.verdicts(judge).latest() for judge in ("mock/judge", "offline")}
    # One row per judge, item and recorded dimension, values as stored.
    assert len(verdicts) == sum(len(v.scores) for j in judged.values() for v in j.values()) > 6
    for row in verdicts:
        stored = judged[row["judge"]][(row["scenario_id"], row["epoch"])]
        score = stored.scores[row["dimension"]]
        assert (row["status"], row["value"]) == (score.status, score.value)
        assert row["scored_by"] == stored.scored_by  # which offline head and backend, or null
    assert any(row["scored_by"] for row in verdicts if row["judge"] == "offline")


@pytest.mark.parametrize("case", ["not-empty", "file", "missing-suite"])
def test_bad_targets_get_one_error_line(tmp_path: Path, case: str) -> None:
    out = tmp_path / "out"
    source = "standard-v1"
    if case == "not-empty":
        out.mkdir()
        (out / "keep.txt").write_text("mine")
    elif case == "file":
        out.write_text("a file")
    else:
        source = str(tmp_path / "nope.jsonl")
    result = run_cli("export", "hf", source, "-o", str(out))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), lines
    if case == "not-empty":
        assert (out / "keep.txt").read_text() == "mine"
