"""The Inspect AI tasks, run in-process with Inspect's ``mockllm`` models.

Needs the ``inspect`` extra (``pip install -e ".[inspect]"``). CI installs it and sets
EMPATHYBENCH_REQUIRE_INSPECT=1, so a missing Inspect fails the run instead of skipping it.
The tested model and the grader are scripted ``mockllm`` models that report token usage
themselves (mockllm's default output counts tokens with a tokenizer file it downloads).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import math
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

if importlib.util.find_spec("inspect_ai") is None:
    if os.environ.get("EMPATHYBENCH_REQUIRE_INSPECT"):
        pytest.fail("inspect-ai is not installed: pip install -e '.[inspect]'", pytrace=False)
    pytest.skip("needs the inspect extra (inspect-ai)", allow_module_level=True)

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, Model, ModelOutput, ModelUsage, get_model

import empathybench._registry  # noqa: F401  (registers the tasks, as the entry point does)
from empathybench.errors import UserError
from empathybench.inspect_eval.tasks import BUNDLED_TASKS, generated, suite, task_name
from empathybench.judging.answer_parser import help_answer_correct, parse_answer
from empathybench.judging.judge_prompt import judged_dimensions
from empathybench.prompts.strategies import apply_strategy, get_strategy
from empathybench.records import DIMENSIONS, Scenario
from empathybench.scenarios.generator import generate
from empathybench.scenarios.suites import bundled_suites, load_suite

SUITE = "standard-v1"
TEXT_NAN = "nan"


def scripted(
    answer: Callable[[list[ChatMessage]], str], calls: list[str] | None = None, name: str = "model"
) -> Model:
    """A mockllm model whose every output is ``answer(input)``, with its usage filled in."""

    def output(
        messages: list[ChatMessage], tools: object, tool_choice: object, config: object
    ) -> ModelOutput:
        text = answer(messages)
        if calls is not None:
            calls.append(text)
        result = ModelOutput.from_content(model=f"mockllm/{name}", content=text)
        result.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return result

    return get_model(f"mockllm/{name}", custom_outputs=output)


def full_marks(messages: list[ChatMessage]) -> str:
    """A grader that gives 1 on exactly the dimensions the judge prompt asks for."""
    prompt = messages[-1].text
    asked = re.search(r"Score these dimensions: ([a-z_, ]+)\.", prompt)
    assert asked is not None, "the grader was not sent our judge prompt"
    judgement: dict[str, Any] = {
        name.strip(): {"score": 1, "rationale": "scripted"} for name in asked.group(1).split(",")
    }
    if "crisis_referral" in prompt:
        judgement["crisis_referral"] = True
    return json.dumps(judgement)


@pytest.fixture(scope="module")
def scenarios() -> dict[str, tuple[int, Scenario]]:
    """The bundled suite's scenarios, with their position, by the user message a model gets."""
    return {s.messages[-1].content: (i, s) for i, s in enumerate(load_suite(SUITE).scenarios)}


def answer_for(index: int, scenario: Scenario) -> str:
    """A scripted answer: on the suite's first items, the right emotion on every other one,
    the right help answer on every third, and no reply (a placeholder) on every third."""
    wrong = "A" if scenario.correct_letter != "A" else "B"
    letter = scenario.correct_letter if index % 2 else wrong
    right_help = "yes" if scenario.expected.help_needed else "no"
    help_answer = right_help if index % 3 else ("no" if right_help == "yes" else "yes")
    reply = (
        "<what you would say>"
        if index % 3 == 1
        else "That sounds really hard. I'm here with you; tell me what would help most."
    )
    return f"EMOTION: {letter}\nNEEDS_HELP: {help_answer}\nREPLY: {reply}"


def run(task: str, model: Model, log_dir: Path, **options: Any) -> EvalLog:
    (log,) = inspect_eval(task, model=model, log_dir=str(log_dir), display="none", **options)
    return log


