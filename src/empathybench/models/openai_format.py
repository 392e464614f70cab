"""The OpenAI chat-completions wire format, shared by the SDK adapter and the lean client.

Builds the request body (messages, parameters, structured output for guided answers) and maps
an answer to ``ModelOutput``, raising ``ModelCallError`` for filtered or empty ones. Imports no
SDK, so the lean client (``openai_http``) starts without loading ``openai``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from empathybench.models.base import (
    ModelCallError,
    ModelOutput,
    ModelRequest,
    ModelSpec,
    StopReason,
)
from empathybench.models.guided import answer_from_json, answer_schema
from empathybench.models.http_errors import token_count
from empathybench.models.registry import guided_unsupported
from empathybench.records import ChatMessage

REASONING_FIELDS = ("reasoning_content", "reasoning")
"""Where DeepSeek, vLLM (``reasoning_content``) and OpenRouter, Ollama (``reasoning``) put it."""
FINISH_REASONS: dict[str, StopReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
}


def chat_messages(messages: list[ChatMessage], system_prompt: str | None) -> list[dict[str, str]]:
    """The conversation in OpenAI's format; ``system_prompt`` replaces any system message."""
    if system_prompt is not None:
        messages = [
            ChatMessage(role="system", content=system_prompt),
            *(message for message in messages if message.role != "system"),
        ]
    return [{"role": message.role, "content": message.content} for message in messages]


def response_format(spec: ModelSpec, request: ModelRequest) -> dict[str, Any] | None:
    """Native structured output when asked for JSON and the server supports it.

    On by default for OpenAI itself; other OpenAI-compatible servers opt in with
    ``--option structured_output=true`` (many accept the field, some reject it). A guided
    request always carries its answer schema (the runner checked the server can take it).
    """
    schema = request.json_schema
    if request.guide is not None and request.guide.fields:
        reason = guided_unsupported(spec)
        if reason is not None:
            raise ModelCallError("client", reason)
        schema = answer_schema(request.guide)
    else:
        enabled = spec.options.get("structured_output", spec.provider == "openai")
        if schema is None or not enabled:
            return None
    return {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": schema, "strict": True},
    }


def request_body(spec: ModelSpec, request: ModelRequest) -> dict[str, Any]:
    """The JSON body of one ``/chat/completions`` request."""
    params = request.params
    body: dict[str, Any] = {
        "model": spec.name,
        "messages": chat_messages(request.messages, spec.system_prompt),
        "temperature": params.temperature,
        "max_tokens": params.max_tokens,
    }
    if params.top_p is not None:
        body["top_p"] = params.top_p
    if params.seed is not None:
        body["seed"] = params.seed
    structured = response_format(spec, request)
    if structured is not None:
        body["response_format"] = structured
    return body


def output_from_parts(
    *,
    finish: str,
    content: object,
    refusal: object,
    extra: Mapping[str, object],
    prompt_tokens: object,
    completion_tokens: object,
    model: object,
) -> ModelOutput:
    """One answer's fields (untrusted: from an unvalidated body) as ``ModelOutput``."""
    if finish == "content_filter":
        raise ModelCallError("content_filter", "the provider's content filter stopped the answer")
    text = content if isinstance(content, str) else ""
    refusal = refusal if isinstance(refusal, str) and refusal else None
    if not text.strip() and refusal is None:
        if finish in ("length", "max_tokens"):
            raise ModelCallError(
                "incomplete",
                "empty answer: the token limit was reached before any text (raise max_tokens)",
            )
        raise ModelCallError("bad_response", f"empty answer (finish_reason={finish})")
    reasoning = next(
        (
            value
            for value in (extra.get(name) for name in REASONING_FIELDS)
            if isinstance(value, str) and value
        ),
        None,
    )
    return ModelOutput(
        text=text,
        reasoning=reasoning,
        stop_reason="refusal"
        if refusal is not None and not text.strip()
        else FINISH_REASONS.get(finish, "other"),
        refusal=refusal,
        input_tokens=token_count(prompt_tokens),
        output_tokens=token_count(completion_tokens),
        provider_model=model if isinstance(model, str) else None,
    )


def output_from_body(body: object) -> ModelOutput:
    """A decoded ``/chat/completions`` JSON body as ``ModelOutput``."""
    choices = body.get("choices") if isinstance(body, dict) else None
    choice = choices[0] if isinstance(choices, list) and choices else None
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict) or not isinstance(body, dict):
        raise ModelCallError("bad_response", "the response holds no completion message")
    usage = body.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    assert isinstance(choice, dict)
    return output_from_parts(
        finish=str(choice.get("finish_reason")),
        content=message.get("content"),
        refusal=message.get("refusal"),
        extra=message,
        prompt_tokens=usage.get("prompt_tokens"),
        completion_tokens=usage.get("completion_tokens"),
        model=body.get("model"),
    )


def guided_output(request: ModelRequest, output: ModelOutput) -> ModelOutput:
    """A guided answer's JSON turned into the usual answer text (``EMOTION: B`` …)."""
    guide = request.guide
    if guide is None or not guide.fields:
        return output
    try:
        text = answer_from_json(guide, output.text)
    except ValueError as error:
        raise ModelCallError("bad_response", f"guided answer: {error}") from None
    return output.model_copy(update={"text": text})
