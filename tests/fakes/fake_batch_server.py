"""A real HTTP server on 127.0.0.1 that speaks OpenAI's Batch API and Anthropic's Message Batches.

Use it as a context manager; it listens on an ephemeral port and always shuts down::

    with FakeBatchServer(fail=lambda i: i % 3 == 1, polls_before_end=2) as server:
        ... OpenAIBatchAPI(spec with base_url=server.openai_base_url) ...
        assert server.submissions == 1

A batch stays in progress for ``polls_before_end`` status reads (or, with ``hold=True``, until
``release()``), then ends: every item answered, except the ones ``fail(index)`` picks (a
server error per item), or none at all when ``expire=True`` (the whole batch expired).
Every submitted request body is kept in ``submitted`` for inspection.
"""

from __future__ import annotations

import email
import email.policy
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes.loopback_server import LoopbackHTTPServer, LoopbackServer


def answer_text(body: dict[str, Any]) -> str:
    """The fake's deterministic answer to a chat/messages body."""
    user = [m["content"] for m in body.get("messages", []) if m.get("role") == "user"]
    return f"EMOTION: A\nI hear you. ({(user[-1] if user else '')[:24]})"


@dataclass
class _Batch:
    id: str
    provider: str
    requests: list[tuple[str, dict[str, Any]]]
    polls: int = 0
    files: dict[str, str] = field(default_factory=dict)


class FakeBatchServer(LoopbackServer):
    def __init__(
        self,
        *,
        fail: Callable[[int], bool] | None = None,
        expire: bool = False,
        polls_before_end: int = 1,
        hold: bool = False,
    ) -> None:
        super().__init__()
        self.fail = fail or (lambda index: False)
        self.expire = expire
        self.polls_before_end = polls_before_end
        self.submitted: list[dict[str, Any]] = []
        """Every request body submitted, in order (OpenAI ``body`` / Anthropic ``params``)."""
        self.submissions = 0
        self.sync_calls = 0
        """Synchronous ``/v1/chat/completions`` and ``/v1/messages`` calls (answered at once)."""
        self.poll_errors = 0
        """Answer this many status reads with HTTP 503 first."""
        self.refuse_with: int | None = None
        """Refuse every batch creation with this HTTP status (e.g. 401: a bad key)."""
        self._batches: dict[str, _Batch] = {}
        self._files: dict[str, str] = {}
        self._lock = threading.Lock()
        self._held = threading.Event()
        if not hold:
            self._held.set()

    def release(self) -> None:
        """Let held batches end (after their polls)."""
        self._held.set()

    # --- the state machine both APIs share -------------------------------------------------

    def _create(self, provider: str, requests: list[tuple[str, dict[str, Any]]]) -> _Batch:
        with self._lock:
            self.submissions += 1
            self.submitted.extend(body for _, body in requests)
            batch = _Batch(f"batch_{provider}_{len(self._batches) + 1}", provider, requests)
            self._batches[batch.id] = batch
            return batch

    def _poll(self, batch_id: str) -> _Batch | None:
        with self._lock:
            batch = self._batches.get(batch_id)
            if batch is not None:
                batch.polls += 1
            return batch

    def _ended(self, batch: _Batch) -> bool:
        return self._held.is_set() and batch.polls > self.polls_before_end

    def _outcome(self, batch: _Batch, index: int) -> str:
        if self.expire:
            return "expired"
        return "failed" if self.fail(index) else "ok"


