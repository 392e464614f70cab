"""Which runs a leaderboard may rank, and no statistic from nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from empathybench.analysis.leaderboard import _neighbour_test, build_leaderboard
from empathybench.analysis.run_status import run_state
from empathybench.errors import UserError
from empathybench.models.base import ModelCallError, ModelRequest
from empathybench.models.mock import MockModel
from empathybench.models.registry import parse_model_id
from empathybench.records import Suite
from empathybench.runtime.run_data import load_run_data
from empathybench.runtime.run_store import RunStore
from tests.fakes.mock_runs import make_run


def failing(model_id: str, every: int) -> MockModel:
    calls = {"n": 0}

    def script(request: ModelRequest, attempt: int) -> str:
        calls["n"] += 1
        if calls["n"] % every == 0:
            raise ModelCallError("auth", "refused", status=401)
        return "EMOTION: A\nNEEDS_HELP: yes\nREPLY: I am here for you."

    return MockModel(parse_model_id(model_id), script=script)


def test_only_finished_runs_with_few_failures_rank(
    small_suite: Suite, small_suite_path: Path, tmp_path: Path
) -> None:
    good = make_run(tmp_path / "good", small_suite, small_suite_path, "mock/good")
    few = make_run(
        tmp_path / "few", small_suite, small_suite_path, "mock/few", model=failing("mock/few", 30)
    )
    many = make_run(
        tmp_path / "many", small_suite, small_suite_path, "mock/many", model=failing("mock/many", 2)
    )
    killed = make_run(tmp_path / "killed", small_suite, small_suite_path, "mock/killed")
    store = RunStore(killed)  # as a SIGKILL leaves it: status running, records cut short
    store.write_manifest(store.read_manifest().model_copy(update={"status": "running"}))
    lines = store.responses_path.read_text().splitlines(keepends=True)
    store.responses_path.write_text("".join(lines[:7]))

    runs = [load_run_data(d) for d in (killed, many, few, good)]
    states = [run_state(run) for run in runs]
    assert "interrupted" in (states[0].problem or "")
    assert states[0].counts.answered == 7 and states[0].counts.missing == 23
    assert "15 of 30 model calls failed" in (states[1].problem or "")
    assert states[2].problem is None and states[2].counts.failed == 1  # 1 of 30: within 5%
    assert states[3].problem is None
    assert run_state(runs[2], max_failed_share=0.0).problem is not None
    with pytest.raises(UserError, match="max_failed_share"):
        run_state(runs[2], max_failed_share=float("nan"))

    board = build_leaderboard(runs)
    assert sorted(entry.model for entry in board.entries) == ["mock/few", "mock/good"]
    few_entry = next(e for e in board.entries if e.model == "mock/few")
    assert (few_entry.responses, few_entry.failed, few_entry.items) == (29, 1, 30)
    assert {run.label for run in board.left_out} == {"mock/killed", "mock/many"}


def test_no_test_between_runs_without_shared_items() -> None:
    assert _neighbour_test({}, {}, 0, 0.05) == {
        "test_note": "no test: 0 item(s) scored in both runs (needs 2)"
    }
    one = _neighbour_test({"a": 1.0}, {"a": 0.0}, 0, 0.05)
    assert "p_value_to_next" not in one and "no test" in str(one["test_note"])
    two = _neighbour_test({"a": 1.0, "b": 0.5}, {"a": 0.0, "b": 0.5}, 0, 0.05)
    assert two["p_value_to_next"] is not None
