"""The runner against a real HTTP server on 127.0.0.1 that misbehaves in every common way.

The OpenAI-compatible adapter talks to the fake server; each prompt is assigned a fault by
a hash of its text. The run must complete, every item must end with a response or an
explicit error, no successful item may be requested again, and a planted API key must
never be written anywhere.
"""

import asyncio
import hashlib
from pathlib import Path
from typing import Any

import pytest

from empathybench.models.registry import parse_model_id
from empathybench.records import Suite
from empathybench.runner import RunOptions, RunResult, execute_run
from tests.fakes.fake_llm_server import (
    Behaviour,
    FakeLLMServer,
    client_error,
    drop_connection,
    empty_content,
    malformed_json,
    ok,
    prompt_of,
    rate_limit,
    server_error,
    slow,
)

PLANTED_KEY = "sk-test-PLANTED-SECRET-4242"
FAULTS = ["ok", "429", "500", "slow", "malformed", "empty", "drop", "400"]


def fault_of(prompt: str | None) -> str:
    return FAULTS[hashlib.sha256((prompt or "").encode()).digest()[0] % len(FAULTS)]


def script(body: Any, attempt: int) -> Behaviour:
    fault = fault_of(prompt_of(body))
    first = attempt == 1
    if fault == "429" and first:
        return rate_limit(retry_after=0)
    if fault == "500" and first:
        return server_error(500)
    if fault == "slow" and first:
        return slow(2.0)
    if fault == "malformed" and first:
        return malformed_json()
    if fault == "empty":
        return empty_content()
    if fault == "drop" and first:
        return drop_connection()
    if fault == "400":
        return client_error(400, "prompt rejected")
    return ok(latency=0.01)


def run_against(
    server: FakeLLMServer, suite: Suite, run_dir: Path, cache: Path, client: str = "lean"
) -> RunResult:
    spec = parse_model_id(
        "openai-compatible/fake-model",
        base_url=server.openai_base_url,
        options={"timeout": 0.5, "client": client},
    )
    options = RunOptions(
        suite=suite,
        suite_source="small",
        spec=spec,
        run_dir=run_dir,
        max_connections=6,
        max_attempts=3,
        max_backoff_s=0.01,
        cache_path=cache,
    )
    return asyncio.run(execute_run(options))


@pytest.mark.parametrize("client", ["lean", "sdk"])
def test_faults_end_in_answers_or_explicit_errors_and_nothing_is_billed_twice(
    small_suite: Suite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, client: str
) -> None:
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", PLANTED_KEY)
    prompts = {s.id: s.messages[-1].content for s in small_suite.scenarios}
    faults = {sid: fault_of(prompt) for sid, prompt in prompts.items()}
    assert {"ok", "empty", "400"} <= set(faults.values()), "the suite should exercise faults"
    with FakeLLMServer(script=script) as server:
        result = run_against(
            server, small_suite, tmp_path / "run", tmp_path / "cache.sqlite", client
        )
        assert len(result.responses) == len(small_suite.scenarios)
        for (sid, _), response in result.responses.items():
            fault = faults[sid]
            if fault == "empty":
                assert response.error and response.error.kind == "bad_response"
                assert response.attempts == 3
            elif fault == "400":
                assert response.error and response.error.kind == "client"
                assert response.attempts == 1
            else:
                assert response.ok, (fault, response.error)
                assert response.attempts == (1 if fault == "ok" else 2)
                assert response.text and response.text.startswith("EMOTION: A")
            assert server.count(prompt=prompts[sid]) == response.attempts
        assert result.manifest.status == "incomplete"

        before = {sid: server.count(prompt=p) for sid, p in prompts.items()}
        again = run_against(
            server, small_suite, tmp_path / "run", tmp_path / "cache.sqlite", client
        )
        for sid, prompt in prompts.items():
            sent_now = server.count(prompt=prompt) - before[sid]
            if faults[sid] in ("empty", "400"):
                assert sent_now >= 1  # failed items are tried again on resume
            else:
                assert sent_now == 0  # finished items are never requested twice
        assert again.skipped == sum(f not in ("empty", "400") for f in faults.values())

        # The key reached the server, and nowhere else.
        assert any(
            r.headers.get("authorization") == f"Bearer {PLANTED_KEY}" for r in server.requests
        )
    for path in [*tmp_path.rglob("*")]:
        if path.is_file():
            assert PLANTED_KEY.encode() not in path.read_bytes(), path


@pytest.mark.parametrize("client", ["lean", "sdk"])
def test_concurrency_is_bounded_by_max_connections(
    small_suite: Suite, tmp_path: Path, client: str
) -> None:
    with FakeLLMServer(default=ok(latency=0.1)) as server:
        run_against(server, small_suite, tmp_path / "run", tmp_path / "cache.sqlite", client)
        assert 2 <= server.max_in_flight <= 6


def test_the_key_never_reaches_output_or_files_from_the_command_line(
    small_suite_path: Path, tmp_path: Path
) -> None:
    """A 401 whose body echoes the credential (as some providers do) must not leak it."""
    import os
    import subprocess
    import sys

    env = {
        **os.environ,
        "OPENAI_COMPATIBLE_API_KEY": PLANTED_KEY,
        "EMPATHYBENCH_CACHE": str(tmp_path / "cache.sqlite"),
    }
    with FakeLLMServer(default=client_error(401)) as server:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "empathybench",
                "run",
                "--suite",
                str(small_suite_path),
                "--model",
                "openai-compatible/fake",
                "--base-url",
                server.openai_base_url,
                "--limit",
                "3",
                "--run-dir",
                str(tmp_path / "run"),
                "--no-progress",
                "--no-judge",
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert server.count() == 3  # auth failures are not retried
    assert result.returncode == 1  # the run finished with failed items
    assert PLANTED_KEY not in result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    responses = (tmp_path / "run" / "responses.jsonl").read_text()
    assert '"kind":"auth"' in responses
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert PLANTED_KEY.encode() not in path.read_bytes(), path
