"""The OpenAI-compatible adapters (the lean aiohttp client and the SDK) against a real local
HTTP server speaking the OpenAI format: every test runs against both."""

from __future__ import annotations

import asyncio
import email.utils
import time
import traceback
from collections.abc import Iterator

import pytest

import tests.models.test_openai_compatible as this_module
from empathybench.errors import UserError
from empathybench.models.base import (
    GenerationParams,
    ModelAPI,
    ModelCallError,
    ModelOutput,
    ModelRequest,
)
from empathybench.models.openai_compatible import OpenAICompatibleModel
from empathybench.models.openai_http import OpenAIHttpModel
from empathybench.models.registry import CLIENTS, create_model, parse_model_id
from empathybench.records import ChatMessage
from tests.fakes.fake_llm_server import (
    Behaviour,
    FakeLLMServer,
    client_error,
    default_text,
    drop_connection,
    empty_content,
    malformed_json,
    not_json,
    ok,
    rate_limit,
    server_error,
    slow,
)

KEY = "sk-test-PLANTED-SECRET-123"
PROMPT = "I feel lost since my sister moved away."


CLIENT = "lean"
"""The adapter the tests make; the ``client`` fixture runs each test with both."""


@pytest.fixture(params=CLIENTS, autouse=True)
def client(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(this_module, "CLIENT", request.param)
    return str(request.param)


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake


@pytest.fixture(autouse=True)
def planted_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def make_model(
    server: FakeLLMServer,
    model_id: str = "openai/gpt-test",
    *,
    timeout: float = 1.0,
    system_prompt: str | None = None,
) -> ModelAPI:
    spec = parse_model_id(
        model_id,
        base_url=server.openai_base_url,
        options={"timeout": timeout, "client": CLIENT},
        system_prompt=system_prompt,
    )
    model = create_model(spec, max_connections=64)
    assert isinstance(model, OpenAIHttpModel if CLIENT == "lean" else OpenAICompatibleModel)
    return model


def request(
    prompt: str = PROMPT, *, system: str | None = None, params: GenerationParams | None = None
) -> ModelRequest:
    messages = [ChatMessage(role="system", content=system)] if system else []
    messages.append(ChatMessage(role="user", content=prompt))
    return ModelRequest(messages=messages, params=params or GenerationParams())


def call(model: ModelAPI, *requests: ModelRequest) -> list[ModelOutput]:
    async def run() -> list[ModelOutput]:
        try:
            return list(await asyncio.gather(*(model.generate(r) for r in requests)))
        finally:
            await model.aclose()

    return asyncio.run(run())


def answer(server: FakeLLMServer, behaviour: Behaviour | None = None) -> ModelOutput:
    if behaviour is not None:
        server.default = behaviour
    return call(make_model(server), request())[0]


def failure(server: FakeLLMServer, behaviour: Behaviour, *, timeout: float = 1.0) -> ModelCallError:
    server.default = behaviour
    with pytest.raises(ModelCallError) as caught:
        call(make_model(server, timeout=timeout), request())
    assert server.count(prompt=PROMPT) == 1, "exactly one HTTP request per call (no SDK retries)"
    return caught.value


def test_success_maps_text_usage_and_model(server: FakeLLMServer) -> None:
    output = answer(server)
    assert output.text == default_text(PROMPT)
    assert output.stop_reason == "stop"
    assert output.refusal is None and output.reasoning is None
    assert output.input_tokens and output.output_tokens == len(output.text.split())
    assert output.provider_model == "gpt-test-fake-2025"
    [received] = server.requests
    assert received.path == "/v1/chat/completions"
    assert received.body["model"] == "gpt-test"
    assert received.body["temperature"] == 0.0 and received.body["max_tokens"] == 400
    assert "top_p" not in received.body and "seed" not in received.body


def test_parameters_are_sent_and_system_prompt_replaces_system_message(
    server: FakeLLMServer,
) -> None:
    model = make_model(server, system_prompt="You are a kind listener.")
    params = GenerationParams(temperature=0.7, max_tokens=50, top_p=0.9, seed=7)
    call(model, request(system="scenario system text", params=params))
    body = server.requests[0].body
    assert body["messages"] == [
        {"role": "system", "content": "You are a kind listener."},
        {"role": "user", "content": PROMPT},
    ]
    assert (body["temperature"], body["max_tokens"], body["top_p"], body["seed"]) == (
        0.7,
        50,
        0.9,
        7,
    )


def test_different_prompts_get_different_answers_concurrently(server: FakeLLMServer) -> None:
    server.default = ok(latency=0.1)
    prompts = [f"prompt number {index} about grief" for index in range(50)]
    started = time.monotonic()
    outputs = call(make_model(server), *(request(prompt) for prompt in prompts))
    assert time.monotonic() - started < 1.5, "the fake server must serve requests in parallel"
    assert [output.text for output in outputs] == [default_text(prompt) for prompt in prompts]
    assert all(server.count(prompt=prompt) == 1 for prompt in prompts)
    assert server.max_in_flight >= 25


@pytest.mark.parametrize(
    ("finish_reason", "expected"),
    [("stop", "stop"), ("length", "length"), ("tool_calls", "tool_use"), ("eos", "other")],
)
def test_finish_reasons(server: FakeLLMServer, finish_reason: str, expected: str) -> None:
    assert answer(server, ok("Some text.", stop=finish_reason)).stop_reason == expected


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_reasoning_from_provider_extra_fields(server: FakeLLMServer, field: str) -> None:
    output = answer(server, ok("Answer.", reasoning="She seems sad.", reasoning_field=field))
    assert (output.text, output.reasoning) == ("Answer.", "She seems sad.")


def test_refusal_is_an_answer_not_an_error(server: FakeLLMServer) -> None:
    output = answer(server, ok(refusal="I can't help with that."))
    assert (output.text, output.refusal, output.stop_reason) == (
        "",
        "I can't help with that.",
        "refusal",
    )


def test_content_filter_is_a_final_error(server: FakeLLMServer) -> None:
    error = failure(server, ok("partial", stop="content_filter"))
    assert error.kind == "content_filter" and not error.retryable


@pytest.mark.parametrize(
    ("behaviour", "kind", "status", "retry_after"),
    [
        (rate_limit(retry_after=7), "rate_limit", 429, 7.0),
        (rate_limit(retry_after=None, retry_after_ms=1500), "rate_limit", 429, 1.5),
        (rate_limit(retry_after=None), "rate_limit", 429, None),
        (server_error(500), "server", 500, None),
        (server_error(503), "server", 503, None),
        (server_error(529), "server", 529, None),
        (client_error(408), "timeout", 408, None),
        (malformed_json(), "bad_response", None, None),
        (not_json(), "bad_response", None, None),
        (empty_content(), "bad_response", None, None),
        (empty_content(null=True), "bad_response", None, None),
        (drop_connection(), "connection", None, None),
    ],
    ids=lambda value: value.action if isinstance(value, Behaviour) else None,
)
def test_retryable_faults(
    server: FakeLLMServer,
    behaviour: Behaviour,
    kind: str,
    status: int | None,
    retry_after: float | None,
) -> None:
    error = failure(server, behaviour)
    assert (error.kind, error.status, error.retry_after) == (kind, status, retry_after)
    assert error.retryable
    assert 0 < len(error.message) <= 240 and "\n" not in str(error)


@pytest.mark.parametrize(
    ("status", "kind"),
    [(400, "client"), (401, "auth"), (403, "auth"), (404, "client"), (422, "client")],
)
def test_final_faults(server: FakeLLMServer, status: int, kind: str) -> None:
    error = failure(server, client_error(status))
    assert (error.kind, error.status, error.retryable) == (kind, status, False)


def test_retry_after_as_http_date(server: FakeLLMServer) -> None:
    when = email.utils.formatdate(time.time() + 30, usegmt=True)
    error = failure(server, rate_limit(retry_after=when))
    assert error.retry_after is not None and 27 <= error.retry_after <= 30


def test_slow_answer_times_out(server: FakeLLMServer) -> None:
    started = time.monotonic()
    error = failure(server, slow(5), timeout=0.3)
    assert error.kind == "timeout" and error.retryable and "0.3" in error.message
    assert time.monotonic() - started < 1.5


def test_connection_drop_names_the_cause(server: FakeLLMServer) -> None:
    assert "disconnected" in failure(server, drop_connection()).message.lower()


def test_key_is_sent_but_never_shown(server: FakeLLMServer) -> None:
    model = make_model(server)
    assert KEY not in repr(model)
    error = failure(server, client_error(401))  # the fake echoes the key it received, as OpenAI
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    shown = [str(error), repr(error), error.message, "".join(traceback.format_exception(error))]
    assert all(KEY not in text for text in shown)
    assert "***" in error.message


def test_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(UserError, match="OPENAI_API_KEY"):
        create_model(parse_model_id("openai/gpt-test", options={"client": CLIENT}))


def test_keyless_provider_sends_a_placeholder(
    server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VLLM_API_KEY", raising=False)
    output = call(make_model(server, "vllm/qwen-test"), request())[0]
    assert output.text == default_text(PROMPT)
    assert server.requests[0].headers["authorization"] == "Bearer not-needed"


@pytest.mark.parametrize("timeout", ["soon", 0, -1, True])
def test_bad_timeout_option_is_a_user_error(server: FakeLLMServer, timeout: object) -> None:
    options = {"timeout": timeout, "client": CLIENT}
    with pytest.raises(UserError, match="timeout"):  # refused by parse_model_id or the adapter
        spec = parse_model_id("openai/gpt-test", options=options)  # type: ignore[arg-type]
        create_model(spec)


def test_empty_answer_at_the_token_limit_is_incomplete_and_not_retried(
    server: FakeLLMServer,
) -> None:
    error = failure(server, ok(text="", stop="length"))
    assert error.kind == "incomplete" and not error.retryable
    assert "raise max_tokens" in error.message


def test_local_servers_default_to_the_lean_client_and_hosted_ones_to_the_sdk() -> None:
    assert isinstance(create_model(parse_model_id("vllm/qwen-test")), OpenAIHttpModel)
    assert isinstance(create_model(parse_model_id("openai/gpt-test")), OpenAICompatibleModel)
    with pytest.raises(UserError, match="client must be one of"):
        create_model(parse_model_id("vllm/qwen-test", options={"client": "fast"}))
    with pytest.raises(UserError, match="only to OpenAI-compatible"):
        create_model(parse_model_id("mock/echo", options={"client": "lean"}))


def test_the_lean_pool_keeps_connections_alive_up_to_max_connections(
    server: FakeLLMServer, client: str
) -> None:
    if client != "lean":
        pytest.skip("the pool size is the lean client's")
    server.default = ok(latency=0.05)
    model = make_model(server)
    assert isinstance(model, OpenAIHttpModel)
    model.size_pool(4)
    call(model, *(request(f"prompt {index}") for index in range(40)))
    assert server.max_in_flight == 4 and server.count() == 40
    assert server.connections == 4, "each of the 4 pooled connections served 10 requests"


def test_the_lean_client_takes_its_proxy_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from empathybench.models.openai_http import env_proxy

    monkeypatch.setenv("https_proxy", "http://proxy.internal:3128")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    assert env_proxy("https://api.example.test/v1/chat/completions") == (
        "http://proxy.internal:3128"
    )
    assert env_proxy("http://127.0.0.1:8000/v1/chat/completions") is None
