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
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
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


# ----------------------------------------------------------------------------------------
# the fake server, in its own process: prints its base URL, answers "stats" on stdin, and
# stops at EOF


def serve(latency: float, nagle: bool) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.fakes import fake_llm_server
    from tests.fakes.fake_llm_server import OPENAI_PATH, FakeLLMServer, ok

    # http.server leaves Nagle on and writes the headers and the body in two sends, so each
    # response's body waits for the client's delayed ACK (~40 ms on Linux): 100 ms latency
    # becomes ~145 ms for every client. Real servers (uvicorn, vLLM, ...) set TCP_NODELAY.
    fake_llm_server._Handler.disable_nagle_algorithm = not nagle
    with FakeLLMServer(default=ok(latency=latency)) as server:
        print(server.openai_base_url, flush=True)
        for line in sys.stdin:
            if line.strip() == "stats":
                requests = [r for r in server.requests if r.path == OPENAI_PATH]
                times = [r.time for r in requests]
                print(
                    json.dumps(
                        {
                            "count": server.count(),
                            "chat_requests": len(requests),
                            "distinct_prompts": len({r.prompt for r in requests}),
                            "max_in_flight": server.max_in_flight,
                            "arrival_window_s": (max(times) - min(times)) if times else 0.0,
                        }
                    ),
                    flush=True,
                )


class ServerProcess:
    nagle = False

    def __init__(self, latency: float) -> None:
        command = [sys.executable, __file__, "--serve", str(latency)]
        self.process = subprocess.Popen(
            command + (["--server-nagle"] if self.nagle else []),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        self.base_url = self.process.stdout.readline().strip()
        if not self.base_url.startswith("http://127.0.0.1:"):
            self.close()
            raise RuntimeError(f"the fake server did not start (said {self.base_url!r})")

    def stats(self) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write("stats\n")
        self.process.stdin.flush()
        stats: dict[str, Any] = json.loads(self.process.stdout.readline())
        return stats

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ----------------------------------------------------------------------------------------
# one measurement, in a child process


class Meter:
    """Wall time, process CPU time and cyclic-GC time (with collections per generation)."""

    def __enter__(self) -> Meter:
        self.gc_s, self.collections, self._gc_started = 0.0, [0, 0, 0], 0.0
        gc.callbacks.append(self._on_gc)
        self.cpu_s, self.wall_s = time.process_time(), time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall_s = time.perf_counter() - self.wall_s
        self.cpu_s = time.process_time() - self.cpu_s
        gc.callbacks.remove(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            self.gc_s += time.perf_counter() - self._gc_started
            self.collections[info["generation"]] += 1

    def fields(self) -> dict[str, Any]:
        return {
            "wall_s": self.wall_s,
            "client_cpu_s": self.cpu_s,
            "gc_s": self.gc_s,
            "gc_collections_by_generation": self.collections,
        }


def _bodies(suite_path: str, n: int) -> list[dict[str, Any]]:
    """The chat bodies empathybench sends for the suite's first ``n`` items (plain strategy)."""
    from empathybench.models.base import GenerationParams
    from empathybench.prompts.strategies import apply_strategy, get_strategy
    from empathybench.scenarios.suites import load_suite

    strategy, params = get_strategy("plain"), GenerationParams()
    return [
        {
            "model": "bench",
            "messages": [
                {"role": m.role, "content": m.content}
                for m in apply_strategy(strategy, scenario.messages, None)
            ],
            "temperature": params.temperature,
            "max_tokens": params.max_tokens,
        }
        for scenario in load_suite(suite_path).scenarios[:n]
    ]


async def _pool(bodies: list[dict[str, Any]], concurrency: int, send: Any) -> int:
    import asyncio

    work = iter(bodies)
    ok = 0

    async def worker() -> None:
        nonlocal ok
        for body in work:
            good = await send(body)  # not `ok += await ...`: that reads ok before awaiting
            ok += good

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return ok


async def _raw_socket(base_url: str, bodies: list[dict[str, Any]], concurrency: int) -> int:
    """The least client work possible: one keep-alive HTTP/1.1 connection per worker, stdlib
    only. This is the ceiling of the server (and of this machine) for the other rows."""
    import asyncio
    from urllib.parse import urlsplit

    parts = urlsplit(base_url)
    host, port, path = parts.hostname or "127.0.0.1", parts.port, f"{parts.path}/chat/completions"
    work = iter(bodies)
    ok = 0

    async def worker() -> None:
        nonlocal ok
        writer = None
        try:
            for body in work:
                if writer is None:
                    reader, writer = await asyncio.open_connection(host, port)
                data = json.dumps(body).encode()
                head = (
                    f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                    "Content-Type: application/json\r\nAuthorization: Bearer x\r\n"
                    f"Content-Length: {len(data)}\r\n\r\n"
                )
                writer.write(head.encode() + data)
                reply = await reader.readuntil(b"\r\n\r\n")
                lines = reply.split(b"\r\n")
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in lines
                    if line.lower().startswith(b"content-length:")
                )
                payload = json.loads(await reader.readexactly(length))
                good = lines[0].split()[1] == b"200" and bool(
                    payload["choices"][0]["message"]["content"]
                )
                ok += good
        finally:
            if writer is not None:
                writer.close()
                await writer.wait_closed()

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return ok


async def _raw_httpx(base_url: str, bodies: list[dict[str, Any]], concurrency: int) -> int:
    import httpx

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=60) as client:

        async def send(body: dict[str, Any]) -> bool:
            reply = await client.post(
                "/chat/completions", json=body, headers={"Authorization": "Bearer x"}
            )
            return reply.status_code == 200 and bool(
                reply.json()["choices"][0]["message"]["content"]
            )

        return await _pool(bodies, concurrency, send)