def score_values(log: EvalLog) -> dict[str, dict[str, float]]:
    assert log.samples is not None
    values = {}
    for sample in log.samples:
        assert sample.scores is not None
        value = sample.scores["empathy_scorer"].value
        assert isinstance(value, dict)
        values[str(sample.id)] = {key: float(v) for key, v in value.items()}  # type: ignore[arg-type]
    return values


def test_every_bundled_suite_has_a_task_and_the_entry_point_names_the_registry() -> None:
    assert set(BUNDLED_TASKS) == {task_name(name) for name in bundled_suites()}
    assert "standard_v1" in BUNDLED_TASKS
    points = {ep.name: ep for ep in importlib.metadata.entry_points(group="inspect_ai")}
    if "empathybench" not in points:
        if os.environ.get("EMPATHYBENCH_REQUIRE_INSPECT"):
            pytest.fail("the installed empathybench has no inspect_ai entry point")
        pytest.skip("installed metadata predates the entry point: pip install -e '.[inspect]'")
    assert points["empathybench"].value == "empathybench._registry"


def test_samples_are_the_runner_messages_with_the_hidden_truth_as_metadata() -> None:
    suite = load_suite(SUITE)
    task = BUNDLED_TASKS["standard_v1"](strategy="chain-of-empathy")
    samples = list(task.dataset)
    assert len(samples) == len(suite.scenarios) == 100
    first, scenario = samples[0], suite.scenarios[0]
    sent = apply_strategy(get_strategy("chain-of-empathy"), scenario.messages)
    assert isinstance(first.input, list)
    assert [(m.role, m.text) for m in first.input] == [(m.role, m.content) for m in sent]
    assert first.target == scenario.correct_letter
    assert first.id == scenario.id
    assert first.metadata is not None
    assert first.metadata["hidden_emotion"] == scenario.emotion.name
    assert first.metadata["help_needed"] == scenario.expected.help_needed


def test_generated_task_uses_the_generator() -> None:
    task = generated(n=5, seed=3)
    assert [sample.id for sample in task.dataset] == [s.id for s in generate(5, 3)]
    with pytest.raises(ValueError, match="positive"):
        generated(n=0)


def test_suite_task_takes_a_suite_file_and_refuses_a_missing_one(
    small_suite_path: Path, tmp_path: Path
) -> None:
    task = suite(suite=str(small_suite_path))
    assert [sample.id for sample in task.dataset] == [
        s.id for s in load_suite(str(small_suite_path)).scenarios
    ]
    assert task.metadata is not None and task.metadata["suite_source"] == str(small_suite_path)
    with pytest.raises(UserError, match="no such file"):
        suite(suite=str(tmp_path / "missing.jsonl"))


def test_deterministic_scores_match_our_parse_and_no_reply_scores_zero(
    scenarios: dict[str, tuple[int, Scenario]], tmp_path: Path
) -> None:
    tested = scripted(lambda messages: answer_for(*scenarios[messages[-1].text]))
    grader_calls: list[str] = []
    grader = scripted(full_marks, grader_calls, name="grader")
    log = run("empathybench/standard_v1", tested, tmp_path, limit=9, model_roles={"grader": grader})
    assert log.status == "success", log.error
    values = score_values(log)
    assert len(values) == 9
    by_id = {s.id: (i, s) for i, s in scenarios.values()}
    outcomes: set[tuple[str, float]] = set()
    judged = 0
    for scenario_id, value in values.items():
        index, scenario = by_id[scenario_id]
        text = answer_for(index, scenario)
        parsed = parse_answer(text, scenario.options)
        assert value["emotion_recognition"] == float(parsed.letter == scenario.correct_letter)
        assert value["assistance_needed"] == float(help_answer_correct(scenario, parsed))
        outcomes |= {("emotion", value["emotion_recognition"])}
        outcomes |= {("help", value["assistance_needed"])}
        text_dimensions = judged_dimensions(scenario)
        expected_text = 0.0 if "<what you would say>" in text else 1.0
        judged += bool(text_dimensions) and expected_text == 1.0
        for dimension in DIMENSIONS:
            if dimension not in scenario.dimensions:
                assert math.isnan(value[dimension]), (scenario_id, dimension)
            elif dimension in text_dimensions:
                assert value[dimension] == expected_text, (scenario_id, dimension)
    assert outcomes == {(name, v) for name in ("emotion", "help") for v in (0.0, 1.0)}
    assert any("<what you would say>" in answer_for(*by_id[i]) for i in values)
    assert len(grader_calls) == judged, "a no-reply output must never reach the judge"
    metrics = {s.name: s.metrics["mean"].value for s in log.results.scores}  # type: ignore[union-attr]
    emotion = [v["emotion_recognition"] for v in values.values()]
    assert metrics["emotion_recognition"] == pytest.approx(sum(emotion) / len(emotion))
    assert set(metrics) >= {*DIMENSIONS, "overall"}


