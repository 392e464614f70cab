"""A real HTTP server on 127.0.0.1 that speaks the OpenAI and Anthropic chat formats.

Use it as a context manager; it listens on an ephemeral port, serves every request in its own
thread and always shuts down::

    with FakeLLMServer(default=ok(latency=0.1)) as server:
        server.enqueue(rate_limit(retry_after=2), server_error(503))   # the next two requests
        server.script = lambda body, attempt: ok() if attempt > 1 else drop_connection()
        ... OpenAI(base_url=server.openai_base_url) / Anthropic(base_url=server.anthropic_base_url)
        assert server.count(prompt="hello") == 1

A request's behaviour is the next queued one, else ``script(body, attempt)`` (``attempt`` counts
requests for the same prompt, from 1), else ``default``. Every request is recorded.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes.loopback_server import LoopbackHTTPServer, LoopbackServer

OPENAI_PATH = "/v1/chat/completions"
ANTHROPIC_PATH = "/v1/messages"


@dataclass(frozen=True)
class Behaviour:
    """What the server does with one request (build these with the functions below)."""

    action: str
    text: str | None = None
    latency: float = 0.0
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    stop: str | None = None
    reasoning: str | None = None
    reasoning_field: str = "reasoning_content"
    refusal: str | None = None
    null_content: bool = False
    message: str | None = None
    tool_inputs: tuple[Any, ...] = ()


def ok(
    text: str | None = None,
    latency: float = 0.0,
    *,
    stop: str | None = None,
    reasoning: str | None = None,
    reasoning_field: str = "reasoning_content",
    refusal: str | None = None,
    tool_inputs: tuple[Any, ...] = (),
) -> Behaviour:
    """A 200 answer. ``stop`` is sent verbatim as finish_reason / stop_reason; ``refusal`` is
    OpenAI's message.refusal (content null) or Anthropic's stop_reason=refusal with that text.
    ``tool_inputs`` (Anthropic): one ``tool_use`` block per input, calling the tool the request
    forces with ``tool_choice`` (stop_reason tool_use); ``text`` then adds a text block only when
    given."""
    return Behaviour(
        "ok",
        text=text,
        latency=latency,
        stop=stop,
        reasoning=reasoning,
        reasoning_field=reasoning_field,
        refusal=refusal,
        tool_inputs=tool_inputs,
    )


def rate_limit(
    retry_after: float | str | None = 1, *, retry_after_ms: int | None = None
) -> Behaviour:
    """429; ``retry_after`` is seconds or a raw header value (e.g. an HTTP date)."""
    headers = [] if retry_after is None else [("Retry-After", _header_value(retry_after))]
    if retry_after_ms is not None:
        headers.append(("retry-after-ms", str(retry_after_ms)))
    return Behaviour("error", status=429, headers=tuple(headers), message="Rate limit reached")


def server_error(status: int = 500) -> Behaviour:
    message = "Overloaded" if status == 529 else "The server had an error"
    return Behaviour("error", status=status, message=message)


def client_error(status: int = 400, message: str | None = None) -> Behaviour:
    """4xx. A 401 echoes the credential it received, as some providers do, by default."""
    return Behaviour("error", status=status, message=message)


def slow(seconds: float = 5.0) -> Behaviour:
    """Answer only after ``seconds`` (longer than the client's timeout)."""
    return Behaviour("ok", latency=seconds)


def malformed_json() -> Behaviour:
    return Behaviour("malformed")


def not_json() -> Behaviour:
    """A 200 HTML page, as a proxy or login wall sends."""
    return Behaviour("html")


def empty_content(*, null: bool = False) -> Behaviour:
    """A 200 with no text: "" (or null with ``null``) for OpenAI, no blocks for Anthropic."""
    return Behaviour("empty", null_content=null)


def drop_connection() -> Behaviour:
    """Close the socket without sending a byte."""
    return Behaviour("drop")


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    body: Any
    headers: dict[str, str]
    """Lower-case names."""
    time: float
    """``time.monotonic()`` when the request was read."""
    prompt: str | None
    attempt: int


Script = Callable[[Any, int], Behaviour]


def default_text(prompt: str | None) -> str:
    return f"EMOTION: A\nNEEDS_HELP: yes\nREPLY: echo {(prompt or '')[:20]}"


def prompt_of(body: Any) -> str | None:
    """The text of the last user message (Anthropic content lists are joined)."""
    messages = body.get("messages") if isinstance(body, dict) else None
    for message in reversed(messages if isinstance(messages, list) else []):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):
                return "".join(part.get("text", "") for part in content if isinstance(part, dict))
            return content if isinstance(content, str) else None
    return None


