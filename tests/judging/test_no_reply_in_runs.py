"""The no-reply rule over whole runs: counted in summaries, reports and leaderboards, the judge
asked only about replies, and verdicts from an earlier rule redone."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from empathybench.analysis.leaderboard import build_leaderboard
from empathybench.analysis.run_sets import load_runs
from empathybench.analysis.summary import build_run_summary
from empathybench.judging.judge_prompt import judged_dimensions
from empathybench.judging.llm_judge import JudgeSettings
from empathybench.judging.no_reply import (
    NoReply,
    no_reply_scores,
)
from empathybench.judging.rubric import TEXT_DIMENSIONS
from empathybench.judging.run_judges import JudgeRunOptions, judge_run
from empathybench.models.base import ModelRequest
from empathybench.models.mock import MockModel
from empathybench.models.registry import parse_model_id
from empathybench.records import DimensionScore, Suite, Verdict
from empathybench.report.run_report import write_report
from empathybench.runtime.run_store import RunStore
from tests.fakes.mock_runs import answer, make_run, scenario_for


def _half_silent_run(suite: Suite, suite_path: Path, directory: Path) -> tuple[Path, set[str]]:
    """A run whose model answers every other item with only the option list."""
    find = scenario_for(suite)
    silent = {s.id for s in suite.scenarios[::2]}

    def script(request: ModelRequest, attempt: int) -> str:
        scenario = find(request)
        if scenario.id in silent:
            return "\n".join(f"{x}) {o}" for x, o in zip("ABC", scenario.options, strict=True))
        return answer(scenario, right=True, reply="That sounds hard; I'm here with you.")

    model = MockModel(parse_model_id("mock/half-silent"), script=script)
    return make_run(directory, suite, suite_path, "mock/half-silent", model=model), silent


def test_a_run_counts_no_replies_and_asks_the_judge_only_about_replies(
    small_suite: Suite, small_suite_path: Path, tmp_path: Path
) -> None:
    run_dir, silent = _half_silent_run(small_suite, small_suite_path, tmp_path / "run")
    seen: list[str] = []

    def scripted(request: ModelRequest, attempt: int) -> str:
        seen.append(request.messages[-1].content)
        required = (request.json_schema or {}).get("required", [])
        return json.dumps(
            {
                n: (True if n == "crisis_referral" else {"score": 1, "rationale": "r"})
                for n in required
            }
        )

    judge = MockModel(parse_model_id("mock/judge-a"), script=scripted)
    asyncio.run(
        judge_run(
            JudgeRunOptions(
                run_dir=run_dir,
                judges=[judge.spec],
                settings=JudgeSettings(max_backoff_s=0.01),
            ),
            models={judge.spec.id: judge},
        )
    )
    judged_items = [s for s in small_suite.scenarios if judged_dimensions(s)]
    assert len(seen) == sum(1 for s in judged_items if s.id not in silent)
    verdicts = RunStore(run_dir).verdicts("mock/judge-a").latest()
    for (scenario_id, _), verdict in verdicts.items():
        assert (verdict.no_reply is not None) == (scenario_id in silent)
    summary = build_run_summary(run_dir)
    assert summary.no_reply == len(silent) and summary.no_reply_kinds == {
        "options_only": len(silent)
    }
    by_name = {d.dimension: d for d in summary.dimensions}
    # Half the items score 0 by rule, half 1 from the judge.
    for dimension in TEXT_DIMENSIONS:
        applicable = [s for s in small_suite.scenarios if dimension in s.dimensions]
        zeros = sum(1 for s in applicable if s.id in silent)
        assert by_name[dimension].estimate.mean == pytest.approx(1 - zeros / len(applicable))
    report = write_report([run_dir], None)
    markdown = (report.output / "results.md").read_text()
    assert f"{len(silent)} (options_only {len(silent)})" in markdown
    row = (report.output / "results.csv").read_text().splitlines()
    header, values = row[0].split(","), row[1].split(",")
    assert values[header.index("no_reply")] == str(len(silent))
    html = (report.output / "report.html").read_text()
    assert html.count("only the answer options, no reply: text dimensions 0 by rule") == len(silent)
    runs, _ = load_runs([run_dir])
    [entry] = build_leaderboard(runs).entries
    assert entry.no_reply == len(silent)


def _rejudge_over_old_verdicts(
    suite: Suite, run_dir: Path, no_reply: NoReply | None
) -> tuple[MockModel, int, dict[str, bool]]:
    """Write a verdict for every item as an earlier judge would (0.5 everywhere, or the rule's
    0 with ``no_reply``), judge the run again with a mock judge, and return the judge, how many
    items were judged and, per item, whether its latest verdict says no reply."""
    store = RunStore(run_dir)
    log = store.verdicts("mock/judge-a")
    log.open()
    for scenario in suite.scenarios:
        dimensions = judged_dimensions(scenario)
        log.append(
            Verdict(
                run_id=store.read_manifest().run_id,
                scenario_id=scenario.id,
                epoch=0,
                judge="mock/judge-a",
                rubric_version="rubric-v1",
                scores=no_reply_scores(dimensions, no_reply)
                if no_reply
                else {d: DimensionScore(status="scored", value=0.5) for d in dimensions},
                no_reply=no_reply.kind if no_reply else None,
                finished_at="then",
            )
        )
    log.close()
    judge = MockModel(parse_model_id("mock/judge-a"))
    result = asyncio.run(
        judge_run(
            JudgeRunOptions(run_dir=run_dir, judges=[judge.spec]),
            models={judge.spec.id: judge},
        )
    )
    latest = store.verdicts("mock/judge-a").latest()
    return judge, result.judged, {k[0]: v.no_reply is not None for k, v in latest.items()}


def test_verdicts_from_before_the_rule_are_redone_by_the_rule_without_a_call(
    small_suite: Suite, small_suite_path: Path, tmp_path: Path
) -> None:
    run_dir, silent = _half_silent_run(small_suite, small_suite_path, tmp_path / "run")
    judge, judged, ruled = _rejudge_over_old_verdicts(small_suite, run_dir, None)
    assert judge.total_calls == 0
    assert judged == len(silent)
    assert {item for item, out in ruled.items() if out} == silent


def test_verdicts_an_earlier_rule_set_aside_are_judged_when_they_hold_a_reply(
    small_suite: Suite, small_suite_path: Path, tmp_path: Path
) -> None:
    """Before words counted in every script, a reply in Russian held no words: its verdict
    says no reply. When the rule now reads a reply there, the item is judged again."""
    run_dir, silent = _half_silent_run(small_suite, small_suite_path, tmp_path / "run")
    judge, judged, ruled = _rejudge_over_old_verdicts(small_suite, run_dir, NoReply("empty"))
    replies = {s.id for s in small_suite.scenarios if judged_dimensions(s)} - silent
    assert replies and judge.total_calls == len(replies)
    assert judged == len(replies)
    assert not any(ruled[item] for item in replies)
    assert all(ruled[item] for item in silent)


def test_records_written_before_the_rule_still_read() -> None:
    from empathybench.analysis.summary import RunSummary
    from empathybench.therapy.verdicts import TherapyVerdict

    old = {
        "run_id": "r",
        "scenario_id": "s",
        "epoch": 0,
        "judge": "mock/j",
        "rubric_version": "rubric-v1",
        "scores": {"cheering_up": {"status": "scored", "value": 0.5}},
        "finished_at": "then",
    }
    verdict = Verdict.model_validate(old)
    assert (verdict.no_reply, verdict.degenerate) == (None, None)
    therapy = {k: v for k, v in old.items() if k != "run_id"} | {"source": "human", "scores": {}}
    assert TherapyVerdict.model_validate(therapy).no_reply is None
    assert "no_reply" not in RunSummary.model_json_schema()["required"]
