"""Claude through the official ``anthropic`` SDK, with its retries off: one call, one request.

A request that asks for JSON (``ModelRequest.json_schema``, as judges do) gets Claude's
structured output: one tool whose input schema is that JSON schema, forced with
``tool_choice``; the tool call's input is the answer, returned as JSON text. ``--option
structured_output=false`` asks in plain text instead.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic
from anthropic.types import (
    AssistantMessageParam,
    Message,
    MessageParam,
    TextBlock,
    ThinkingBlock,
    ToolChoiceToolParam,
    ToolParam,
    ToolUseBlock,
    UserMessageParam,
)

from empathybench.models.base import (
    GenerationParams,
    ModelCallError,
    ModelOutput,
    ModelRequest,
    ModelSpec,
    StopReason,
)
from empathybench.models.http_errors import (
    SdkErrors,
    classify_sdk_error,
    timeout_seconds,
    token_count,
)
from empathybench.models.registry import resolve_api_key
from empathybench.records import ChatMessage
from empathybench.runtime.url_secrets import redact_url

STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "refusal",
    "tool_use": "tool_use",
}
ANTHROPIC_ERRORS = SdkErrors(
    status=anthropic.APIStatusError,
    timeout=anthropic.APITimeoutError,
    connection=anthropic.APIConnectionError,
    validation=anthropic.APIResponseValidationError,
    base=anthropic.AnthropicError,
)


class AnthropicModel:
    """``ModelAPI`` for one Claude model behind the Messages API."""

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        key = resolve_api_key(spec)
        self._secrets = (key,)
        self._timeout = timeout_seconds(spec)
        self._client = anthropic.AsyncAnthropic(
            api_key=key, base_url=spec.base_url or None, max_retries=0, timeout=self._timeout
        )

    def __repr__(self) -> str:
        url = redact_url(self.spec.base_url) if self.spec.base_url else None
        return f"{type(self).__name__}({self.spec.id!r}, base_url={url!r})"

    async def generate(self, request: ModelRequest) -> ModelOutput:
        try:
            response = await self._client.messages.create(
                **message_params(self.spec, request),
                **sampling_arguments(self.spec, request.params),
            )
        except (anthropic.AnthropicError, ValueError) as error:  # ValueError: a body not JSON
            raise classify_sdk_error(
                error, ANTHROPIC_ERRORS, self._secrets, timeout=self._timeout
            ) from None
        return request_output(request, response)

    async def aclose(self) -> None:
        await self._client.close()


LEGACY_API_VERSION = "2023-06-01"
ANSWER_TOOL = "record_answer"


def message_params(spec: ModelSpec, request: ModelRequest) -> dict[str, Any]:
    """The Messages API parameters of ``request`` (sampling ones aside: see below)."""
    system, messages = anthropic_messages(request.messages, spec.system_prompt)
    params: dict[str, Any] = {
        "model": spec.name,
        "max_tokens": request.params.max_tokens,
        "messages": messages,
    }
    if system:
        params["system"] = system
    return {**params, **answer_tool_arguments(spec, request)}


def request_output(request: ModelRequest, response: Any) -> ModelOutput:
    """The ``ModelOutput`` of ``request`` from its Message."""
    return message_output(response, answer_tool=ANSWER_TOOL if request.json_schema else None)


def answer_tool_arguments(spec: ModelSpec, request: ModelRequest) -> dict[str, Any]:
    """``tools`` and a forcing ``tool_choice`` that make the answer fit ``request.json_schema``."""
    if request.json_schema is None or spec.options.get("structured_output") is False:
        return {}
    tool = ToolParam(
        name=ANSWER_TOOL,
        description="Record your answer. Call this exactly once with the complete answer.",
        input_schema=request.json_schema,
    )
    return {"tools": [tool], "tool_choice": ToolChoiceToolParam(type="tool", name=ANSWER_TOOL)}


def sampling_arguments(spec: ModelSpec, params: GenerationParams) -> dict[str, Any]:
    """Extra arguments that carry temperature / top_p, when the API version accepts them.

    Anthropic API version 2026-10-21 (the default of SDK 2.x) answers 400 to any sampling
    parameter, even at its default value, so by default none is sent and Claude samples
    with its own settings. ``--option api_version=2023-06-01`` pins the older version, which
    still accepts them; then temperature and top_p go as extra body fields.
    """
    if spec.options.get("api_version") != LEGACY_API_VERSION:
        return {}
    body: dict[str, object] = {"temperature": params.temperature}
    if params.top_p is not None:
        body["top_p"] = params.top_p
    return {"extra_body": body, "extra_headers": {"anthropic-version": LEGACY_API_VERSION}}


def anthropic_messages(
    messages: list[ChatMessage], system_prompt: str | None
) -> tuple[str | None, list[MessageParam]]:
    """(system text, user/assistant turns); ``system_prompt`` replaces any system message."""
    system_texts = [message.content for message in messages if message.role == "system"]
    system = system_prompt if system_prompt is not None else "\n\n".join(system_texts) or None
    turns: list[MessageParam] = []
    for message in messages:
        if message.role == "user":
            turns.append(UserMessageParam(role="user", content=message.content))
        elif message.role == "assistant":
            turns.append(AssistantMessageParam(role="assistant", content=message.content))
    return system, turns


def message_output(response: Any, *, answer_tool: str | None = None) -> ModelOutput:
    """Map a Message to ``ModelOutput``; raise ``ModelCallError`` when it holds no answer.

    With ``answer_tool``, the input of each call of that tool is the answer (as JSON text;
    two calls give two objects, which a judge's answer check rejects); without such a call
    the text blocks are, as usual. ``response`` is untrusted: the SDK does not validate
    bodies, and returns plain text when the server does not answer JSON.
    """
    blocks = getattr(response, "content", None) if isinstance(response, Message) else None
    if not isinstance(blocks, list):
        raise ModelCallError("bad_response", "the response holds no content blocks")
    text = "".join(
        block.text
        for block in blocks
        if isinstance(block, TextBlock) and isinstance(block.text, str)
    )
    calls = [
        block.input
        for block in blocks
        if answer_tool is not None and isinstance(block, ToolUseBlock) and block.name == answer_tool
    ]
    if calls:
        if not all(isinstance(answer, dict) for answer in calls):
            raise ModelCallError("bad_response", f"the {answer_tool} tool input is not an object")
        text = "\n".join(json.dumps(answer, ensure_ascii=False) for answer in calls)
    reasoning = "\n\n".join(
        block.thinking
        for block in blocks
        if isinstance(block, ThinkingBlock) and isinstance(block.thinking, str)
    )
    raw_stop = str(getattr(response, "stop_reason", None))
    stop_reason = STOP_REASONS.get(raw_stop, "other")
    refusal = None
    if stop_reason == "refusal":
        explanation = getattr(getattr(response, "stop_details", None), "explanation", None)
        refusal = text if text.strip() else explanation if isinstance(explanation, str) else None
    elif not text.strip():
        if raw_stop in ("length", "max_tokens"):
            raise ModelCallError(
                "incomplete",
                "empty answer: the token limit was reached before any text (raise max_tokens)",
            )
        raise ModelCallError("bad_response", f"empty answer (stop_reason={raw_stop})")
    usage = getattr(response, "usage", None)
    model = getattr(response, "model", None)
    return ModelOutput(
        text=text,
        reasoning=reasoning or None,
        stop_reason=stop_reason,
        refusal=refusal,
        input_tokens=token_count(getattr(usage, "input_tokens", None)),
        output_tokens=token_count(getattr(usage, "output_tokens", None)),
        provider_model=model if isinstance(model, str) else None,
    )
