"""A run killed with SIGKILL and resumed ends exactly like an uninterrupted run.

Real processes: ``empathybench run`` on the mock provider with some latency is killed
mid-run and resumed with ``--resume``. The mock writes "pid fingerprint" for every call it
receives, so the test can tell which process sent which prompt.
"""

import os
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

from empathybench.models.base import GenerationParams, ModelRequest
from empathybench.models.mock import request_fingerprint
from empathybench.runtime.run_store import RunStore
from empathybench.scenarios.suites import load_suite


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "empathybench", *args]


def start_run(suite: Path, run_dir: Path, call_log: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        cli(
            "run",
            "--suite",
            str(suite),
            "--model",
            "mock/echo",
            "--option",
            "latency=0.05",
            "--option",
            f"call_log={call_log}",
            "--max-connections",
            "4",
            "--no-cache",
            "--no-progress",
            "--no-judge",
            "--run-dir",
            str(run_dir),
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def texts(run_dir: Path) -> dict[tuple[str, int], str | None]:
    return {key: r.text for key, r in RunStore(run_dir).latest_responses().items()}


def calls_by_process(log: Path) -> dict[int, list[str]]:
    calls: dict[int, list[str]] = defaultdict(list)
    for line in log.read_text().splitlines():
        pid, fingerprint = line.split()
        calls[int(pid)].append(fingerprint)
    return calls


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
def test_sigkill_then_resume_matches_an_uninterrupted_run(
    small_suite_path: Path, tmp_path: Path
) -> None:
    reference = start_run(small_suite_path, tmp_path / "reference", tmp_path / "reference.log")
    assert reference.wait(timeout=120) == 0

    run_dir, log = tmp_path / "killed", tmp_path / "calls.log"
    first = start_run(small_suite_path, run_dir, log)
    responses = run_dir / "responses.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if responses.exists() and responses.read_text().count("\n") >= 8:
            break
        time.sleep(0.005)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    finished_before = {sid for sid, _ in RunStore(run_dir).latest_responses()}
    assert 8 <= len(finished_before) < 30, "the kill should land mid-run"

    resumed = subprocess.run(
        cli("run", "--resume", str(run_dir), "--no-cache", "--no-progress", "--no-judge"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert resumed.returncode == 0, resumed.stderr

    # Exactly the responses of the uninterrupted run, one record each, run marked complete.
    assert texts(run_dir) == texts(tmp_path / "reference")
    assert len(RunStore(run_dir).read_responses()) == 30
    assert RunStore(run_dir).read_manifest().status == "complete"

    # The resumed process sent no prompt of an item that was finished before the kill.
    fingerprints = {
        s.id: request_fingerprint(ModelRequest(messages=s.messages, params=GenerationParams()))
        for s in load_suite(str(small_suite_path)).scenarios
    }
    calls = calls_by_process(log)
    assert set(calls) == {first.pid, resumed_pid(calls, first.pid)}
    second_calls = set(calls[resumed_pid(calls, first.pid)])
    assert not second_calls & {fingerprints[sid] for sid in finished_before}
    assert len(second_calls) == 30 - len(finished_before)


def resumed_pid(calls: dict[int, list[str]], first_pid: int) -> int:
    return next(pid for pid in calls if pid != first_pid)
