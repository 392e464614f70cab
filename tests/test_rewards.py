"""``empathybench.rewards``: a GRPO-shaped reward and a training set apart from the suites."""

from __future__ import annotations

import inspect
import json

import pytest

from empathybench.errors import UserError
from empathybench.records import Scenario
from empathybench.rewards import empathy_reward, training_prompts
from empathybench.scenarios.generator import prompt_digest
from empathybench.scenarios.suites import load_suite
from empathybench.scenarios.templates import DEFAULT_TEMPLATE_VERSION


def test_signature_is_what_grpo_passes() -> None:
    parameters = inspect.signature(empathy_reward).parameters
    assert list(parameters)[:2] == ["prompts", "completions"]
    assert any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


def _answer(scenario: Scenario, reply: str, *, right: bool = True) -> str:
    letter = (
        scenario.correct_letter if right else next(x for x in "ABC" if x != scenario.correct_letter)
    )
    help_answer = "yes" if scenario.expected.help_needed == right else "no"
    return f"EMOTION: {letter}\nNEEDS_HELP: {help_answer}\nREPLY: {reply}"


def test_rewards_order_range_and_what_they_prefer() -> None:
    scenario = next(s for s in load_suite("standard-v1").scenarios if s.kind == "emotion_support")
    warm = _answer(
        scenario,
        "That sounds really hard, and it makes sense you feel this way. I'm here with you: "
        "would it help if we worked out the next step together, one thing at a time?",
    )
    cold = _answer(scenario, "Okay. Noted.")
    options_only = "\n".join(f"{x}) {o}" for x, o in zip("ABC", scenario.options, strict=True))
    no_reply = _answer(scenario, "")
    wrong = _answer(scenario, "Okay. Noted.", right=False)
    completions = [warm, cold, options_only, no_reply, wrong]
    rewards = empathy_reward([scenario.messages] * 5, completions, scenario_id=[scenario.id] * 5)
    assert len(rewards) == 5 and all(0.0 <= r <= 1.0 for r in rewards)
    assert rewards[2] == 0.0 and rewards[3] == 0.0  # no reply, however right the letters
    assert rewards[0] > rewards[1] > rewards[4]
    # Ordering: the same completions reversed give the same rewards reversed.
    again = empathy_reward([None] * 5, completions[::-1], scenario_id=[scenario.id] * 5)
    assert again == pytest.approx(rewards[::-1], abs=1e-6)
    # Conversational completions read the same as text.
    chat = empathy_reward(
        [None], [[{"role": "assistant", "content": warm}]], scenario_id=[scenario.id]
    )
    assert chat == pytest.approx(rewards[:1], abs=1e-6)


def test_training_prompts_never_overlap_the_suites_and_feed_the_reward() -> None:
    rows = training_prompts(30, seed=7)
    assert len(rows) == 30 and len({r["scenario_id"] for r in rows}) == 30
    # the newest template version unless asked otherwise, like every generator entry point
    assert {json.loads(r["scenario"])["template_version"] for r in rows} == {
        DEFAULT_TEMPLATE_VERSION
    }
    suite_prompts = {
        prompt_digest([(m.role, m.content) for m in s.messages])
        for name in ("standard-v1", "standard-v4")
        for s in load_suite(name).scenarios
    }
    for row in rows:
        digest = prompt_digest([(m["role"], m["content"]) for m in row["prompt"]])
        assert digest not in suite_prompts
    rewards = empathy_reward(
        [r["prompt"] for r in rows[:3]],
        ["REPLY: I'm sorry, that sounds hard. I'm here if you want to talk."] * 3,
        scenario=[r["scenario"] for r in rows[:3]],
    )
    assert len(rewards) == 3


def test_the_suite_seed_still_yields_unseen_items() -> None:
    info = load_suite("standard-v1").info
    assert info is not None
    rows = training_prompts(5, seed=info.seed)
    suite_ids = {s.id for s in load_suite("standard-v1").scenarios}
    assert not {r["scenario_id"] for r in rows} & suite_ids


def test_missing_items_are_one_clear_error() -> None:
    with pytest.raises(UserError, match="scenario"):
        empathy_reward(["p"], ["c"])
    with pytest.raises(UserError, match="unknown scenario_id"):
        empathy_reward(["p"], ["c"], scenario_id=["nope"])
    with pytest.raises(UserError, match="at least 1"):
        training_prompts(0, seed=1)
