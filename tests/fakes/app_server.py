"""``empathybench ui`` as a child process for browser tests: a free port, wait until it serves."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

STARTUP_TIMEOUT_S = 120


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until_serving(url: str, process: subprocess.Popen[bytes], stderr: Path) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(
                f"empathybench ui exited with {process.returncode}:\n{stderr.read_text()}",
                pytrace=False,
            )
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    pytest.fail(
        f"empathybench ui did not answer within {STARTUP_TIMEOUT_S} s:\n{stderr.read_text()}",
        pytrace=False,
    )


def stop(process: subprocess.Popen[bytes]) -> None:
    """Terminate the server (kill it if it does not stop) and reap it."""
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=15)