class _Server(LoopbackHTTPServer):
    fake: FakeBatchServer


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, payload: Any, *, jsonl: bool = False) -> None:
        if jsonl:
            data = "\n".join(json.dumps(line) for line in payload).encode()
        else:
            data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/jsonl" if jsonl else "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length", 0)))

    def do_POST(self) -> None:
        fake = self.server.fake
        if fake.refuse_with is not None and self.path.endswith("batches"):
            self._body()
            self._send(fake.refuse_with, {"error": {"message": "invalid x-api-key"}})
            return
        if self.path == "/v1/files":
            raw = self._body()
            message = email.message_from_bytes(
                b"Content-Type: " + self.headers["Content-Type"].encode() + b"\r\n\r\n" + raw,
                policy=email.policy.HTTP,
            )
            content = ""
            for part in message.iter_parts():
                if part.get_param("name", header="content-disposition") == "file":
                    content = part.get_payload(decode=True).decode()
            with fake._lock:
                file_id = f"file_{len(fake._files) + 1}"
                fake._files[file_id] = content
            self._send(200, {"id": file_id, "object": "file", "purpose": "batch"})
        elif self.path == "/v1/batches":
            body = json.loads(self._body())
            lines = [json.loads(x) for x in fake._files[body["input_file_id"]].splitlines()]
            batch = fake._create("openai", [(x["custom_id"], x["body"]) for x in lines])
            self._send(200, {"id": batch.id, "status": "validating"})
        elif self.path == "/v1/messages/batches":
            body = json.loads(self._body())
            batch = fake._create(
                "anthropic", [(r["custom_id"], r["params"]) for r in body["requests"]]
            )
            self._send(200, {"id": batch.id, "processing_status": "in_progress"})
        elif self.path in ("/v1/chat/completions", "/v1/messages"):
            body = json.loads(self._body())
            with fake._lock:
                fake.sync_calls += 1
            if self.path == "/v1/messages":
                self._send(200, _message(body, 0))
            else:
                self._send(200, _completion(body, 0))
        else:
            self._send(404, {"error": {"message": "not found"}})

    def do_GET(self) -> None:
        fake = self.server.fake
        with fake._lock:
            unavailable = fake.poll_errors > 0 and "results" not in self.path
            fake.poll_errors -= unavailable
        if unavailable:
            self._send(503, {"error": {"message": "try again"}})
            return
        parts = self.path.strip("/").split("/")
        if parts[:2] == ["v1", "batches"] and len(parts) == 3:
            batch = fake._poll(parts[2])
            if batch is None:
                self._send(404, {"error": {"message": "no such batch"}})
            else:
                self._send(200, self._openai_batch(fake, batch))
        elif parts[:2] == ["v1", "files"] and len(parts) == 4:
            lines = fake._files.get(parts[2], "")
            data = lines.encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        elif parts[:3] == ["v1", "messages", "batches"] and len(parts) == 4:
            batch = fake._poll(parts[3])
            if batch is None:
                self._send(404, {"error": {"message": "no such batch"}})
            else:
                self._send(200, self._anthropic_batch(fake, batch))
        elif parts[:3] == ["v1", "messages", "batches"] and parts[4:] == ["results"]:
            batch = fake._batches[parts[3]]
            self._send(200, self._anthropic_results(fake, batch), jsonl=True)
        else:
            self._send(404, {"error": {"message": "not found"}})

    def _openai_batch(self, fake: FakeBatchServer, batch: _Batch) -> dict[str, Any]:
        total = len(batch.requests)
        if not fake._ended(batch):
            return {
                "id": batch.id,
                "status": "in_progress",
                "request_counts": {"total": total, "completed": 0, "failed": 0},
            }
        if not batch.files:
            output, errors = [], []
            for index, (custom_id, body) in enumerate(batch.requests):
                outcome = fake._outcome(batch, index)
                if outcome == "ok":
                    completion = _completion(body, index)
                    output.append(
                        {
                            "custom_id": custom_id,
                            "response": {"status_code": 200, "body": completion},
                            "error": None,
                        }
                    )
                elif outcome == "failed":
                    output.append(
                        {
                            "custom_id": custom_id,
                            "response": {
                                "status_code": 500,
                                "body": {"error": {"type": "server_error", "message": "boom"}},
                            },
                            "error": None,
                        }
                    )
                else:
                    errors.append(
                        {
                            "custom_id": custom_id,
                            "response": None,
                            "error": {"code": "batch_expired", "message": "expired"},
                        }
                    )
            with fake._lock:
                for name, lines in (("output_file_id", output), ("error_file_id", errors)):
                    if lines:
                        file_id = f"file_{len(fake._files) + 1}"
                        fake._files[file_id] = "\n".join(json.dumps(x) for x in lines)
                        batch.files[name] = file_id
        failed = sum(fake._outcome(batch, i) != "ok" for i in range(total))
        return {
            "id": batch.id,
            "status": "expired" if fake.expire else "completed",
            "request_counts": {"total": total, "completed": total - failed, "failed": failed},
            **batch.files,
        }

    def _anthropic_batch(self, fake: FakeBatchServer, batch: _Batch) -> dict[str, Any]:
        total = len(batch.requests)
        if not fake._ended(batch):
            counts = {"processing": total, "succeeded": 0, "errored": 0}
            return {"id": batch.id, "processing_status": "in_progress", "request_counts": counts}
        outcomes = [fake._outcome(batch, i) for i in range(total)]
        counts = {
            "processing": 0,
            "succeeded": outcomes.count("ok"),
            "errored": outcomes.count("failed"),
            "canceled": 0,
            "expired": outcomes.count("expired"),
        }
        return {
            "id": batch.id,
            "processing_status": "ended",
            "request_counts": counts,
            "results_url": f"{fake.url}/v1/messages/batches/{batch.id}/results",
        }

    def _anthropic_results(self, fake: FakeBatchServer, batch: _Batch) -> list[dict[str, Any]]:
        lines = []
        for index, (custom_id, params) in enumerate(batch.requests):
            outcome = fake._outcome(batch, index)
            if outcome == "ok":
                result: dict[str, Any] = {"type": "succeeded", "message": _message(params, index)}
            elif outcome == "failed":
                result = {
                    "type": "errored",
                    "error": {
                        "type": "error",
                        "error": {"type": "overloaded_error", "message": "Overloaded"},
                    },
                }
            else:
                result = {"type": "expired"}
            lines.append({"custom_id": custom_id, "result": result})
        return lines


def _completion(body: dict[str, Any], index: int) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{index}",
        "object": "chat.completion",
        "created": 0,
        "model": body["model"] + "-2026",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": answer_text(body)},
            }
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


def _message(params: dict[str, Any], index: int) -> dict[str, Any]:
    return {
        "id": f"msg_{index}",
        "type": "message",
        "role": "assistant",
        "model": params["model"],
        "content": [{"type": "text", "text": answer_text(params)}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 11, "output_tokens": 7},
    }


FakeBatchServer.handler = _Handler
FakeBatchServer.server_class = _Server
