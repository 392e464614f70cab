"""Key checks call the model through the judges' shared path (``runtime.model_call.generate``
under ``ask_judge``): a real OpenAI-compatible adapter against a loopback server shows the
call retried and counted, the answer cached and served again without a request, and an
invalid answer re-asked and never served from the cache."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from empathybench.judging.key_check import KEY_CHECK_SCHEMA, KeyCheck, check_key
from empathybench.models.openai_compatible import OpenAICompatibleModel
from empathybench.models.registry import parse_model_id
from empathybench.records import Scenario, Suite
from empathybench.runtime.cache import ResponseCache
from tests.fakes.fake_llm_server import FakeLLMServer, ok, server_error


@pytest.fixture
def scenario(small_suite: Suite) -> Scenario:
    return next(s for s in small_suite.scenarios if s.kind == "emotion_support")


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeLLMServer() as fake:
        yield fake


def answer(scenario: Scenario) -> str:
    needs = scenario.expected.help_needed
    return json.dumps({"emotion": scenario.correct_letter, "needs_help": needs, "rationale": "r"})


def check(server: FakeLLMServer, scenario: Scenario, cache: ResponseCache | None) -> KeyCheck:
    spec = parse_model_id("openai-compatible/keys", base_url=server.openai_base_url)

    async def run() -> KeyCheck:
        model = OpenAICompatibleModel(spec)
        try:
            return await check_key(model, scenario, "sha", cache=cache)
        finally:
            await model.aclose()

    return asyncio.run(run())


def test_a_key_check_is_retried_counted_and_cached(
    server: FakeLLMServer, scenario: Scenario, tmp_path: Path
) -> None:
    cache = ResponseCache(tmp_path / "cache.sqlite")
    server.enqueue(server_error(503))
    server.default = ok(answer(scenario))
    first = check(server, scenario, cache)
    assert first.error is None and first.emotion == scenario.correct_letter
    assert first.attempts == 2 and len(server.requests) == 2
    again = check(server, scenario, cache)
    assert len(server.requests) == 2  # served from the cache: no request
    assert again.attempts == 0 and again.emotion == first.emotion
    assert again.raw_outputs == first.raw_outputs


def test_an_invalid_key_check_answer_is_re_asked_and_never_cached(
    server: FakeLLMServer, scenario: Scenario, tmp_path: Path
) -> None:
    cache = ResponseCache(tmp_path / "cache.sqlite")
    server.enqueue(ok("I would rather not say."))
    server.default = ok(answer(scenario))
    first = check(server, scenario, cache)
    assert first.emotion == scenario.correct_letter and len(first.raw_outputs) == 2
    reask = server.requests[1].body["messages"][-1]["content"]
    assert "no JSON object" in reask and "emotion's letter" in reask
    again = check(server, scenario, cache)
    # The unusable first answer was dropped from the cache, so it is asked for again (and the
    # valid answer then arrives at once); the re-ask is never needed a second time.
    assert len(server.requests) == 3 and again.raw_outputs == [answer(scenario)]


def test_the_structured_output_schema_and_so_the_cache_keys_are_unchanged() -> None:
    assert KEY_CHECK_SCHEMA == {
        "type": "object",
        "properties": {
            "emotion": {"type": "string", "enum": ["A", "B", "C"]},
            "needs_help": {"type": "boolean"},
            "rationale": {"type": "string"},
        },
        "required": ["emotion", "needs_help", "rationale"],
        "additionalProperties": False,
    }
