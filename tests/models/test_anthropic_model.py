"""The Anthropic adapter against a real local HTTP server speaking the Messages API format."""

from __future__ import annotations

import asyncio
import email.utils
import json
import time
import traceback
from collections.abc import Iterator

import pytest

from empathybench.errors import UserError
from empathybench.models.anthropic_model import AnthropicModel
from empathybench.models.base import GenerationParams, ModelCallError, ModelOutput, ModelRequest
from empathybench.models.registry import parse_model_id
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

KEY = "sk-ant-test-PLANTED-SECRET-123"
PROMPT = "My dog died this morning and I can't stop crying."


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake


@pytest.fixture(autouse=True)
def planted_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)


def make_model(
    server: FakeLLMServer,
    *,
    timeout: float = 1.0,
    system_prompt: str | None = None,
    api_version: str | None = None,
) -> AnthropicModel:
    options: dict[str, str | int | float | bool] = {"timeout": timeout}
    if api_version:
        options["api_version"] = api_version
    spec = parse_model_id(
        "anthropic/claude-test",
        base_url=server.anthropic_base_url,
        options=options,
        system_prompt=system_prompt,
    )
    return AnthropicModel(spec)


def request(
    prompt: str = PROMPT, *, system: str | None = None, params: GenerationParams | None = None
) -> ModelRequest:
    messages = [ChatMessage(role="system", content=system)] if system else []
    messages += [
        ChatMessage(role="user", content="Hello."),
        ChatMessage(role="assistant", content="Hi, how are you?"),
        ChatMessage(role="user", content=prompt),
    ]
    return ModelRequest(messages=messages, params=params or GenerationParams())


def call(model: AnthropicModel, *requests: ModelRequest) -> list[ModelOutput]:
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
    assert output.provider_model == "claude-test-fake-2025"
    [received] = server.requests
    assert received.path == "/v1/messages"
    assert received.body["model"] == "claude-test"
    assert received.body["max_tokens"] == 400
    # API version 2026-10-21 rejects any sampling parameter, so none is sent by default.
    assert "temperature" not in received.body and "top_p" not in received.body
    assert "system" not in received.body
    assert [message["role"] for message in received.body["messages"]] == [
        "user",
        "assistant",
        "user",
    ]


def test_system_message_goes_top_level_and_system_prompt_replaces_it(server: FakeLLMServer) -> None:
    params = GenerationParams(temperature=0.5, max_tokens=60, top_p=0.8)
    call(
        make_model(server, api_version="2023-06-01"),
        request(system="scenario system text", params=params),
    )
    call(make_model(server, system_prompt="You are a kind listener."), request(system="ignored"))
    first, second = server.requests
    assert first.body["system"] == "scenario system text"
    assert all(message["role"] != "system" for message in first.body["messages"])
    # With the older API version pinned, sampling parameters are sent (and the version header).
    assert (first.body["temperature"], first.body["max_tokens"], first.body["top_p"]) == (
        0.5,
        60,
        0.8,
    )
    assert first.headers["anthropic-version"] == "2023-06-01"
    assert second.body["system"] == "You are a kind listener."
    assert "temperature" not in second.body


def test_concurrent_calls_get_their_own_answers(server: FakeLLMServer) -> None:
    server.default = ok(latency=0.1)
    prompts = [f"prompt number {index} about loneliness" for index in range(30)]
    outputs = call(make_model(server), *(request(prompt) for prompt in prompts))
    assert [output.text for output in outputs] == [default_text(prompt) for prompt in prompts]
    assert all(server.count(prompt=prompt) == 1 for prompt in prompts)


@pytest.mark.parametrize(
    ("stop_reason", "expected"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("tool_use", "tool_use"),
        ("pause_turn", "other"),
    ],
)
def test_stop_reasons(server: FakeLLMServer, stop_reason: str, expected: str) -> None:
    assert answer(server, ok("Some text.", stop=stop_reason)).stop_reason == expected


def test_thinking_blocks_become_reasoning(server: FakeLLMServer) -> None:
    output = answer(server, ok("I'm so sorry.", reasoning="The user is grieving."))
    assert (output.text, output.reasoning) == ("I'm so sorry.", "The user is grieving.")


def test_refusal_keeps_its_text(server: FakeLLMServer) -> None:
    output = answer(server, ok(refusal="I can't help with that."))
    assert (output.text, output.refusal, output.stop_reason) == (
        "I can't help with that.",
        "I can't help with that.",
        "refusal",
    )


def test_refusal_without_text_is_still_an_answer(server: FakeLLMServer) -> None:
    output = answer(server, ok(refusal=""))
    assert (output.text, output.refusal, output.stop_reason) == ("", None, "refusal")


