"""What a provider's batch API gives the run (``runtime.batch``): a batch's status, its
per-item results, and per-item errors as the kinds synchronous calls use. The adapters
(``models.batch_openai``, ``models.batch_anthropic``) implement ``BatchAPI``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from empathybench.models.base import ModelOutput, ModelRequest, ModelSpec
from empathybench.models.http_errors import kind_for_status
from empathybench.records import CallError


@dataclass(frozen=True)
class BatchStatus:
    """Where a batch stands: ``ended`` once no more results will come."""

    ended: bool
    done: int
    total: int
    problem: str | None = None
    """Why the batch as a whole stopped short (expired, cancelled, failed), if it did."""


BatchResult = ModelOutput | CallError


class BatchAPI(Protocol):
    """One provider's batch endpoints for one model."""

    spec: ModelSpec
    max_requests: int
    """The most requests one batch may hold; more are split into several batches."""

    async def submit(self, requests: dict[str, ModelRequest]) -> str:
        """Submit one batch (custom id → request); return its id."""
        ...

    async def status(self, batch_id: str) -> BatchStatus: ...

    async def results(
        self, batch_id: str, requests: dict[str, ModelRequest]
    ) -> dict[str, BatchResult]:
        """Every result the ended batch holds, by custom id (missing ones are not returned)."""
        ...

    async def aclose(self) -> None: ...


def provider_error_kind(code: str | None, status: int | None = None) -> str:
    """A per-item batch error as the kinds synchronous calls use (``batch_…`` for the rest)."""
    by_code = {
        "rate_limit_error": "rate_limit",
        "rate_limit_exceeded": "rate_limit",
        "overloaded_error": "server",
        "api_error": "server",
        "server_error": "server",
        "authentication_error": "auth",
        "permission_error": "auth",
        "invalid_request_error": "client",
        "not_found_error": "client",
        "request_too_large": "client",
        "batch_expired": "batch_expired",
        "batch_cancelled": "batch_cancelled",
    }
    if code in by_code:
        return by_code[code]
    if status is not None:
        return kind_for_status(status)
    return "batch_item"
