"""Runner throughput against a local OpenAI-compatible server with a fixed 100 ms latency.

1,000 requests at concurrency 50, so the ideal wall time is 1000 / 50 × 0.1 s = 2.0 s and
efficiency = 2.0 s / measured wall. Rows:

* raw httpx      - a bare ``httpx.AsyncClient`` loop: the ceiling of this server and machine
* raw openai SDK - the same loop through ``openai.AsyncOpenAI`` (what our adapter uses)
* empathybench   - ``execute_run`` end to end (manifest, retries, responses.jsonl, ...) with
  the lean aiohttp client (the default for openai-compatible servers), and once more with
  ``--option client=sdk`` (the openai SDK adapter)
* Inspect AI     - ``inspect_ai.eval`` with a plain ``generate()`` solver, no scorer, retries
  off, display "none", default logging; and once more with ``log_realtime=False`` (every sample
  still lands in the final log). Skipped, with a message, when inspect_ai cannot be imported:
  it is not a project dependency (``.venv/bin/pip install inspect-ai``)

Every measurement runs in its own child process (Inspect patches asyncio with nest_asyncio,
which must not leak into the other rows), after an untimed 50-request warm-up in that child
against a separate warm-up server, so imports and first-use costs are not in the timings.
The fake server (tests/fakes/fake_llm_server.py) runs in its own process too, so client and
server do not share a GIL; a fresh one per measurement gives exact request counts and
in-flight peaks. Rounds are interleaved (each round runs every system once); the table shows
the median of the rounds. "request phase" is what the server saw: last request arrival −
first arrival + latency, i.e. the wall time minus client startup and teardown.

    python benchmarks/runner.py [--rounds 3] [--requests 1000] [--concurrency 50]
    python benchmarks/runner.py --profile      # cProfile one empathybench run, print the top

The parts live in ``benchmarks/runner_bench/`` (systems, servers, clients, measurement,
profiling, report); this script parses the options and runs the rounds.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from runner_bench.measurement import check, child, measure, summarise
from runner_bench.profiling import profile
from runner_bench.report import inspect_available, print_report, write_report
from runner_bench.servers import ServerProcess, serve
from runner_bench.systems import INSPECT, LABELS, LATENCY_S, SYSTEMS, WARMUP_REQUESTS


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--systems", nargs="+", choices=SYSTEMS, default=list(SYSTEMS))
    parser.add_argument("--profile", action="store_true", help="cProfile one empathybench run")
    parser.add_argument(
        "--server-nagle",
        action="store_true",
        help="leave the fake server's Nagle algorithm on, as http.server does (+~40 ms/request)",
    )
    parser.add_argument("--serve", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--child", choices=SYSTEMS, help=argparse.SUPPRESS)
    parser.add_argument("--suite", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--warm-url", help=argparse.SUPPRESS)
    parser.add_argument("--workdir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        return serve(args.serve, args.server_nagle)
    if args.child:
        return child(args)

    from empathybench.scenarios.generator import generate_records
    from empathybench.scenarios.suites import write_scenarios

    n, concurrency = args.requests, args.concurrency
    ServerProcess.nagle = args.server_nagle
    ideal = n / concurrency * LATENCY_S
    systems = list(args.systems)
    skipped: dict[str, str] = {}
    if any(system in INSPECT for system in systems):
        available, why = inspect_available()
        if not available:
            print(
                f"Inspect AI row skipped: cannot import inspect_ai ({why}).\n"
                "  It is not an empathybench dependency; to include it: "
                ".venv/bin/pip install inspect-ai",
                flush=True,
            )
            for system in INSPECT:
                if system in systems:
                    systems.remove(system)
                    skipped[system] = why

    with tempfile.TemporaryDirectory(prefix="eb-bench-runner-") as directory:
        tmp = Path(directory)
        suite = tmp / "suite.jsonl"
        write_scenarios(
            suite, generate_records(max(n, WARMUP_REQUESTS), seed=1, template_version="v1")
        )
        if args.profile:
            return profile(suite, tmp, n, concurrency)
        trials: dict[str, list[dict[str, Any]]] = {system: [] for system in systems}
        problems: list[str] = []
        started = time.perf_counter()
        for round_number in range(args.rounds):
            for system in systems:
                workdir = tmp / f"{system}-{round_number}"
                workdir.mkdir()
                result = measure(system, suite, workdir, n, concurrency)
                problems += [
                    f"{system} round {round_number}: {p}" for p in check(system, result, n)
                ]
                trials[system].append(result)
                print(
                    f"round {round_number + 1}/{args.rounds} {LABELS[system]:<20} "
                    f"wall {result['wall_s']:.3f} s, "
                    f"request phase {result['request_phase_s']:.3f} s, "
                    f"server max in-flight {result['server']['max_in_flight']}",
                    flush=True,
                )
        total = time.perf_counter() - started

    rows = [summarise(system, trials[system], ideal, n) for system in systems]
    comparisons = print_report(rows, skipped, problems, n, concurrency, ideal, args.rounds)
    out = write_report(
        rows,
        comparisons,
        skipped,
        problems,
        trials,
        n=n,
        concurrency=concurrency,
        ideal=ideal,
        rounds=args.rounds,
        server_nagle=args.server_nagle,
        total=total,
    )
    print(f"wrote {out} (benchmark took {total:.0f} s)")
    if problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