async def _raw_openai(base_url: str, bodies: list[dict[str, Any]], concurrency: int) -> int:
    import openai

    client = openai.AsyncOpenAI(base_url=base_url, api_key="x", max_retries=0, timeout=60)
    try:

        async def send(body: dict[str, Any]) -> bool:
            completion = await client.chat.completions.create(**body)
            return bool(completion.choices[0].message.content)

        return await _pool(bodies, concurrency, send)
    finally:
        await client.close()


def _empathybench(
    base_url: str, suite_path: str, run_dir: Path, n: int, concurrency: int, client: str = "lean"
) -> dict[str, Any]:
    import asyncio

    from empathybench.models.registry import parse_model_id
    from empathybench.runner import RunOptions, execute_run
    from empathybench.scenarios.suites import load_suite

    suite = load_suite(suite_path)  # outside the timing, like Inspect's dataset
    options = RunOptions(
        suite=suite,
        suite_source=suite_path,
        spec=parse_model_id(
            "openai-compatible/bench", base_url=base_url, options={"client": client}
        ),
        run_dir=run_dir,
        limit=n,
        max_connections=concurrency,
        cache_path=None,
    )
    with Meter() as meter:
        result = asyncio.run(execute_run(options))
    lines = (run_dir / "responses.jsonl").read_text(encoding="utf-8").count("\n")
    return {
        **meter.fields(),
        "ok": sum(r.ok for r in result.responses.values()),
        "responses": len(result.responses),
        "jsonl_lines": lines,
        "status": result.manifest.status,
        "manifest_wall_s": result.manifest.totals.wall_s,
    }


def _inspect_task(suite_path: str, n: int) -> Any:
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser
    from inspect_ai.solver import generate

    kinds = {
        "system": ChatMessageSystem,
        "user": ChatMessageUser,
        "assistant": ChatMessageAssistant,
    }
    samples = [
        Sample(
            id=index,
            input=[kinds[m["role"]](content=m["content"]) for m in body["messages"]],
        )
        for index, body in enumerate(_bodies(suite_path, n))
    ]
    return Task(dataset=MemoryDataset(samples), solver=generate(), scorer=None, name="bench")


def _inspect_eval(
    task: Any, base_url: str, log_dir: Path, concurrency: int, **options: Any
) -> dict[str, Any]:
    from datetime import datetime

    from inspect_ai import eval as inspect_eval

    with Meter() as meter:
        logs = inspect_eval(
            task,
            model="openai-api/fake/bench",
            model_base_url=base_url,
            max_connections=concurrency,
            max_retries=0,
            temperature=0.0,
            max_tokens=400,
            display="none",
            log_dir=str(log_dir),
            score=False,
            **options,
        )
    log = logs[0]
    samples = log.samples or []
    stats = log.stats
    own = (
        (
            datetime.fromisoformat(stats.completed_at) - datetime.fromisoformat(stats.started_at)
        ).total_seconds()
        if stats.started_at and stats.completed_at
        else None
    )
    return {
        **meter.fields(),
        "inspect_reported_s": own,
        "status": log.status,
        "samples": len(samples),
        "ok": sum(1 for s in samples if s.error is None and s.output.completion),
    }


