"""One measurement: a child process per system against a fresh fake server, checked, and the
median row of its rounds."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from runner_bench.clients import (
    chat_bodies,
    inspect_task,
    raw_httpx,
    raw_openai,
    raw_socket,
    run_empathybench,
    run_inspect,
)
from runner_bench.meter import Meter
from runner_bench.servers import ServerProcess
from runner_bench.systems import EMPATHYBENCH, INSPECT, LATENCY_S, SCRIPT, WARMUP_REQUESTS


def child(args: argparse.Namespace) -> None:
    import asyncio

    system, n, concurrency = args.child, args.requests, args.concurrency
    workdir = Path(args.workdir)
    result: dict[str, Any]
    if system in ("raw_socket", "raw_httpx", "raw_openai"):
        runner = {"raw_socket": raw_socket, "raw_httpx": raw_httpx, "raw_openai": raw_openai}[
            system
        ]
        bodies = chat_bodies(args.suite, n)
        asyncio.run(runner(args.warm_url, bodies[:WARMUP_REQUESTS], concurrency))
        with Meter() as meter:
            ok = asyncio.run(runner(args.url, bodies, concurrency))
        result = {**meter.fields(), "ok": ok, "responses": len(bodies)}
    elif system in EMPATHYBENCH:
        client = EMPATHYBENCH[system]
        run_empathybench(
            args.warm_url, args.suite, workdir / "warmup", WARMUP_REQUESTS, concurrency, client
        )
        result = run_empathybench(args.url, args.suite, workdir / "run", n, concurrency, client)
    else:
        os.environ.setdefault("FAKE_API_KEY", "not-needed")
        os.environ["INSPECT_DISPLAY"] = "none"
        # warm-up, then a 1-sample eval (per-eval fixed cost), both on the warm-up server
        options = {"log_realtime": False} if system == "inspect_ai_lean" else {}
        warmup = inspect_task(args.suite, WARMUP_REQUESTS)
        run_inspect(warmup, args.warm_url, workdir / "w", concurrency, **options)
        one = run_inspect(inspect_task(args.suite, 1), args.warm_url, workdir / "one", 1, **options)
        task = inspect_task(args.suite, n)
        result = run_inspect(task, args.url, workdir / "logs", concurrency, **options)
        result["one_sample_wall_s"] = one["wall_s"]
    print("RESULT " + json.dumps(result), flush=True)


def measure(system: str, suite: Path, workdir: Path, n: int, concurrency: int) -> dict[str, Any]:
    with ServerProcess(LATENCY_S) as warm, ServerProcess(LATENCY_S) as server:
        command = [
            sys.executable,
            str(SCRIPT),
            "--child",
            system,
            "--suite",
            str(suite),
            "--url",
            server.base_url,
            "--warm-url",
            warm.base_url,
            "--workdir",
            str(workdir),
            "--requests",
            str(n),
            "--concurrency",
            str(concurrency),
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=workdir)
        lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
        if done.returncode != 0 or not lines:
            raise RuntimeError(f"{system} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
        result: dict[str, Any] = json.loads(lines[-1].removeprefix("RESULT "))
        result["server"] = server.stats()
    result["request_phase_s"] = result["server"]["arrival_window_s"] + LATENCY_S
    return result


def check(system: str, result: dict[str, Any], n: int) -> list[str]:
    problems = []
    if result["ok"] != n:
        problems.append(f"{result['ok']} of {n} responses ok")
    if result["server"]["chat_requests"] != n or result["server"]["count"] != n:
        problems.append(f"server received {result['server']['count']} requests, expected {n}")
    if result["server"]["distinct_prompts"] != n:
        problems.append(f"server saw {result['server']['distinct_prompts']} distinct prompts")
    if system in EMPATHYBENCH and (result["jsonl_lines"] != n or result["status"] != "complete"):
        problems.append(f"run {result['status']} with {result['jsonl_lines']} jsonl lines")
    if system in INSPECT and result["status"] != "success":
        problems.append(f"eval status {result['status']}")
    return problems


def summarise(system: str, trials: list[dict[str, Any]], ideal: float, n: int) -> dict[str, Any]:
    wall = statistics.median(t["wall_s"] for t in trials)
    phase = statistics.median(t["request_phase_s"] for t in trials)
    row = {
        "system": system,
        "wall_s_median": round(wall, 3),
        "requests_per_s": round(n / wall, 1),
        "efficiency": round(ideal / wall, 3),
        "request_phase_s_median": round(phase, 3),
        "request_phase_efficiency": round(ideal / phase, 3),
        "server_max_in_flight": max(t["server"]["max_in_flight"] for t in trials),
        "client_cpu_ms_per_request_median": round(
            statistics.median(t["client_cpu_s"] for t in trials) / n * 1000, 2
        ),
    }
    if system in INSPECT:
        one = statistics.median(t["one_sample_wall_s"] for t in trials)
        excl = [t["wall_s"] - t["one_sample_wall_s"] for t in trials]
        row["one_sample_eval_wall_s_median"] = round(one, 3)
        row["wall_minus_one_sample_s_median"] = round(statistics.median(excl), 3)
        reported = [t["inspect_reported_s"] for t in trials if t["inspect_reported_s"] is not None]
        if reported:
            row["inspect_reported_s_median"] = round(statistics.median(reported), 3)
    return row
