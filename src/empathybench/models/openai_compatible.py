"""Every OpenAI-compatible chat endpoint (OpenAI, OpenRouter, DeepSeek, Ollama, vLLM, llama.cpp)
through the official ``openai`` SDK, with its retries off: one call, one HTTP request.

The hosted providers use this adapter by default; local servers use the lean client
(``openai_http``) unless ``--option client=sdk`` asks for this one. Both send the same body
and read answers the same way (``openai_format``).

A guided request (see ``models.guided``) is sent with a strict JSON schema as
``response_format`` (an enum per answer field, then the reply as a string), which llama.cpp
and vLLM servers enforce by grammar; the JSON that comes back is turned into the usual answer
text (``EMOTION: B`` …), so nothing downstream changes. A guide without fields (the therapy
prompt) is sent as an ordinary request.
"""

from __future__ import annotations

from typing import Any, cast

import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam

from empathybench.models.base import ModelCallError, ModelOutput, ModelRequest, ModelSpec
from empathybench.models.http_errors import SdkErrors, classify_sdk_error, timeout_seconds
from empathybench.models.openai_format import (
    chat_messages,
    guided_output,
    output_from_parts,
    response_format,
)
from empathybench.models.registry import resolve_api_key
from empathybench.runtime.url_secrets import redact_url

NO_KEY = "not-needed"
"""Sent to local servers that need no key (the SDK refuses to start without one)."""
OPENAI_ERRORS = SdkErrors(
    status=openai.APIStatusError,
    timeout=openai.APITimeoutError,
    connection=openai.APIConnectionError,
    validation=openai.APIResponseValidationError,
    base=openai.OpenAIError,
)


class OpenAICompatibleModel:
    """``ModelAPI`` for one model behind a ``/chat/completions`` endpoint, via the SDK."""

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        key = resolve_api_key(spec)
        self._secrets = (key,)
        self._timeout = timeout_seconds(spec)
        self._client = openai.AsyncOpenAI(
            base_url=spec.base_url, api_key=key or NO_KEY, max_retries=0, timeout=self._timeout
        )

    def __repr__(self) -> str:
        url = redact_url(self.spec.base_url) if self.spec.base_url else None
        return f"{type(self).__name__}({self.spec.id!r}, base_url={url!r})"

    async def generate(self, request: ModelRequest) -> ModelOutput:
        params = request.params
        structured = response_format(self.spec, request)
        try:
            response = await self._client.chat.completions.create(
                model=self.spec.name,
                messages=cast(
                    list[ChatCompletionMessageParam],
                    chat_messages(request.messages, self.spec.system_prompt),
                ),
                temperature=params.temperature,
                max_tokens=params.max_tokens,
                top_p=openai.omit if params.top_p is None else params.top_p,
                seed=openai.omit if params.seed is None else params.seed,
                response_format=openai.omit if structured is None else cast(Any, structured),
            )
        except (openai.OpenAIError, ValueError) as error:  # ValueError: a body that is not JSON
            raise classify_sdk_error(
                error, OPENAI_ERRORS, self._secrets, timeout=self._timeout
            ) from None
        return guided_output(request, completion_output(response))

    async def aclose(self) -> None:
        await self._client.close()


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
    usage = getattr(response, "usage", None)
    return output_from_parts(
        finish=str(getattr(choice, "finish_reason", None)),
        content=getattr(message, "content", None),
        refusal=getattr(message, "refusal", None),
        extra=getattr(message, "model_extra", None) or {},
        prompt_tokens=getattr(usage, "prompt_tokens", None),
        completion_tokens=getattr(usage, "completion_tokens", None),
        model=getattr(response, "model", None),
    )
