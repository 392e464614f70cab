"""Judging a run from Python: LLM judges and offline judges, checked before anything is spent."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from empathybench.api.paths import RunLike, cache_file, run_directory
from empathybench.judging.families import check_judge
from empathybench.judging.llm_judge import JudgeSettings
from empathybench.judging.offline_judge import (
    OFFLINE_JUDGE,
    check_offline_judge,
    is_offline_judge,
    offline_judge_available,
)
from empathybench.judging.run_judges import JudgeRunOptions, JudgeRunResult, judge_run
from empathybench.models.base import ModelSpec
from empathybench.models.registry import parse_model_id, recorded_spec, resolve_api_key
from empathybench.progress import ProgressCallback
from empathybench.runtime.directory_lock import hold_directory
from empathybench.runtime.event_loop import blocking_twin

ModelOptions = Mapping[str, str | int | float | bool]


@dataclass(frozen=True)
class JudgePlan:
    """The judges of one call: offline judge ids, and LLM judges as specs with their keys."""

    offline: tuple[str, ...]
    llm: tuple[ModelSpec, ...]

    def check_against(self, tested: ModelSpec, *, allow_self_judge: bool) -> None:
        """Refuse an LLM judge from ``tested``'s family (unless allowed) before any call."""
        for judge in self.llm:
            check_judge(tested, judge, allow_self_judge=allow_self_judge)


def default_judges() -> list[str]:
    """The judges a run uses when none is given: the offline judge where the local extra is
    installed, else none (the text dimensions then stay unscored)."""
    return [OFFLINE_JUDGE] if offline_judge_available() else []


def plan_judges(
    judges: Sequence[str | ModelSpec],
    *,
    base_url: str | None = None,
    options: ModelOptions | None = None,
) -> JudgePlan:
    """Split ``judges`` into offline ids and LLM specs; a missing key is reported here."""
    for judge_id in judges:
        if isinstance(judge_id, str):
            check_offline_judge(judge_id)
    offline = [j for j in judges if isinstance(j, str) and is_offline_judge(j)]
    llm = [
        recorded_spec(j)
        if isinstance(j, ModelSpec)
        else parse_model_id(j, base_url=base_url, options=dict(options or {}))
        for j in judges
        if not (isinstance(j, str) and is_offline_judge(j))
    ]
    for spec in llm:
        resolve_api_key(spec)
    return JudgePlan(offline=tuple(offline), llm=tuple(llm))


def merge_results(results: Sequence[JudgeRunResult]) -> JudgeRunResult:
    """One result for several judging passes over the same run."""
    return JudgeRunResult(
        decisions=[d for r in results for d in r.decisions],
        verdicts={k: v for r in results for k, v in r.verdicts.items()},
        judged=sum(r.judged for r in results),
        skipped=sum(r.skipped for r in results),
        passes=[p for r in results for p in r.passes],
    )


async def execute_plan(
    directory: Path,
    plan: JudgePlan,
    *,
    allow_self_judge: bool = False,
    max_connections: int = 8,
    max_reasks: int = 2,
    cache: Path | None = None,
    progress: ProgressCallback | None = None,
) -> JudgeRunResult:
    """LLM judges first (concurrently per judge), then offline judges in a worker thread;
    the run directory is held exclusively throughout (``runtime.directory_lock``).

    A judgement that fails (the call, or every answer invalid) stays unscored and is tried
    again by the next call; ``JudgeRunResult.passes`` says how many failed per judge.
    """
    from empathybench.judging.offline_runs import judge_run_offline

    results: list[JudgeRunResult] = []
    with hold_directory(directory):
        if plan.llm:
            options = JudgeRunOptions(
                run_dir=directory,
                judges=list(plan.llm),
                allow_self_judge=allow_self_judge,
                max_connections=max_connections,
                settings=JudgeSettings(max_reasks=max_reasks),
                cache_path=cache,
                progress=progress,
            )
            results.append(await judge_run(options))
        for judge_id in plan.offline:
            results.append(await asyncio.to_thread(judge_run_offline, directory, judge_id))
    return merge_results(results)


async def judge_async(
    run: RunLike,
    judges: Sequence[str | ModelSpec],
    *,
    allow_self_judge: bool = False,
    base_url: str | None = None,
    options: ModelOptions | None = None,
    max_connections: int = 8,
    max_reasks: int = 2,
    cache: str | os.PathLike[str] | bool = True,
    progress: ProgressCallback | None = None,
) -> JudgeRunResult:
    """Score a run's answers with ``judges`` (model ids, or ``offline`` / ``offline:DIR``).

    Models are not re-run; items a judge already scored are skipped. A judge from the
    tested model's family is refused unless ``allow_self_judge``.
    """
    plan = plan_judges(judges, base_url=base_url, options=options)
    return await execute_plan(
        run_directory(run),
        plan,
        allow_self_judge=allow_self_judge,
        max_connections=max_connections,
        max_reasks=max_reasks,
        cache=cache_file(cache),
        progress=progress,
    )


judge = blocking_twin(judge_async, "judge")
