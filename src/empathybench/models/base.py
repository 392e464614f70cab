"""What every model adapter takes and returns, and how its failures are classified.

The runner only ever sees ``ModelAPI``: it sends one ``ModelRequest`` at a time (many
concurrently) and gets a ``ModelOutput`` or a ``ModelCallError``. Adapters never retry on
their own (SDK retries are off); the runner decides from ``ModelCallError.retryable``.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import Field

from empathybench.models.guided import AnswerGuide
from empathybench.records import ChatMessage, GenerationParams, ModelSpec, Record

__all__ = ["GenerationParams", "ModelSpec"]  # re-exported: they live in records

StopReason = Literal["stop", "length", "content_filter", "refusal", "tool_use", "other"]
ErrorKind = Literal[
    "rate_limit",  # 429: retry after Retry-After
    "server",  # 5xx / overloaded: retry
    "timeout",  # no answer in time: retry
    "connection",  # could not connect / connection dropped: retry
    "bad_response",  # unparseable or empty answer from the provider: retry a bounded number
    "incomplete",  # empty answer cut off at the token limit: the same call would end the same
    "auth",  # 401/403 or missing key: never retry
    "client",  # other 4xx (bad request, not found, too long): never retry
    "content_filter",  # the provider refused to answer this input: never retry
]
RETRYABLE_KINDS: frozenset[str] = frozenset(
    {"rate_limit", "server", "timeout", "connection", "bad_response"}
)


class ModelRequest(Record):
    messages: list[ChatMessage] = Field(min_length=1)
    params: GenerationParams
    json_schema: dict[str, Any] | None = None
    """Ask for JSON of this shape (provider-native structured output where supported)."""
    guide: AnswerGuide | None = None
    """Guided mode: the adapter fills these answer fields itself (see ``models.guided``)."""


class ModelOutput(Record):
    text: str
    reasoning: str | None = None
    stop_reason: StopReason = "stop"
    refusal: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    provider_model: str | None = None
    """The model name the provider says answered (may differ from the requested alias)."""


class ModelCallError(Exception):
    """A failed call, classified so the runner knows whether to retry and when."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.message = message
        self.status = status
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE_KINDS

    def __str__(self) -> str:
        status = f" (HTTP {self.status})" if self.status is not None else ""
        return f"{self.kind}{status}: {self.message}"


@runtime_checkable
class ModelAPI(Protocol):
    """One model behind one provider. Safe to call concurrently from one event loop."""

    spec: ModelSpec

    async def generate(self, request: ModelRequest) -> ModelOutput:
        """One completion; raises ``ModelCallError`` on failure."""
        ...

    async def aclose(self) -> None:
        """Release connections, threads or weights."""
        ...
