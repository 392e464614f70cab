"""Judge failures are failures: refused settings, no sticky invalid answers, honest counts."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from empathybench.errors import ParameterError
from empathybench.judging.judge_prompt import judged_dimensions
from empathybench.judging.llm_judge import JudgeSettings, judge_response
from empathybench.judging.run_judges import JudgeRunOptions, judge_run
from empathybench.models.base import ModelRequest
from empathybench.models.mock import MockModel
from empathybench.models.registry import parse_model_id
from empathybench.records import Scenario, Suite
from empathybench.runtime.cache import ResponseCache
from empathybench.runtime.concurrency import for_each_concurrently


def test_settings_that_would_judge_nothing_are_refused_by_name(run_dir: Path) -> None:
    with pytest.raises(ParameterError, match="max_reasks") as error:
        JudgeSettings(max_reasks=-1)
    assert error.value.parameter == "max_reasks"
    with pytest.raises(ParameterError, match="max_connections"):
        JudgeRunOptions(run_dir=run_dir, judges=[], max_connections=0)

    async def nothing(item: int) -> None:
        return None

    with pytest.raises(ParameterError, match="max_connections"):
        asyncio.run(
            for_each_concurrently([1], nothing, description="x", max_connections=0, progress=None)
        )


def _scenario(suite: Suite) -> Scenario:
    return next(s for s in suite.scenarios if judged_dimensions(s))


def test_an_invalid_answer_is_not_cached_and_is_judged_again(
    small_suite: Suite, tmp_path: Path
) -> None:
    scenario = _scenario(small_suite)
    answers = {"valid": False}

    def script(request: ModelRequest, attempt: int) -> str:
        if not answers["valid"]:
            return "I refuse to answer in JSON."
        return (
            "{"
            + ", ".join(
                f'"{d}": {{"score": 1, "rationale": "ok"}}' for d in judged_dimensions(scenario)
            )
            + (', "crisis_referral": true' if scenario.expected.crisis_resources_expected else "")
            + "}"
        )

    cache = ResponseCache(tmp_path / "cache.sqlite")
    judge = MockModel(parse_model_id("mock/judge"), script=script)
    settings = JudgeSettings(max_reasks=1, max_backoff_s=0.01)

    def judge_once() -> object:
        return asyncio.run(
            judge_response(
                judge,
                scenario,
                "REPLY: I hear you.",
                run_id="r",
                epoch=0,
                settings=settings,
                cache=cache,
            )
        )

    first = judge_once()
    assert first.error is not None and first.error.kind == "invalid_answer"  # type: ignore[attr-defined]
    assert len(cache) == 0
    answers["valid"] = True
    second = judge_once()
    assert second.error is None  # type: ignore[attr-defined]
    assert all(s.status in ("scored", "na") for s in second.scores.values())  # type: ignore[attr-defined]
    assert len(cache) == 1
    cache.close()


def test_failed_judgements_are_counted_and_retried(run_dir: Path) -> None:
    def refuse(request: ModelRequest, attempt: int) -> str:
        return "not json"

    judge = MockModel(parse_model_id("mock/judge-z"), script=refuse)
    options = JudgeRunOptions(
        run_dir=run_dir,
        judges=[judge.spec],
        settings=JudgeSettings(max_reasks=0),
        progress=None,
    )
    result = asyncio.run(judge_run(options, models={judge.spec.id: judge}))
    [judge_pass] = result.passes
    assert judge_pass.attempted > 0 and judge_pass.all_failed
    assert "invalid_answer" in (judge_pass.first_error or "")
    again = asyncio.run(judge_run(options, models={judge.spec.id: judge}))
    assert again.passes[0].attempted == judge_pass.attempted  # none stuck as done
