"""What ``benchmarks/runner.py`` measures: the systems, their labels, the server latency."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
SCRIPT = ROOT / "benchmarks" / "runner.py"
"""The script every child process runs (``--serve``, ``--child``)."""
LATENCY_S = 0.1
WARMUP_REQUESTS = 50
SYSTEMS = (
    "raw_socket",
    "raw_httpx",
    "raw_openai",
    "empathybench",
    "empathybench_sdk",
    "inspect_ai",
    "inspect_ai_lean",
)
EMPATHYBENCH = {"empathybench": "lean", "empathybench_sdk": "sdk"}
INSPECT = ("inspect_ai", "inspect_ai_lean")
LABELS = {
    "raw_socket": "raw asyncio sockets",
    "raw_httpx": "raw httpx baseline",
    "raw_openai": "raw openai SDK",
    "empathybench": "empathybench runner",
    "empathybench_sdk": "  --option client=sdk",
    "inspect_ai": "Inspect AI",
    "inspect_ai_lean": "  log_realtime=False",
}
