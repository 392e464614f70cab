"""Anthropic's Message Batches: POST the requests, poll the batch, stream its results JSONL.

Each request's params are ``message_params`` (plus the legacy sampling fields when pinned),
exactly what a synchronous call sends, and each answer goes through ``request_output``.
"""

from __future__ import annotations

from typing import Any

from anthropic._constants import ANTHROPIC_API_VERSION
from anthropic.types import Message

from empathybench.models.anthropic_model import (
    LEGACY_API_VERSION,
    message_params,
    request_output,
    sampling_arguments,
)
from empathybench.models.base import ModelCallError, ModelRequest, ModelSpec
from empathybench.models.batch_api import BatchResult, BatchStatus, provider_error_kind
from empathybench.models.batch_http import BatchHTTP
from empathybench.models.registry import resolve_api_key
from empathybench.records import CallError

DEFAULT_BASE_URL = "https://api.anthropic.com"


class AnthropicBatchAPI:
    max_requests = 100_000

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        key = resolve_api_key(spec)
        self._base = (spec.base_url or DEFAULT_BASE_URL).rstrip("/")
        legacy = spec.options.get("api_version") == LEGACY_API_VERSION
        version = LEGACY_API_VERSION if legacy else ANTHROPIC_API_VERSION
        self._http = BatchHTTP({"x-api-key": key or "", "anthropic-version": version}, (key,))

    def _params(self, request: ModelRequest) -> dict[str, Any]:
        extra = sampling_arguments(self.spec, request.params).get("extra_body", {})
        return {**message_params(self.spec, request), **extra}

    async def submit(self, requests: dict[str, ModelRequest]) -> str:
        return await self._http.created_id(
            f"{self._base}/v1/messages/batches",
            json={
                "requests": [
                    {"custom_id": custom_id, "params": self._params(request)}
                    for custom_id, request in requests.items()
                ]
            },
        )

    async def status(self, batch_id: str) -> BatchStatus:
        batch = await self._http.json("GET", f"{self._base}/v1/messages/batches/{batch_id}")
        counts = {k: int(v) for k, v in (batch.get("request_counts") or {}).items()}
        total = sum(counts.values())
        done = total - counts.get("processing", 0)
        if batch.get("processing_status") != "ended":
            return BatchStatus(ended=False, done=done, total=total)
        problem = None
        if counts.get("succeeded", 0) == 0 and counts.get("errored", 0) == 0:
            problem = "expired" if counts.get("expired", 0) else "cancelled"
        return BatchStatus(ended=True, done=done, total=total, problem=problem)

    async def results(
        self, batch_id: str, requests: dict[str, ModelRequest]
    ) -> dict[str, BatchResult]:
        batch = await self._http.json("GET", f"{self._base}/v1/messages/batches/{batch_id}")
        url = batch.get("results_url")
        if not isinstance(url, str):
            return {}
        results: dict[str, BatchResult] = {}
        for line in await self._http.jsonl(url):
            custom_id = line.get("custom_id")
            if isinstance(custom_id, str) and custom_id in requests:
                results[custom_id] = _line_result(requests[custom_id], line.get("result") or {})
        return results

    async def aclose(self) -> None:
        await self._http.aclose()


def _line_result(request: ModelRequest, result: dict[str, Any]) -> BatchResult:
    kind = result.get("type")
    message = result.get("message")
    if kind == "succeeded" and isinstance(message, dict):
        try:
            return request_output(request, Message.construct(**message))
        except ModelCallError as failure:
            return CallError(kind=failure.kind, message=failure.message)
    if kind == "errored":
        error = (result.get("error") or {}).get("error") or result.get("error") or {}
        code = error.get("type")
        return CallError(
            kind=provider_error_kind(code if isinstance(code, str) else None),
            message=str(error.get("message") or "the batch item failed"),
        )
    if kind == "expired":
        return CallError(kind="batch_expired", message="the batch expired before this item ran")
    if kind == "canceled":
        return CallError(kind="batch_cancelled", message="the batch was cancelled before this item")
    return CallError(kind="batch_item", message=f"unknown batch result type {kind!r}")
