"""``empathybench run --batch`` as users call it, in a child process, against the loopback fake."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from empathybench.runtime.run_store import RunStore
from tests.fakes.cli_process import run_cli
from tests.fakes.fake_batch_server import FakeBatchServer


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-batch")
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", "sk-test-batch")


def batch_run(suite: Path, run_dir: Path, model: str, url: str, *extra: str) -> list[str]:
    return [
        "run", "--suite", str(suite), "--model", model, "--base-url", url, "--batch",
        "--batch-poll", "0.02", "--limit", "4", "--no-judge", "--no-progress", "--no-cache",
        "--run-dir", str(run_dir), *extra,
    ]  # fmt: skip


@pytest.mark.parametrize("model", ["mock/tested", "openai-compatible/some-model"])
def test_batch_is_refused_before_any_call_for_providers_without_a_batch_api(
    model: str, small_suite_path: Path, tmp_path: Path
) -> None:
    with FakeBatchServer() as server:
        args = batch_run(small_suite_path, tmp_path / "r", model, server.openai_base_url)
        if model.startswith("mock"):
            args.remove("--base-url")
            args.remove(server.openai_base_url)
        result = run_cli(*args)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --batch: needs a provider")
    assert server.submissions == 0 and server.sync_calls == 0
    assert not (tmp_path / "r").exists()


def test_a_batch_run_completes_and_an_expired_one_is_one_error_line_and_exit_2(
    small_suite_path: Path, tmp_path: Path
) -> None:
    with FakeBatchServer() as server:
        url = server.openai_base_url
        done = run_cli(*batch_run(small_suite_path, tmp_path / "ok", "openai/gpt-4o-mini", url))
    assert done.returncode == 0, done.stderr
    assert server.submissions == 1 and server.sync_calls == 0
    assert len(RunStore(tmp_path / "ok").read_responses()) == 4
    with FakeBatchServer(expire=True) as server:
        url = server.openai_base_url
        gone = run_cli(*batch_run(small_suite_path, tmp_path / "x", "openai/gpt-4o-mini", url))
    assert gone.returncode == 2
    errors = [line for line in gone.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "expired with no answer" in errors[0]
    assert "Traceback" not in gone.stderr
    assert all(r.error for r in RunStore(tmp_path / "x").read_responses())


def test_a_killed_batch_run_resumes_by_its_recorded_batch_id_without_submitting_again(
    small_suite_path: Path, tmp_path: Path
) -> None:
    run_dir = tmp_path / "r"
    ledger = run_dir / "batches.json"
    with FakeBatchServer(hold=True) as server:
        args = batch_run(small_suite_path, run_dir, "openai/gpt-4o-mini", server.openai_base_url)
        child = subprocess.Popen(
            [sys.executable, "-m", "empathybench", *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 120
            while not ledger.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert ledger.exists()
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait()
        assert RunStore(run_dir).read_responses() == []
        server.release()
        # no --batch: the open batch in the run folder makes the resumed run a batch run
        resumed = run_cli(
            "run", "--resume", str(run_dir), "--batch-poll", "0.02", "--no-judge",
            "--no-progress", "--no-cache",
        )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    assert server.submissions == 1 and server.sync_calls == 0
    assert len(RunStore(run_dir).read_responses()) == 4
    assert RunStore(run_dir).read_manifest().status == "complete"


def test_a_poll_interval_that_is_not_positive_is_refused_before_any_call(
    small_suite_path: Path, tmp_path: Path
) -> None:
    with FakeBatchServer() as server:
        args = batch_run(
            small_suite_path, tmp_path / "r", "openai/gpt-4o-mini", server.openai_base_url
        )
        args[args.index("--batch-poll") + 1] = "0"
        result = run_cli(*args)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "error: --batch-poll: must be greater than 0, got 0"
    ]
    assert server.submissions == 0 and server.sync_calls == 0
