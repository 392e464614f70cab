"""Every OpenAI-compatible chat endpoint (OpenAI, OpenRouter, DeepSeek, Ollama, vLLM, llama.cpp)
through the official ``openai`` SDK, with its retries off: one call, one HTTP request.

A guided request (see ``models.guided``) is sent with a strict JSON schema as
``response_format`` (an enum per answer field, then the reply as a string), which llama.cpp
and vLLM servers enforce by grammar; the JSON that comes back is turned into the usual answer
text (``EMOTION: B`` …), so nothing downstream changes. A guide without fields (the therapy
prompt) is sent as an ordinary request.
"""

from __future__ import annotations

from typing import Any

import openai
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionAssistantMessageParam,
    ChatCompletionMessageParam,
    ChatCompletionSystemMessageParam,
    ChatCompletionUserMessageParam,
)

from empathybench.models.base import (
    ModelCallError,
    ModelOutput,
    ModelRequest,
    ModelSpec,
    StopReason,
)
from empathybench.models.guided import answer_from_json, answer_schema
from empathybench.models.http_errors import (
    SdkErrors,
    classify_sdk_error,
    timeout_seconds,
    token_count,
)
from empathybench.models.registry import guided_unsupported, resolve_api_key
from empathybench.types import ChatMessage

NO_KEY = "not-needed"
"""Sent to local servers that need no key (the SDK refuses to start without one)."""
REASONING_FIELDS = ("reasoning_content", "reasoning")
"""Where DeepSeek, vLLM (``reasoning_content``) and OpenRouter, Ollama (``reasoning``) put it."""
FINISH_REASONS: dict[str, StopReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
}
OPENAI_ERRORS = SdkErrors(
    status=openai.APIStatusError,
    timeout=openai.APITimeoutError,
    connection=openai.APIConnectionError,
    validation=openai.APIResponseValidationError,
    base=openai.OpenAIError,
)


class OpenAICompatibleModel:
    """``ModelAPI`` for one model behind a ``/chat/completions`` endpoint."""

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        key = resolve_api_key(spec)
        self._secrets = (key,)
        self._timeout = timeout_seconds(spec)
        self._client = openai.AsyncOpenAI(
            base_url=spec.base_url, api_key=key or NO_KEY, max_retries=0, timeout=self._timeout
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec.id!r}, base_url={self.spec.base_url!r})"

    async def generate(self, request: ModelRequest) -> ModelOutput:
        params = request.params
        try:
            response = await self._client.chat.completions.create(
                model=self.spec.name,
                messages=chat_messages(request.messages, self.spec.system_prompt),
                temperature=params.temperature,
                max_tokens=params.max_tokens,
                top_p=openai.omit if params.top_p is None else params.top_p,
                seed=openai.omit if params.seed is None else params.seed,
                response_format=self._response_format(request),
            )
        except (openai.OpenAIError, ValueError) as error:  # ValueError: a body that is not JSON
            raise classify_sdk_error(
                error, OPENAI_ERRORS, self._secrets, timeout=self._timeout
            ) from None
        output = completion_output(response)
        guide = request.guide
        if guide is None or not guide.fields:
            return output
        try:
            text = answer_from_json(guide, output.text)
        except ValueError as error:
            raise ModelCallError("bad_response", f"guided answer: {error}") from None
        return output.model_copy(update={"text": text})

    def _response_format(self, request: ModelRequest) -> Any:
        """Native structured output when asked for JSON and the server supports it.

        On by default for OpenAI itself; other OpenAI-compatible servers opt in with
        ``--option structured_output=true`` (many accept the field, some reject it). A guided
        request always carries its answer schema (the runner checked the server can take it).
        """
        schema = request.json_schema
        if request.guide is not None and request.guide.fields:
            reason = guided_unsupported(self.spec)
            if reason is not None:
                raise ModelCallError("client", reason)
            schema = answer_schema(request.guide)
        else:
            enabled = self.spec.options.get("structured_output", self.spec.provider == "openai")
            if schema is None or not enabled:
                return openai.omit
        return {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": schema, "strict": True},
        }

    async def aclose(self) -> None:
        await self._client.close()


def chat_messages(
    messages: list[ChatMessage], system_prompt: str | None
) -> list[ChatCompletionMessageParam]:
    """The conversation in OpenAI's format; ``system_prompt`` replaces any system message."""
    if system_prompt is not None:
        messages = [
            ChatMessage(role="system", content=system_prompt),
            *(message for message in messages if message.role != "system"),
        ]
    converted: list[ChatCompletionMessageParam] = []
    for message in messages:
        if message.role == "system":
            converted.append(
                ChatCompletionSystemMessageParam(role="system", content=message.content)
            )
        elif message.role == "user":
            converted.append(ChatCompletionUserMessageParam(role="user", content=message.content))
        else:
            converted.append(
                ChatCompletionAssistantMessageParam(role="assistant", content=message.content)
            )
    return converted


def completion_output(response: Any) -> ModelOutput:
    """Map a completion to ``ModelOutput``; raise ``ModelCallError`` for filtered or empty ones.

    ``response`` is untrusted: the SDK does not validate bodies, and returns plain text when the
    server does not answer JSON.
    """
    choices = getattr(response, "choices", None) if isinstance(response, ChatCompletion) else None
    choice = choices[0] if isinstance(choices, list) and choices else None
    message = getattr(choice, "message", None)
    if message is None:
        raise ModelCallError("bad_response", "the response holds no completion message")
    finish = str(getattr(choice, "finish_reason", None))
    if finish == "content_filter":
        raise ModelCallError("content_filter", "the provider's content filter stopped the answer")
    content = getattr(message, "content", None)
    text = content if isinstance(content, str) else ""
    refusal = getattr(message, "refusal", None)
    refusal = refusal if isinstance(refusal, str) and refusal else None
    if not text.strip() and refusal is None:
        if finish in ("length", "max_tokens"):
            raise ModelCallError(
                "incomplete",
                "empty answer: the token limit was reached before any text (raise max_tokens)",
            )
        raise ModelCallError("bad_response", f"empty answer (finish_reason={finish})")
    extra = getattr(message, "model_extra", None) or {}
    reasoning = next(
        (
            value
            for value in (extra.get(name) for name in REASONING_FIELDS)
            if isinstance(value, str) and value
        ),
        None,
    )
    usage = getattr(response, "usage", None)
    model = getattr(response, "model", None)
    return ModelOutput(
        text=text,
        reasoning=reasoning,
        stop_reason="refusal"
        if refusal is not None and not text.strip()
        else FINISH_REASONS.get(finish, "other"),
        refusal=refusal,
        input_tokens=token_count(getattr(usage, "prompt_tokens", None)),
        output_tokens=token_count(getattr(usage, "completion_tokens", None)),
        provider_model=model if isinstance(model, str) else None,
    )
