"""The fake server, in its own process: prints its base URL, answers "stats" on stdin, and
stops at EOF."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from runner_bench.systems import ROOT, SCRIPT


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
        command = [sys.executable, str(SCRIPT), "--serve", str(latency)]
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
