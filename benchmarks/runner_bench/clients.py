"""The clients measured: raw sockets, httpx, httpx2 and the openai SDK over the same bodies,
empathybench's ``execute_run`` and Inspect AI's ``eval``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from runner_bench.meter import Meter


def chat_bodies(suite_path: str, n: int) -> list[dict[str, Any]]:
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


async def pool(bodies: list[dict[str, Any]], concurrency: int, send: Any) -> int:
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


async def raw_socket(base_url: str, bodies: list[dict[str, Any]], concurrency: int) -> int:
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


async def raw_httpx(base_url: str, bodies: list[dict[str, Any]], concurrency: int) -> int:
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

        return await pool(bodies, concurrency, send)


async def raw_openai(base_url: str, bodies: list[dict[str, Any]], concurrency: int) -> int:
    import openai

    client = openai.AsyncOpenAI(base_url=base_url, api_key="x", max_retries=0, timeout=60)
    try:

        async def send(body: dict[str, Any]) -> bool:
            completion = await client.chat.completions.create(**body)
            return bool(completion.choices[0].message.content)

        return await pool(bodies, concurrency, send)
    finally:
        await client.close()


def run_empathybench(
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


def inspect_task(suite_path: str, n: int) -> Any:
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
        for index, body in enumerate(chat_bodies(suite_path, n))
    ]
    return Task(dataset=MemoryDataset(samples), solver=generate(), scorer=None, name="bench")


def run_inspect(
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


async def raw_httpx2(base_url: str, bodies: list[dict[str, Any]], concurrency: int) -> int:
    """The openai SDK's own transport (httpx2) with nothing of the SDK on top."""
    import httpx2

    limits = httpx2.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx2.AsyncClient(base_url=base_url, limits=limits, timeout=60) as client:

        async def send(body: dict[str, Any]) -> bool:
            reply = await client.post("/chat/completions", json=body)
            return reply.status_code == 200 and bool(
                reply.json()["choices"][0]["message"]["content"]
            )

        return await pool(bodies, concurrency, send)


async def openai_post(base_url: str, bodies: list[dict[str, Any]], concurrency: int) -> int:
    """The SDK's request machinery without its params transform and response model."""
    import httpx2
    import openai

    client = openai.AsyncOpenAI(base_url=base_url, api_key="x", max_retries=0, timeout=60)
    try:

        async def send(body: dict[str, Any]) -> bool:
            reply = await client.post("/chat/completions", body=body, cast_to=httpx2.Response)
            return bool(reply.json()["choices"][0]["message"]["content"])

        return await pool(bodies, concurrency, send)
    finally:
        await client.close()
