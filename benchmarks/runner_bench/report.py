"""The report: the table printed, the comparisons with Inspect AI, and ``runner.json``."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

from runner_bench.systems import INSPECT, LABELS, LATENCY_S, ROOT, WARMUP_REQUESTS


def versions() -> dict[str, str | None]:
    from importlib.metadata import PackageNotFoundError, version

    found: dict[str, str | None] = {}
    for name in ("empathybench", "inspect_ai", "openai", "httpx", "httpx2", "pydantic", "tenacity"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = None
    return found


def machine() -> dict[str, Any]:
    cpu = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
    }


def inspect_available() -> tuple[bool, str]:
    probe = subprocess.run(
        [sys.executable, "-c", "import inspect_ai"], capture_output=True, text=True
    )
    if probe.returncode == 0:
        return True, ""
    last = (probe.stderr.strip().splitlines() or ["?"])[-1]
    return False, last


def print_report(
    rows: list[dict[str, Any]],
    skipped: dict[str, str],
    problems: list[str],
    n: int,
    concurrency: int,
    ideal: float,
    rounds: int,
) -> dict[str, float]:
    """Print the table and the comparisons with Inspect AI; return the comparisons."""
    by_system = {row["system"]: row for row in rows}
    print()
    print(
        f"{n} requests, concurrency {concurrency}, server latency {LATENCY_S * 1000:.0f} ms: "
        f"ideal {ideal:.2f} s; median of {rounds} rounds"
    )
    print(
        f"{'':<21} {'wall s':>7} {'req/s':>7} {'efficiency':>10} {'req-phase s':>11} "
        f"{'phase eff':>9} {'max in-flight':>13} {'client CPU ms/req':>17}"
    )
    for row in rows:
        print(
            f"{LABELS[row['system']]:<21} {row['wall_s_median']:>7.3f} "
            f"{row['requests_per_s']:>7.1f} {row['efficiency']:>10.3f} "
            f"{row['request_phase_s_median']:>11.3f} {row['request_phase_efficiency']:>9.3f} "
            f"{row['server_max_in_flight']:>13} {row['client_cpu_ms_per_request_median']:>17.2f}"
        )
    for system, why in skipped.items():
        print(f"{LABELS[system]:<21} skipped: cannot import inspect_ai ({why})")
    print(
        "wall: the measured call, after an untimed warm-up in the same process; req-phase: "
        "what the server saw\n(last arrival − first arrival + latency), i.e. without client "
        "startup/teardown; efficiency = ideal / time."
    )
    comparisons: dict[str, float] = {}
    eb = by_system.get("empathybench")
    for system in INSPECT:
        ins = by_system.get(system)
        if eb is None or ins is None:
            continue
        by_wall = round(eb["requests_per_s"] / ins["requests_per_s"], 2)
        by_phase = round(ins["request_phase_s_median"] / eb["request_phase_s_median"], 2)
        minus_one = ins["wall_minus_one_sample_s_median"]
        comparisons[f"empathybench_over_{system}_by_wall"] = by_wall
        comparisons[f"empathybench_over_{system}_by_request_phase"] = by_phase
        comparisons[f"empathybench_over_{system}_by_wall_minus_one_sample_eval"] = round(
            minus_one / eb["wall_s_median"], 2
        )
        print(
            f"{'Inspect AI' if system == 'inspect_ai' else 'Inspect AI, log_realtime=False'}: "
            f"1-sample eval {ins['one_sample_eval_wall_s_median']:.3f} s (per-eval fixed cost), "
            f"wall minus that {minus_one:.3f} s, Inspect's own started→completed "
            f"{ins.get('inspect_reported_s_median', float('nan')):.3f} s (1 s resolution); "
            f"empathybench is {by_wall:.2f}× faster by wall, {by_phase:.2f}× by request phase"
        )
    if problems:
        print("\nPROBLEMS:\n  " + "\n  ".join(problems))

    return comparisons


def write_report(
    rows: list[dict[str, Any]],
    comparisons: dict[str, float],
    skipped: dict[str, str],
    problems: list[str],
    trials: dict[str, list[dict[str, Any]]],
    *,
    n: int,
    concurrency: int,
    ideal: float,
    rounds: int,
    server_nagle: bool,
    total: float,
) -> Path:
    """Write ``benchmarks/results/runner.json``."""
    out = ROOT / "benchmarks" / "results" / "runner.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "machine": machine(),
                "versions": versions(),
                "setup": {
                    "requests": n,
                    "concurrency": concurrency,
                    "server_latency_s": LATENCY_S,
                    "ideal_s": ideal,
                    "rounds": rounds,
                    "warmup_requests": WARMUP_REQUESTS,
                    "server_nagle": server_nagle,
                    "notes": (
                        "each measurement in its own child process after an untimed warm-up; "
                        "fake server in its own process, fresh per measurement; "
                        "request_phase_s = server-observed last-first arrival + latency"
                    ),
                },
                "results": rows,
                "comparisons": comparisons,
                "skipped": skipped,
                "problems": problems,
                "trials": trials,
                "benchmark_wall_s": round(total, 1),
            },
            indent=2,
        )
        + "\n"
    )
    return out
