import asyncio
from pathlib import Path

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
    # Agreement is Krippendorff's interval alpha, computed here from its definition (not with
    # the package the code calls), on every text dimension the panel scored.
    keys = sorted(store.latest_responses())
    checked = 0
    for dimension in TEXT_DIMENSIONS:
        units = []
        for key in keys:
            values = []
            for name in summary.judges:
                score = store.verdicts(name).latest()[key].scores.get(dimension)
                if score is not None and score.status == "scored" and score.value is not None:
                    values.append(score.value)
            units.append(values)
        expected = interval_alpha(units)
        assert expected is not None, dimension  # the two mock judges disagree on every one
        assert summary.agreement[dimension] == pytest.approx(expected)
        checked += 1
    assert checked == len(TEXT_DIMENSIONS)


def interval_alpha(units: list[list[float]]) -> float | None:
    """Krippendorff's alpha, interval metric: 1 - D_o / D_e over pairable values."""
    pairable = [values for values in units if len(values) >= 2]
    pooled = [v for values in pairable for v in values]
    n = len(pooled)
    if n < 2:
        return None
    observed = (
        sum(
            sum((a - b) ** 2 for i, a in enumerate(values) for j, b in enumerate(values) if i != j)
            / (len(values) - 1)
            for values in pairable
        )
        / n
    )
    expected = sum(
        (a - b) ** 2 for i, a in enumerate(pooled) for j, b in enumerate(pooled) if i != j
    ) / (n * (n - 1))
    return None if expected == 0 else 1 - observed / expected


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
