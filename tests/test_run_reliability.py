"""Nothing lost, nothing spent twice: real ``empathybench`` processes against real failures.

- a run SIGKILLed mid-way, and runs where most or all calls failed, are never ranked;
- two ``run`` processes into one directory: one runs, the other stops before any call;
- ``run --resume`` scores with the judges the run was started with;
- a judge whose every call is refused (HTTP 401) fails the ``judge`` command;
- a key inside ``--base-url`` never reaches manifest.json or report.html.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from empathybench.runtime.run_store import RunStore
from tests.fakes.cli_process import run_cli
from tests.fakes.fake_llm_server import FakeLLMServer, client_error, ok

posix_only = pytest.mark.skipif(os.name != "posix", reason="SIGKILL and flock are POSIX")


def run_args(suite: Path, run_dir: Path, model: str, *extra: str) -> list[str]:
    return [
        "run",
        "--suite",
        str(suite),
        "--model",
        model,
        "--no-cache",
        "--no-progress",
        "--run-dir",
        str(run_dir),
        *extra,
    ]


def start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "empathybench", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def kill_after(process: subprocess.Popen[str], responses: Path, records: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if responses.exists() and responses.read_text().count("\n") >= records:
            break
        time.sleep(0.005)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)


@posix_only
def test_killed_and_failed_runs_are_never_ranked(small_suite_path: Path, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    done = run_cli(*run_args(small_suite_path, runs / "complete", "mock/a", "--no-judge"))
    assert done.returncode == 0, done.stderr
    # Every call fails (auth errors are never retried), or about half of them do.
    for name, every in (("all-failed", "1"), ("half-failed", "2")):
        failed = run_cli(
            *run_args(small_suite_path, runs / name, f"mock/{name}", "--no-judge"),
            "--option",
            f"fail_every={every}",
            "--option",
            "fail_kind=auth",
            "--max-attempts",
            "1",
        )
        assert failed.returncode == 1, failed.stderr
    killed = start(
        *run_args(small_suite_path, runs / "killed", "mock/k", "--no-judge"),
        "--option",
        "latency=0.05",
        "--max-connections",
        "2",
    )
    kill_after(killed, runs / "killed" / "responses.jsonl", 6)
    assert RunStore(runs / "killed").read_manifest().status == "running"

    board_dir = tmp_path / "board"
    shown = run_cli("leaderboard", str(runs), "-o", str(board_dir))
    assert shown.returncode == 0, shown.stderr
    board = json.loads((board_dir / "leaderboard.json").read_text())
    assert [entry["model"] for entry in board["entries"]] == ["mock/a"]
    assert board["entries"][0]["responses"] == 30 and board["entries"][0]["failed"] == 0
    left_out = {Path(run["run_dir"]).name: run for run in board["left_out"]}
    assert set(left_out) == {"all-failed", "half-failed", "killed"}
    assert "interrupted" in left_out["killed"]["reason"]
    killed_counts = left_out["killed"]["counts"]
    assert killed_counts["items"] == 30 and 6 <= killed_counts["answered"] < 30
    assert killed_counts["missing"] == 30 - killed_counts["answered"]
    assert left_out["all-failed"]["counts"] == {
        "items": 30,
        "answered": 0,
        "failed": 30,
        "missing": 0,
    }
    half = left_out["half-failed"]["counts"]
    assert half["failed"] > 1 and half["answered"] + half["failed"] == 30
    assert "model calls failed" in left_out["half-failed"]["reason"]
    assert "left out mock/k: interrupted" in shown.stdout.replace("\n", " ")

    # Only runs that cannot be ranked: no board, no statistic from nothing, exit 1.
    for name in ("complete", "half-failed"):
        (runs / name / "manifest.json").rename(runs / name / "manifest.json.off")
    empty = run_cli("leaderboard", str(runs), "-o", str(tmp_path / "board2"))
    assert empty.returncode == 1
    assert "no run could be ranked" in empty.stderr
    assert "p=" not in empty.stdout
    assert json.loads((tmp_path / "board2" / "leaderboard.json").read_text())["entries"] == []

    analysis = run_cli("item-analysis", str(runs), "-o", str(tmp_path / "items"))
    assert analysis.returncode == 2
    assert "left out" in analysis.stderr and "no finished run" in analysis.stderr


@posix_only
def test_twin_runs_into_one_directory_answer_each_item_once(
    small_suite_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    run_dir = tmp_path / "twin"
    with FakeLLMServer(default=ok(latency=0.02)) as server:
        args = run_args(
            small_suite_path,
            run_dir,
            "openai-compatible/twin",
            "--base-url",
            server.openai_base_url,
            "--no-judge",
            "--max-connections",
            "2",
        )
        twins = [start(*args) for _ in range(3)]
        results = [(p.wait(timeout=120), p.stderr.read() if p.stderr else "") for p in twins]
        requests = server.count()
    codes = sorted(code for code, _ in results)
    assert codes[0] in (0, 1) and codes[1:] == [2, 2], results
    refused = [err for code, err in results if code == 2]
    assert all("is in use by process" in err and "Traceback" not in err for err in refused)
    assert requests == 30  # one request per item: the twins sent none
    assert len(RunStore(run_dir).read_responses()) == 30


@posix_only
def test_resume_keeps_the_judges_the_run_started_with(
    small_suite_path: Path, tmp_path: Path
) -> None:
    for judging in (["--judge", "mock/judge-x"], ["--no-judge"]):
        run_dir = tmp_path / judging[-1].replace("/", "-")
        first = start(
            *run_args(small_suite_path, run_dir, "mock/tested", *judging),
            "--option",
            "latency=0.05",
            "--max-connections",
            "2",
        )
        kill_after(first, run_dir / "responses.jsonl", 4)
        recorded = RunStore(run_dir).read_manifest().judging
        assert recorded is not None and recorded.no_judge == (judging == ["--no-judge"])
        resumed = run_cli("run", "--resume", str(run_dir), "--no-cache", "--no-progress")
        assert resumed.returncode == 0, resumed.stderr
        manifest = RunStore(run_dir).read_manifest()
        assert manifest.status == "complete"
        judged = [decision.judge for decision in manifest.judges]
        assert judged == (["mock/judge-x"] if judging[0] == "--judge" else [])
        assert RunStore(run_dir).judges_on_disk() == (
            ["mock-judge-x"] if judging[0] == "--judge" else []
        )
        other = run_cli("run", "--resume", str(run_dir), "--judge", "offline", "--no-progress")
        assert other.returncode == 2 and "keeps its judges" in other.stderr


def test_a_judge_refused_on_every_call_fails_the_command(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "wrong-key")
    with FakeLLMServer(default=client_error(401, "invalid api key")) as server:
        result = run_cli(
            "judge",
            str(run_dir),
            "--judge",
            "openai-compatible/judge",
            "--base-url",
            server.openai_base_url,
            "--no-cache",
            "--no-progress",
        )
        calls = server.count()
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert "error: judge openai-compatible/judge:" in result.stderr
    assert "401" in result.stderr
    assert calls >= 1
    # the failed verdicts are retried by the next judge call
    with FakeLLMServer(default=client_error(401)) as server:
        again = run_cli(
            "judge",
            str(run_dir),
            "--judge",
            "openai-compatible/judge",
            "--base-url",
            server.openai_base_url,
            "--no-cache",
            "--no-progress",
        )
        assert server.count() == calls
    assert again.returncode == 1


def test_key_checks_that_all_failed_are_not_a_clean_audit(
    run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "wrong-key")
    with FakeLLMServer(default=client_error(401, "invalid api key")) as server:
        result = run_cli(
            "item-analysis",
            str(run_dir),
            "-o",
            str(tmp_path / "items"),
            "--key-judge",
            "openai-compatible/keys",
            "--base-url",
            server.openai_base_url,
            "--no-cache",
        )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "flagged" not in result.stdout
    assert "error: judge openai-compatible/keys: 30 of 30" in result.stderr.replace("\n", " ")


@pytest.mark.parametrize("flag", ["--max-reasks=-1", "--max-connections=0"])
def test_judge_settings_that_would_do_nothing_are_refused(run_dir: Path, flag: str) -> None:
    result = run_cli("judge", str(run_dir), "--judge", "mock/judge-y", flag, "--no-progress")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    name = flag.split("=")[0]  # the library's parameter, shown as the user's flag
    assert result.stderr.startswith(f"error: {name}: ")
    assert RunStore(run_dir).judges_on_disk() == []


def test_a_key_in_the_server_url_is_never_recorded(
    small_suite_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    run_dir = tmp_path / "secret-run"
    with FakeLLMServer(default=ok()) as server:
        host = server.openai_base_url.removeprefix("http://")
        url = f"http://user:SECRET-IN-USERINFO@{host}"
        result = run_cli(
            *run_args(small_suite_path, run_dir, "openai-compatible/m", "--no-judge"),
            "--base-url",
            url,
            "--limit",
            "3",
        )
        assert result.returncode == 0, result.stderr
        report = run_cli("report", str(run_dir))
        assert report.returncode == 0, report.stderr
        missing = run_cli("run", "--resume", str(run_dir), "--no-progress")
        assert missing.returncode == 2 and "--base-url" in missing.stderr
        resumed = run_cli("run", "--resume", str(run_dir), "--base-url", url, "--no-progress")
        assert resumed.returncode == 0, resumed.stderr
    written = [run_dir / "manifest.json", run_dir / "report.html", run_dir / "summary.json"]
    for path in written:
        assert "SECRET" not in path.read_text(encoding="utf-8"), path
    assert "REDACTED@127.0.0.1" in (run_dir / "manifest.json").read_text()
    outputs = result.stdout + result.stderr + resumed.stdout + resumed.stderr
    assert "SECRET" not in outputs
