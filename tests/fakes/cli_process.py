"""Run the ``empathybench`` command in a real child process, as users do."""

import subprocess
import sys
from pathlib import Path


def run_cli(
    *args: str, cwd: Path | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "empathybench", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
    )