def child(args: argparse.Namespace) -> None:
    import asyncio

    system, n, concurrency = args.child, args.requests, args.concurrency
    workdir = Path(args.workdir)
    result: dict[str, Any]
    if system in ("raw_socket", "raw_httpx", "raw_openai"):
        runner = {"raw_socket": _raw_socket, "raw_httpx": _raw_httpx, "raw_openai": _raw_openai}[
            system
        ]
        bodies = _bodies(args.suite, n)
        asyncio.run(runner(args.warm_url, bodies[:WARMUP_REQUESTS], concurrency))
        with Meter() as meter:
            ok = asyncio.run(runner(args.url, bodies, concurrency))
        result = {**meter.fields(), "ok": ok, "responses": len(bodies)}
    elif system in EMPATHYBENCH:
        client = EMPATHYBENCH[system]
        _empathybench(
            args.warm_url, args.suite, workdir / "warmup", WARMUP_REQUESTS, concurrency, client
        )
        result = _empathybench(args.url, args.suite, workdir / "run", n, concurrency, client)
    else:
        os.environ.setdefault("FAKE_API_KEY", "not-needed")
        os.environ["INSPECT_DISPLAY"] = "none"
        # warm-up, then a 1-sample eval (per-eval fixed cost), both on the warm-up server
        options = {"log_realtime": False} if system == "inspect_ai_lean" else {}
        warmup = _inspect_task(args.suite, WARMUP_REQUESTS)
        _inspect_eval(warmup, args.warm_url, workdir / "w", concurrency, **options)
        one = _inspect_eval(
            _inspect_task(args.suite, 1), args.warm_url, workdir / "one", 1, **options
        )
        task = _inspect_task(args.suite, n)
        result = _inspect_eval(task, args.url, workdir / "logs", concurrency, **options)
        result["one_sample_wall_s"] = one["wall_s"]
    print("RESULT " + json.dumps(result), flush=True)


def measure(system: str, suite: Path, workdir: Path, n: int, concurrency: int) -> dict[str, Any]:
    with ServerProcess(LATENCY_S) as warm, ServerProcess(LATENCY_S) as server:
        command = [
            sys.executable,
            __file__,
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


# ----------------------------------------------------------------------------------------
# the report


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


async def _httpx2(base_url: str, bodies: list[dict[str, Any]], concurrency: int) -> int:
    """The openai SDK's own transport (httpx2) with nothing of the SDK on top."""
    import httpx2

    limits = httpx2.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx2.AsyncClient(base_url=base_url, limits=limits, timeout=60) as client:

        async def send(body: dict[str, Any]) -> bool:
            reply = await client.post("/chat/completions", json=body)
            return reply.status_code == 200 and bool(
                reply.json()["choices"][0]["message"]["content"]
            )

        return await _pool(bodies, concurrency, send)


async def _openai_post(base_url: str, bodies: list[dict[str, Any]], concurrency: int) -> int:
    """The SDK's request machinery without its params transform and response model."""
    import httpx2
    import openai

    client = openai.AsyncOpenAI(base_url=base_url, api_key="x", max_retries=0, timeout=60)
    try:

        async def send(body: dict[str, Any]) -> bool:
            reply = await client.post("/chat/completions", body=body, cast_to=httpx2.Response)
            return bool(reply.json()["choices"][0]["message"]["content"])

        return await _pool(bodies, concurrency, send)
    finally:
        await client.close()


def profile(suite: Path, workdir: Path, n: int, concurrency: int) -> None:
    """Client CPU per request, layer by layer, then cProfile of one empathybench run.

    Each layer adds one thing to the one before: bare sockets → httpx2 (the SDK's transport)
    → the SDK's request machinery (``client.post``) → ``chat.completions.create`` (params
    transform + ChatCompletion model) → ``execute_run``.
    """
    import asyncio
    import cProfile
    import pstats

    bodies = _bodies(str(suite), n)
    layers = {
        "raw asyncio sockets": _raw_socket,
        "httpx2.AsyncClient": _httpx2,
        "openai client.post": _openai_post,
        "openai create()": _raw_openai,
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
        _empathybench(warm.base_url, str(suite), workdir / "warm", WARMUP_REQUESTS, concurrency)
        show(
            "execute_run",
            _empathybench(server.base_url, str(suite), workdir / "plain", n, concurrency),
        )
    with ServerProcess(LATENCY_S) as server:
        show("execute_run, n=1", _empathybench(server.base_url, str(suite), workdir / "one", 1, 1))
    with ServerProcess(LATENCY_S) as server:
        # what only the cyclic GC can free: collect it all, then count it by type
        gc.collect()
        gc.disable()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            _empathybench(server.base_url, str(suite), workdir / "garbage", n, concurrency)
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
        result = _empathybench(server.base_url, str(suite), workdir / "run", n, concurrency)
        profiler.disable()
        print(f"\ncProfile of execute_run: wall {result['wall_s']:.3f} s under the profiler")
    stats = pstats.Stats(profiler)
    stats.sort_stats("cumulative").print_stats(40)
    stats.sort_stats("tottime").print_stats(20)


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
        write_scenarios(suite, generate_records(max(n, WARMUP_REQUESTS), seed=1))
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
    by_system = {row["system"]: row for row in rows}
    print()
    print(
        f"{n} requests, concurrency {concurrency}, server latency {LATENCY_S * 1000:.0f} ms: "
        f"ideal {ideal:.2f} s; median of {args.rounds} rounds"
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

    out = Path(__file__).parent / "results" / "runner.json"
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
                    "rounds": args.rounds,
                    "warmup_requests": WARMUP_REQUESTS,
                    "server_nagle": args.server_nagle,
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
    print(f"wrote {out} (benchmark took {total:.0f} s)")
    if problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
