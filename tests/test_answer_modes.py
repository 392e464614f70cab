"""``--answer-mode``: defaults per provider, refusals, cache keys, and guided structured output."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from empathybench.cli import error_message
from empathybench.errors import ParameterError, UserError
from empathybench.judging.answer_parser import parse_answer
from empathybench.models.base import GenerationParams, ModelRequest
from empathybench.models.guided import AnswerGuide, GuidedField
from empathybench.models.registry import parse_model_id, resolve_answer_mode
from empathybench.records import ChatMessage, Suite
from empathybench.runner import RunOptions, execute_run, run_answer_mode
from empathybench.runtime.cache import cache_key
from tests.fakes.cli_process import run_cli
from tests.fakes.fake_llm_server import FakeLLMServer, ok

MESSAGES = [
    ChatMessage(role="system", content="Be kind."),
    ChatMessage(role="user", content="EMOTION: <A, B or C>"),
]
VERSIONS = {"strategy": "plain-v1", "prompt": "scenario-prompt-v1"}


def test_free_cache_keys_are_unchanged_by_guided_answers() -> None:
    """Keys computed before guided answers existed (commit f25b5bd): old caches still hit."""
    local = parse_model_id(
        "local/smollm2",
        params=GenerationParams(max_tokens=160),
        options={"batch_size": 100, "threads": 2},
    )
    request = ModelRequest(messages=MESSAGES, params=local.params)
    assert cache_key(local, request, epoch=0, versions=VERSIONS) == (
        "807691ff2d5112d319dd165c9d678156dca97ca3cdea27e32b88ff9ca6e9372d"
    )
    remote = parse_model_id("openai/gpt-4o-mini", params=GenerationParams(temperature=0.7, seed=3))
    therapy = {"strategy": "plain-v1", "prompt": "therapist-prompt-v1"}
    assert cache_key(
        remote, ModelRequest(messages=MESSAGES, params=remote.params), epoch=1, versions=therapy
    ) == ("00772c35b54caed8ebb8f9cc6491a8647a91f798b8ecc7e69b5d474eeae1534a")


def test_guided_and_free_answers_never_share_a_key() -> None:
    spec = parse_model_id("local/smollm2")
    free = ModelRequest(messages=MESSAGES, params=spec.params)
    guide = AnswerGuide(fields=[GuidedField(label="EMOTION", choices=["A", "B", "C"])])
    guided = free.model_copy(update={"guide": guide})
    other = free.model_copy(update={"guide": AnswerGuide()})
    keys = {cache_key(spec, r, epoch=0, versions=VERSIONS) for r in (free, guided, other)}
    assert len(keys) == 3


@pytest.mark.parametrize(
    ("model_id", "options", "requested", "mode"),
    [
        ("local/smollm2", {}, None, "guided"),
        ("local/smollm2", {}, "free", "free"),
        ("mock/x", {}, None, "free"),
        ("anthropic/claude-x", {}, None, "free"),
        ("openai/gpt-x", {}, None, "free"),
        ("llamacpp/smollm2", {}, "guided", "guided"),
        ("vllm/qwen", {}, "guided", "guided"),
        ("openai/gpt-x", {"structured_output": True}, "guided", "guided"),
        ("ollama/llama3", {"structured_output": True}, "guided", "guided"),
    ],
)
def test_answer_mode_defaults_and_support(
    model_id: str, options: dict[str, Any], requested: str | None, mode: str
) -> None:
    assert resolve_answer_mode(parse_model_id(model_id, options=options), requested) == mode


@pytest.mark.parametrize(
    ("model_id", "options", "message"),
    [
        ("mock/x", {}, "not available for mock"),
        ("anthropic/claude-x", {}, "not available for anthropic"),
        ("openai/gpt-x", {}, "structured_output=true"),
        ("llamacpp/smollm2", {"structured_output": False}, "structured_output=true"),
    ],
)
def test_guided_is_refused_where_it_cannot_be_done(
    model_id: str, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(UserError, match=message):
        resolve_answer_mode(parse_model_id(model_id, options=options), "guided")
    with pytest.raises(UserError, match="one of: guided, free"):
        resolve_answer_mode(parse_model_id(model_id, options=options), "strict")


@pytest.mark.parametrize("option", ["no_copy_ngram", "repetition_penalty", "reply_opening"])
def test_free_answers_refuse_options_only_guided_decoding_reads(option: str) -> None:
    spec = parse_model_id("local/smollm2", options={option: 3})
    with pytest.raises(UserError, match=f"{option} shape guided answers only"):
        resolve_answer_mode(spec, "free")
    assert resolve_answer_mode(spec, "guided") == "guided"
    assert resolve_answer_mode(spec, None) == "guided"
    # A reasoning strategy makes a local run answer free by default: refused there too.
    with pytest.raises(UserError, match=f"{option} shape guided answers only.*chain-of-empathy"):
        run_answer_mode(spec, "chain-of-empathy", None)


@pytest.mark.parametrize("model_id", ["mock/tested", "anthropic/claude-x", "openai/gpt-x"])
def test_cli_refuses_guided_before_any_model_call(model_id: str, tmp_path: Path) -> None:
    calls = tmp_path / "calls.log"
    result = run_cli(
        "run",
        "--model",
        model_id,
        "--answer-mode",
        "guided",
        "--option",
        f"call_log={calls}",
        "--limit",
        "2",
        "--no-progress",
        "--no-judge",
        cwd=tmp_path,
    )
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --answer-mode guided")
    assert not calls.exists() and not (tmp_path / "runs").exists()


def test_mock_runs_stay_free_and_say_so(small_suite: Suite, run_dir: Path) -> None:
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["answer_mode"] == "free"


def structured_reply(body: Any, attempt: int) -> Any:
    schema = body["response_format"]["json_schema"]["schema"]
    answer = {
        name: spec["enum"][-1] for name, spec in schema["properties"].items() if "enum" in spec
    }
    answer["reply"] = "I'm right here with you.\nEMOTION: A"
    return ok(json.dumps(answer))


def test_guided_runs_on_a_schema_server_store_the_usual_text(
    small_suite: Suite, small_suite_path: Path, tmp_path: Path
) -> None:
    with FakeLLMServer(script=structured_reply) as server:
        spec = parse_model_id("llamacpp/smollm2", base_url=server.openai_base_url)
        result = asyncio.run(
            execute_run(
                RunOptions(
                    suite=small_suite,
                    suite_source=str(small_suite_path),
                    spec=spec,
                    run_dir=tmp_path / "run",
                    limit=12,
                    answer_mode="guided",
                )
            )
        )
        bodies = [request.body for request in server.requests]
    assert result.manifest.answer_mode == "guided" and result.manifest.status == "complete"
    for body in bodies:
        response_format = body["response_format"]
        assert response_format["type"] == "json_schema"
        assert response_format["json_schema"]["strict"] is True
        properties = response_format["json_schema"]["schema"]["properties"]
        assert properties["emotion"]["enum"] == ["A", "B", "C"]
        assert properties["needs_help"]["enum"] == ["yes", "no"]
        assert properties["reply"] == {"type": "string"}
    scenarios = {s.id: s for s in small_suite.scenarios}
    group = 0
    for (scenario_id, _), response in result.responses.items():
        scenario = scenarios[scenario_id]
        parsed = parse_answer(response.text or "", scenario.options)
        assert (parsed.letter, parsed.needs_help) == ("C", False)
        assert parsed.reply == "I'm right here with you."
        if scenario.kind == "group":
            group += 1
            assert parsed.person == scenario.participants[-1].name
    assert group > 0


def test_therapy_run_refuses_guided_for_mock(tmp_path: Path) -> None:
    result = run_cli(
        "therapy",
        "run",
        "--model",
        "mock/tested",
        "--answer-mode",
        "guided",
        "--study",
        "s",
        "--limit",
        "2",
        "--no-progress",
        cwd=tmp_path,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().startswith("error: --answer-mode guided is not available")
    assert not (tmp_path / "s").exists()


def test_reasoning_strategies_need_free_answers() -> None:
    local = parse_model_id("local/smollm2")
    assert run_answer_mode(local, "plain", None) == "guided"
    assert run_answer_mode(local, "chain-of-empathy", None) == "free"
    assert run_answer_mode(local, "empathize-first", "free") == "free"
    with pytest.raises(ParameterError, match="use answer_mode=free") as raised:
        run_answer_mode(local, "chain-of-empathy", "guided")
    assert "--answer-mode free" in error_message(raised.value)  # the CLI names its flags
    assert "--strategy chain-of-empathy asks" in error_message(raised.value)