@pytest.mark.parametrize(
    ("behaviour", "kind", "status", "retry_after"),
    [
        (rate_limit(retry_after=12), "rate_limit", 429, 12.0),
        (rate_limit(retry_after="0.25"), "rate_limit", 429, 0.25),
        (server_error(500), "server", 500, None),
        (server_error(529), "server", 529, None),
        (client_error(408), "timeout", 408, None),
        (malformed_json(), "bad_response", None, None),
        (not_json(), "bad_response", None, None),
        (empty_content(), "bad_response", None, None),
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


def test_overloaded_keeps_the_provider_message(server: FakeLLMServer) -> None:
    assert failure(server, server_error(529)).message == "Overloaded"


@pytest.mark.parametrize(
    ("status", "kind"),
    [(400, "client"), (401, "auth"), (403, "auth"), (404, "client"), (413, "client")],
)
def test_final_faults(server: FakeLLMServer, status: int, kind: str) -> None:
    error = failure(server, client_error(status))
    assert (error.kind, error.status, error.retryable) == (kind, status, False)


def test_retry_after_as_http_date(server: FakeLLMServer) -> None:
    when = email.utils.formatdate(time.time() + 60, usegmt=True)
    error = failure(server, rate_limit(retry_after=when))
    assert error.retry_after is not None and 57 <= error.retry_after <= 60


def test_slow_answer_times_out(server: FakeLLMServer) -> None:
    started = time.monotonic()
    error = failure(server, slow(5), timeout=0.3)
    assert error.kind == "timeout" and error.retryable
    assert time.monotonic() - started < 1.5


def test_key_is_sent_but_never_shown(server: FakeLLMServer) -> None:
    model = make_model(server)
    assert KEY not in repr(model)
    error = failure(server, client_error(401))  # the fake echoes the key it received
    headers = server.requests[0].headers  # anthropic 2.x sends the key as a bearer token
    assert headers.get("x-api-key") == KEY or headers.get("authorization") == f"Bearer {KEY}"
    shown = [str(error), repr(error), error.message, "".join(traceback.format_exception(error))]
    assert all(KEY not in text for text in shown)
    assert "***" in error.message


def test_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with pytest.raises(UserError, match="ANTHROPIC_API_KEY"):
        AnthropicModel(parse_model_id("anthropic/claude-test"))


SCHEMA = {
    "type": "object",
    "properties": {"cheering_up": {"type": "number", "enum": [0, 0.5, 1]}},
    "required": ["cheering_up"],
    "additionalProperties": False,
}


def json_request(schema: dict[str, object] | None = SCHEMA) -> ModelRequest:
    return request().model_copy(update={"json_schema": schema})


def test_json_requests_force_the_answer_tool_and_read_its_input(server: FakeLLMServer) -> None:
    server.default = ok(tool_inputs=({"cheering_up": 0.5},))
    [output] = call(make_model(server), json_request())
    assert json.loads(output.text) == {"cheering_up": 0.5}
    assert output.stop_reason == "tool_use"
    [received] = server.requests
    [tool] = received.body["tools"]
    assert tool["name"] == "record_answer" and tool["input_schema"] == SCHEMA
    assert received.body["tool_choice"] == {"type": "tool", "name": "record_answer"}


def test_plain_requests_and_structured_output_off_send_no_tool(server: FakeLLMServer) -> None:
    call(make_model(server), request())
    spec = parse_model_id(
        "anthropic/claude-test",
        base_url=server.anthropic_base_url,
        options={"timeout": 1.0, "structured_output": False},
    )
    [output] = call(AnthropicModel(spec), json_request())
    assert output.text == default_text(PROMPT)  # the text answer, read as usual
    assert all("tools" not in r.body and "tool_choice" not in r.body for r in server.requests)


def test_tool_answers_that_are_not_one_object(server: FakeLLMServer) -> None:
    server.default = ok(tool_inputs=(["not", "an", "object"],))
    with pytest.raises(ModelCallError, match="not an object") as caught:
        call(make_model(server), json_request())
    assert caught.value.kind == "bad_response"
    # Two calls come back as two objects, which a judge's answer check rejects as ambiguous.
    server.default = ok(tool_inputs=({"cheering_up": 1}, {"cheering_up": 0}))
    [output] = call(make_model(server), json_request())
    assert [json.loads(line) for line in output.text.splitlines()] == [
        {"cheering_up": 1},
        {"cheering_up": 0},
    ]
    # Without a tool call the text blocks are the answer (and checked like any text answer).
    server.default = ok('{"cheering_up": 1}')
    assert call(make_model(server), json_request())[0].text == '{"cheering_up": 1}'