def test_a_grader_of_the_tested_models_family_is_refused(
    scenarios: dict[str, tuple[int, Scenario]], tmp_path: Path
) -> None:
    tested_calls: list[str] = []
    tested = scripted(lambda messages: answer_for(*scenarios[messages[-1].text]), tested_calls)
    same = scripted(full_marks, name="model")  # mockllm/model judging mockllm/model
    refused = run(
        "empathybench/standard_v1", tested, tmp_path, limit=1, model_roles={"grader": same}
    )
    assert refused.status == "error"
    assert refused.error is not None and "same family" in refused.error.message
    assert "-T allow_self_judge=true" in refused.error.message
    assert tested_calls == [], "refused before the tested model is called"
    allowed = run(
        "empathybench/standard_v1",
        tested,
        tmp_path,
        limit=1,
        model_roles={"grader": same},
        task_args={"allow_self_judge": True},
    )
    assert allowed.status == "success", allowed.error
    assert allowed.samples is not None and allowed.samples[0].scores is not None
    decision = allowed.samples[0].scores["empathy_scorer"].metadata["judge_decision"]  # type: ignore[index]
    assert decision["same_family"] is True
    assert len(tested_calls) == 1


def test_generated_task_by_name_with_the_default_judge(
    scenarios: dict[str, tuple[int, Scenario]], tmp_path: Path
) -> None:
    from empathybench.judging.offline_judge import offline_judge_available

    reply = "EMOTION: A\nNEEDS_HELP: yes\nREPLY: I'm so sorry. Want to talk it through together?"
    log = run(
        "empathybench/generated",
        scripted(lambda messages: reply),
        tmp_path,
        limit=2,
        task_args={"n": 4, "seed": 11},
    )
    assert log.status == "success", log.error
    assert log.eval.dataset.samples == 4
    assert log.samples is not None and len(log.samples) == 2
    assert [s.id for s in log.samples] == [s.id for s in generate(4, 11)][:2]
    score = log.samples[0].scores["empathy_scorer"]  # type: ignore[index]
    text_values = [score.value[d] for d in judged_dimensions(generate_one(11))]  # type: ignore[index]
    if offline_judge_available():
        assert score.metadata["judge"] == "offline"  # type: ignore[index]
        assert all(0.0 <= v <= 1.0 for v in text_values)
    else:
        assert score.metadata["judge"] is None  # type: ignore[index]
        assert all(math.isnan(v) for v in text_values)


def generate_one(seed: int) -> Scenario:
    return next(iter(generate(4, seed)))


@pytest.mark.parametrize(
    ("tested", "grader", "refused"),
    [
        ("openai/gpt-4o-mini", "openrouter/openai/gpt-4o", True),
        ("anthropic/claude-sonnet-4-0", "openai/gpt-4o", False),
        ("mockllm/model", "mockllm/model", True),
    ],
)
def test_inspect_model_names_map_to_our_families(tested: str, grader: str, refused: bool) -> None:
    from empathybench.inspect_eval.judge_model import spec_of
    from empathybench.judging.families import check_judge

    if refused:
        with pytest.raises(UserError, match="same family"):
            check_judge(spec_of(tested), spec_of(grader), allow_self_judge=False)
    else:
        assert not check_judge(spec_of(tested), spec_of(grader), allow_self_judge=False).same_family