class FakeLLMServer(LoopbackServer):
    """See the module docstring. Thread-safe; all answers are deterministic."""

    def __init__(self, default: Behaviour | None = None, script: Script | None = None) -> None:
        super().__init__()
        self.default = default or ok()
        self.script = script
        self.max_in_flight = 0
        """The most requests the server was handling at the same moment."""
        self.connections = 0
        """TCP connections accepted (keep-alive clients reuse theirs)."""
        self._queue: deque[Behaviour] = deque()
        self._requests: list[RecordedRequest] = []
        self._attempts: dict[str | None, int] = {}
        self._in_flight = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()

    def enqueue(self, *behaviours: Behaviour) -> None:
        """Behaviours for the next requests, in order, before script/default apply."""
        with self._lock:
            self._queue.extend(behaviours)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def count(self, prompt: str | None = None, path: str | None = None) -> int:
        return sum(
            1
            for request in self.requests
            if (prompt is None or request.prompt == prompt)
            and (path is None or request.path == path)
        )

    @property
    def anthropic_base_url(self) -> str:
        return self.url

    def stop(self) -> None:
        self._stopping.set()  # wakes every handler that is sleeping
        super().stop()
        self._stopping.clear()

    def _arrive(self, path: str, body: Any, headers: dict[str, str]) -> Behaviour:
        """Record a request and choose what to do with it."""
        prompt = prompt_of(body)
        with self._lock:
            attempt = self._attempts[prompt] = self._attempts.get(prompt, 0) + 1
            self._requests.append(
                RecordedRequest(path, body, headers, time.monotonic(), prompt, attempt)
            )
            queued = self._queue.popleft() if self._queue else None
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        script = self.script
        return queued or (script(body, attempt) if script else self.default)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _sleep(self, seconds: float) -> bool:
        """Wait; False when the server stopped meanwhile."""
        return not self._stopping.wait(seconds)


class _Server(LoopbackHTTPServer):
    fake: FakeLLMServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def setup(self) -> None:
        super().setup()
        with self.server.fake._lock:
            self.server.fake.connections += 1

    def do_POST(self) -> None:
        fake = self.server.fake
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = None
        behaviour = fake._arrive(self.path, body, {k.lower(): v for k, v in self.headers.items()})
        try:
            if self.path not in (OPENAI_PATH, ANTHROPIC_PATH) or not isinstance(body, dict):
                status = 404 if isinstance(body, dict) else 400
                self._send_json(status, self._error_body(status, f"cannot serve {self.path}"))
            elif not behaviour.latency or fake._sleep(behaviour.latency):
                self._perform(behaviour, body, prompt_of(body))
        finally:
            fake._leave()

    def _perform(self, behaviour: Behaviour, body: Any, prompt: str | None) -> None:
        if behaviour.action == "drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif behaviour.action == "malformed":
            self._send(200, b'{"id": "broken", "choices": [{"message": ', "application/json")
        elif behaviour.action == "html":
            self._send(200, b"<html><body>Please sign in</body></html>", "text/html")
        elif behaviour.action == "error":
            self._send_json(
                behaviour.status,
                self._error_body(behaviour.status, behaviour.message),
                behaviour.headers,
            )
        else:
            self._send_json(200, self._answer(behaviour, body, prompt))

    def _answer(
        self, behaviour: Behaviour, body: dict[str, Any], prompt: str | None
    ) -> dict[str, Any]:
        empty = behaviour.action == "empty"
        text = (
            "" if empty else behaviour.text if behaviour.text is not None else default_text(prompt)
        )
        model = f"{body.get('model', 'unknown')}-fake-2025"
        prompt_tokens = len(json.dumps(body.get("messages", [])).split())
        output_tokens = len(text.split())
        if self.path == ANTHROPIC_PATH:
            blocks: list[dict[str, Any]] = []
            if behaviour.reasoning is not None:
                blocks.append(
                    {
                        "type": "thinking",
                        "thinking": behaviour.reasoning,
                        "signature": "fake-signature",
                    }
                )
            if behaviour.refusal is not None:
                text = behaviour.refusal
            if behaviour.tool_inputs and behaviour.text is None:
                text = ""
            if text or not (empty or behaviour.tool_inputs):
                blocks.append({"type": "text", "text": text})
            choice = body.get("tool_choice")
            tool = choice.get("name") if isinstance(choice, dict) else None
            for index, tool_input in enumerate(behaviour.tool_inputs):
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": f"toolu_fake_{index}",
                        "name": tool or "unrequested_tool",
                        "input": tool_input,
                    }
                )
            stop = "refusal" if behaviour.refusal is not None else behaviour.stop or "end_turn"
            if behaviour.tool_inputs and behaviour.stop is None:
                stop = "tool_use"
            return {
                "id": "msg_fake",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": blocks,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {"input_tokens": prompt_tokens, "output_tokens": output_tokens},
            }
        content = None if (behaviour.null_content or behaviour.refusal is not None) else text
        message: dict[str, Any] = {
            "role": "assistant",
            "content": content,
            "refusal": behaviour.refusal,
        }
        if behaviour.reasoning is not None:
            message[behaviour.reasoning_field] = behaviour.reasoning
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": behaviour.stop or "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": output_tokens,
                "total_tokens": prompt_tokens + output_tokens,
            },
        }

    def _error_body(self, status: int, message: str | None) -> dict[str, Any]:
        if message is None and status == 401:
            presented = self.headers.get("x-api-key") or self.headers.get("Authorization") or ""
            message = f"Incorrect API key provided: {presented.removeprefix('Bearer ')}"
        message = message or f"fake error {status}"
        if self.path == ANTHROPIC_PATH:
            kinds = {429: "rate_limit_error", 529: "overloaded_error", 401: "authentication_error"}
            return {
                "type": "error",
                "error": {"type": kinds.get(status, "api_error"), "message": message},
            }
        return {"error": {"message": message, "type": "fake_error", "code": str(status)}}

    def _send_json(
        self, status: int, payload: dict[str, Any], headers: tuple[tuple[str, str], ...] = ()
    ) -> None:
        self._send(status, json.dumps(payload).encode(), "application/json", headers)

    def _send(
        self, status: int, data: bytes, content_type: str, headers: tuple[tuple[str, str], ...] = ()
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def _header_value(value: float | str) -> str:
    return value if isinstance(value, str) else f"{value:g}"


FakeLLMServer.handler = _Handler
FakeLLMServer.server_class = _Server
