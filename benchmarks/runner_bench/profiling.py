"""``--profile``: client CPU per request layer by layer, then cProfile of one empathybench run."""

from __future__ import annotations

import gc
from collections import Counter
from pathlib import Path
from typing import Any

from runner_bench.clients import (
    chat_bodies,
    openai_post,
    raw_httpx2,
    raw_openai,
    raw_socket,
    run_empathybench,
)
from runner_bench.meter import Meter
from runner_bench.servers import ServerProcess
from runner_bench.systems import LATENCY_S, WARMUP_REQUESTS


def profile(suite: Path, workdir: Path, n: int, concurrency: int) -> None:
    """Client CPU per request, layer by layer, then cProfile of one empathybench run.

    Each layer adds one thing to the one before: bare sockets → httpx2 (the SDK's transport)
    → the SDK's request machinery (``client.post``) → ``chat.completions.create`` (params
    transform + ChatCompletion model) → ``execute_run``.
    """
    import asyncio
    import cProfile
    import pstats

    bodies = chat_bodies(str(suite), n)
    layers = {
        "raw asyncio sockets": raw_socket,
        "httpx2.AsyncClient": raw_httpx2,
        "openai client.post": openai_post,
        "openai create()": raw_openai,
    }

    def show(name: str, result: dict[str, Any]) -> None:
        print(
            f"{name:<22} {result['wall_s']:>7.3f} {result['client_cpu_s']:>6.3f} "
            f"{result['client_cpu_s'] / n * 1000:>10.2f} {result['gc_s']:>6.3f} "
            f"{'/'.join(map(str, result['gc_collections_by_generation'])):>14}"
        )

    print(f"{n} requests at concurrency {concurrency}, each layer after a warm-up")
    print(
        f"{'layer':<22} {'wall s':>7} {'CPU s':>6} {'CPU ms/req':>10} {'GC s':>6} "
        f"{'GC runs 0/1/2':>14}"
    )
    for name, runner in layers.items():
        with ServerProcess(LATENCY_S) as server:
            asyncio.run(runner(server.base_url, bodies[:WARMUP_REQUESTS], concurrency))
            with Meter() as meter:
                ok = asyncio.run(runner(server.base_url, bodies, concurrency))
        assert ok == n, f"{name}: {ok} of {n} ok"
        show(name, meter.fields())
    with ServerProcess(LATENCY_S) as warm, ServerProcess(LATENCY_S) as server:
        run_empathybench(warm.base_url, str(suite), workdir / "warm", WARMUP_REQUESTS, concurrency)
        show(
            "execute_run",
            run_empathybench(server.base_url, str(suite), workdir / "plain", n, concurrency),
        )
    with ServerProcess(LATENCY_S) as server:
        show(
            "execute_run, n=1", run_empathybench(server.base_url, str(suite), workdir / "one", 1, 1)
        )
    with ServerProcess(LATENCY_S) as server:
        # what only the cyclic GC can free: collect it all, then count it by type
        gc.collect()
        gc.disable()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            run_empathybench(server.base_url, str(suite), workdir / "garbage", n, concurrency)
            found = gc.collect()
            kinds = Counter(f"{type(o).__module__}.{type(o).__qualname__}" for o in gc.garbage)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
        print(f"\nexecute_run left {found} objects in reference cycles ({found / n:.1f}/request):")
        for kind, count in kinds.most_common(20):
            print(f"{count:>8}  {kind}")
    with ServerProcess(LATENCY_S) as server:
        profiler = cProfile.Profile()
        profiler.enable()
        result = run_empathybench(server.base_url, str(suite), workdir / "run", n, concurrency)
        profiler.disable()
        print(f"\ncProfile of execute_run: wall {result['wall_s']:.3f} s under the profiler")
    stats = pstats.Stats(profiler)
    stats.sort_stats("cumulative").print_stats(40)
    stats.sort_stats("tottime").print_stats(20)
