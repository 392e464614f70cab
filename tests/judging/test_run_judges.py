import asyncio
from pathlib import Path

import krippendorff
import numpy as np
import pytest

from empathybench.analysis.summary import build_run_summary
from empathybench.errors import UserError
from empathybench.judging.llm_judge import JudgeSettings
from empathybench.judging.rubric import TEXT_DIMENSIONS
from empathybench.judging.run_judges import JudgeRunOptions, judge_run
from empathybench.models.mock import MockModel
from empathybench.models.registry import parse_model_id
from empathybench.runtime.run_store import RunStore


def judge(
    run_dir: Path, *names: str, allow: bool = False, models: dict[str, MockModel] | None = None
) -> object:
    specs = [parse_model_id(name) for name in names]
    return asyncio.run(
        judge_run(
            JudgeRunOptions(
                run_dir=run_dir,
                judges=specs,
                allow_self_judge=allow,
                settings=JudgeSettings(max_backoff_s=0.01),
                show_progress=False,
            ),
            models=models,
        )
    )  # type: ignore[arg-type]


def test_a_panel_scores_every_item_and_records_its_decisions(run_dir: Path) -> None:
    judge(run_dir, "mock/judge-a", "mock/judge-b")
    store = RunStore(run_dir)
    assert [d.judge for d in store.read_manifest().judges] == ["mock/judge-a", "mock/judge-b"]
    for name in ("mock/judge-a", "mock/judge-b"):
        assert len(store.verdicts(name).latest()) == 30
    summary = build_run_summary(run_dir)
    assert summary.judges == ["mock/judge-a", "mock/judge-b"]
    assert (run_dir / "summary.json").is_file()
    # Agreement matches the krippendorff package on the same ratings.
    for dimension in TEXT_DIMENSIONS:
        keys = sorted(store.latest_responses())
        rows = []
        for name in summary.judges:
            verdicts = store.verdicts(name).latest()
            rows.append(
                [
                    verdicts[k].scores[dimension].value
                    if verdicts[k].scores.get(dimension)
                    and verdicts[k].scores[dimension].status == "scored"
                    else np.nan
                    for k in keys
                ]
            )
        data = np.array(rows, dtype=float)
        usable = (~np.isnan(data)).sum(axis=0) >= 2
        if usable.sum() < 2 or np.nanstd(data[:, usable]) == 0:
            continue
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement="interval")
        assert summary.agreement[dimension] == pytest.approx(expected)


def test_rejudging_only_scores_what_is_missing(run_dir: Path) -> None:
    first = MockModel(parse_model_id("mock/judge-a"))
    judge(run_dir, "mock/judge-a", models={"mock/judge-a": first})
    calls = first.total_calls
    assert calls >= 30
    again = MockModel(parse_model_id("mock/judge-a"))
    result = judge(run_dir, "mock/judge-a", models={"mock/judge-a": again})
    assert again.total_calls == 0
    assert result.skipped == 30  # type: ignore[attr-defined]


def test_the_tested_models_family_cannot_judge_it(run_dir: Path) -> None:
    with pytest.raises(UserError, match="same family"):
        judge(run_dir, "mock/tested-again")
    judge(run_dir, "mock/tested-again", allow=True)
    [decision] = RunStore(run_dir).read_manifest().judges
    assert decision.same_family and decision.allowed
