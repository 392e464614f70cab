"""OpenAI's Batch API: upload a JSONL file of ``/v1/chat/completions`` bodies, create a batch,
poll it, download its output and error files.

Each line's body is ``openai_format.request_body``, exactly what a synchronous call sends,
and each answer goes through the same ``output_from_body`` and ``guided_output``.
"""

from __future__ import annotations

import json
from typing import Any

from empathybench.errors import UserError
from empathybench.models.base import ModelCallError, ModelRequest, ModelSpec
from empathybench.models.batch_api import BatchResult, BatchStatus, provider_error_kind
from empathybench.models.batch_http import BatchHTTP
from empathybench.models.openai_format import guided_output, output_from_body, request_body
from empathybench.models.registry import resolve_api_key
from empathybench.records import CallError

ENDPOINT = "/v1/chat/completions"
RUNNING = ("validating", "in_progress", "finalizing", "cancelling")


class OpenAIBatchAPI:
    max_requests = 50_000

    def __init__(self, spec: ModelSpec) -> None:
        if not spec.base_url:
            raise UserError(f"{spec.id} has no base URL for its batch API")
        self.spec = spec
        key = resolve_api_key(spec)
        self._base = spec.base_url.rstrip("/")
        self._http = BatchHTTP({"Authorization": f"Bearer {key}"}, (key,))

    async def submit(self, requests: dict[str, ModelRequest]) -> str:
        lines = [
            json.dumps(
                {
                    "custom_id": custom_id,
                    "method": "POST",
                    "url": ENDPOINT,
                    "body": request_body(self.spec, request),
                },
                ensure_ascii=False,
            )
            for custom_id, request in requests.items()
        ]
        upload = await self._http.created_id(
            f"{self._base}/files",
            data={"purpose": "batch"},
            files={"file": ("batch.jsonl", "\n".join(lines).encode(), "application/jsonl")},
        )
        return await self._http.created_id(
            f"{self._base}/batches",
            json={
                "input_file_id": upload,
                "endpoint": ENDPOINT,
                "completion_window": "24h",
            },
        )

    async def status(self, batch_id: str) -> BatchStatus:
        batch = await self._http.json("GET", f"{self._base}/batches/{batch_id}")
        state = str(batch.get("status"))
        counts = batch.get("request_counts") or {}
        done = int(counts.get("completed", 0)) + int(counts.get("failed", 0))
        total = int(counts.get("total", 0))
        if state in RUNNING:
            return BatchStatus(ended=False, done=done, total=total)
        problem: str | None = None
        if state in ("expired", "cancelled"):
            problem = state
        elif state == "failed":
            errors = batch.get("errors")
            data = errors.get("data") if isinstance(errors, dict) else None
            first = data[0] if isinstance(data, list) and data and isinstance(data[0], dict) else {}
            problem = f"failed: {first.get('message', 'no reason given')}"
        elif state != "completed":
            problem = f"ended as {state}"
        return BatchStatus(ended=True, done=done, total=total, problem=problem)

    async def results(
        self, batch_id: str, requests: dict[str, ModelRequest]
    ) -> dict[str, BatchResult]:
        batch = await self._http.json("GET", f"{self._base}/batches/{batch_id}")
        results: dict[str, BatchResult] = {}
        for name in ("output_file_id", "error_file_id"):
            file_id = batch.get(name)
            if not file_id:
                continue
            for line in await self._http.jsonl(f"{self._base}/files/{file_id}/content"):
                custom_id = line.get("custom_id")
                if isinstance(custom_id, str) and custom_id in requests:
                    results[custom_id] = _line_result(requests[custom_id], line)
        return results

    async def aclose(self) -> None:
        await self._http.aclose()


def _line_result(request: ModelRequest, line: dict[str, Any]) -> BatchResult:
    response = line.get("response") or {}
    error = line.get("error")
    status = response.get("status_code")
    body = response.get("body")
    if error is None and status == 200 and isinstance(body, dict):
        try:
            return guided_output(request, output_from_body(body))
        except ModelCallError as failure:
            return CallError(kind=failure.kind, message=failure.message)
    if isinstance(error, dict):
        code, message = error.get("code"), error.get("message")
    else:
        inner = (body or {}).get("error") if isinstance(body, dict) else None
        inner = inner if isinstance(inner, dict) else {}
        code, message = inner.get("code") or inner.get("type"), inner.get("message")
    return CallError(
        kind=provider_error_kind(code if isinstance(code, str) else None, status),
        message=str(message or "the batch item failed"),
        status=status if isinstance(status, int) else None,
    )
