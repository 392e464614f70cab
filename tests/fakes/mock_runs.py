"""Runs for report tests, made by the real runner and judge pipeline with mock models.

``make_run`` runs a suite through a mock model (optionally scripted) and judges it with
mock judges (optionally scripted), exactly as ``empathybench run`` and ``judge`` would.
``answering`` scripts a tested model that answers chosen items right and the rest wrong.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Collection
from pathlib import Path

from empathybench.judging.llm_judge import JudgeSettings
from empathybench.judging.run_judges import JudgeRunOptions, judge_run
from empathybench.models.base import ModelAPI, ModelRequest
from empathybench.models.mock import MockModel
from empathybench.models.registry import parse_model_id
from empathybench.records import LETTERS, Scenario, Suite
from empathybench.runner import RunOptions, execute_run

PLANTED_SCRIPT = "<script>window.__pwned=1</script>"
PLANTED_IMAGE = '<img src=x onerror="window.__pwned=2">'
PLANTED_REPLY = f"I hear you. {PLANTED_SCRIPT} {PLANTED_IMAGE} Take your time."


def scenario_for(suite: Suite) -> Callable[[ModelRequest], Scenario]:
    by_prompt = {s.messages[-1].content: s for s in suite.scenarios}

    def find(request: ModelRequest) -> Scenario:
        return by_prompt[request.messages[-1].content]

    return find


def answer(scenario: Scenario, *, right: bool, reply: str = "I'm here with you.") -> str:
    letter = scenario.correct_letter
    if not right:
        letter = next(x for x in LETTERS if x != scenario.correct_letter)
    help_needed = scenario.expected.help_needed if right else not scenario.expected.help_needed
    person = f"PERSON: {scenario.focus_person}\n" if scenario.kind == "group" else ""
    return (
        f"{person}EMOTION: {letter}\nNEEDS_HELP: {'yes' if help_needed else 'no'}\nREPLY: {reply}"
    )


def answering(
    suite: Suite, model_id: str, right_ids: Collection[str], reply: str = "I'm here with you."
) -> MockModel:
    """A mock model answering the items in ``right_ids`` right and every other item wrong."""
    find = scenario_for(suite)

    def script(request: ModelRequest, attempt: int) -> str:
        scenario = find(request)
        return answer(scenario, right=scenario.id in right_ids, reply=reply)

    return MockModel(parse_model_id(model_id), script=script)


def scripted_judge(judge_id: str, rationale: str) -> MockModel:
    """A mock judge giving every requested dimension 1 with ``rationale``."""

    def script(request: ModelRequest, attempt: int) -> str:
        schema = request.json_schema or {}
        answer_object: dict[str, object] = {}
        for name in schema.get("required", []):
            if name == "crisis_referral":
                answer_object[name] = True
            else:
                answer_object[name] = {"score": 1, "rationale": rationale}
        return json.dumps(answer_object)

    return MockModel(parse_model_id(judge_id), script=script)


def make_run(
    directory: Path,
    suite: Suite,
    suite_path: Path,
    model_id: str,
    *,
    model: ModelAPI | None = None,
    judges: Collection[str] = (),
    judge_models: dict[str, ModelAPI] | None = None,
    epochs: int = 1,
    limit: int | None = None,
) -> Path:
    asyncio.run(
        execute_run(
            RunOptions(
                suite=suite,
                suite_source=str(suite_path),
                spec=parse_model_id(model_id),
                run_dir=directory,
                epochs=epochs,
                limit=limit,
            ),
            model,
        )
    )
    if judges:
        asyncio.run(
            judge_run(
                JudgeRunOptions(
                    run_dir=directory,
                    judges=[parse_model_id(j) for j in judges],
                    settings=JudgeSettings(max_backoff_s=0.01),
                ),
                models=judge_models,
            )
        )
    return directory
