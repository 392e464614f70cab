import pytest

from empathybench.errors import UserError
from empathybench.judging.families import check_judge, family_of
from empathybench.models.registry import parse_model_id


@pytest.mark.parametrize(
    ("model_id", "family"),
    [
        ("openai/gpt-4o-mini", "openai"),
        ("openai/o4-mini", "openai"),
        ("openrouter/openai/o3", "openai"),
        ("anthropic/claude-sonnet-4-5", "anthropic"),
        ("openrouter/anthropic/claude-3.5-haiku", "anthropic"),
        ("openrouter/google/gemini-2.5-pro", "google"),
        ("openrouter/qwen/qwen3-30b-a3b", "qwen"),
        ("deepseek/deepseek-reasoner", "deepseek"),
        ("ollama/llama3.1", "meta-llama"),
        ("openrouter/mistralai/mixtral-8x7b", "mistral"),
        ("local/smollm2", "huggingface-smollm"),
        ("openrouter/inception/mercury", "inception"),
        ("openrouter/x-ai/grok-4", "xai"),
    ],
)
def test_families_are_recognised_through_routers(model_id: str, family: str) -> None:
    assert family_of(parse_model_id(model_id)) == family


def test_a_judge_from_the_same_family_is_refused_unless_allowed() -> None:
    tested = parse_model_id("openai/gpt-4o-mini")
    judge = parse_model_id("openrouter/openai/gpt-5")
    with pytest.raises(UserError, match="same family"):
        check_judge(tested, judge, allow_self_judge=False)
    decision = check_judge(tested, judge, allow_self_judge=True)
    assert decision.same_family and decision.allowed
    assert "allow_self_judge" in decision.reason


def test_the_same_model_is_refused_even_with_an_unknown_family() -> None:
    spec = parse_model_id("openai-compatible/house-model", base_url="http://127.0.0.1:1/v1")
    with pytest.raises(UserError):
        check_judge(spec, spec, allow_self_judge=False)


def test_different_families_pass_and_unknown_is_said_plainly() -> None:
    decision = check_judge(
        parse_model_id("anthropic/claude-x"),
        parse_model_id("openai/gpt-4o"),
        allow_self_judge=False,
    )
    assert not decision.same_family and decision.reason == "different families"
    unknown = check_judge(
        parse_model_id("openai-compatible/house", base_url="http://127.0.0.1:1/v1"),
        parse_model_id("openai/gpt-4o"),
        allow_self_judge=False,
    )
    assert "unknown" in unknown.reason
