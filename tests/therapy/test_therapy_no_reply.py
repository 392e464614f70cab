"""Therapy answers with nothing to score: 1 by rule, no judge asked, counted in the report."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from empathybench.judging.llm_judge import JudgeSettings
from empathybench.judging.no_reply import NO_REPLY
from empathybench.models.base import ModelRequest
from empathybench.models.mock import MockModel
from empathybench.models.registry import parse_model_id
from empathybench.runtime.provenance import now_iso
from empathybench.therapy.judging import TherapyJudgeOptions, judge_study
from empathybench.therapy.llm_judge import judge_therapy_answer
from empathybench.therapy.report import build_therapy_report
from empathybench.therapy.report_files import therapy_csv, therapy_markdown
from empathybench.therapy.study import Study
from empathybench.therapy.verdicts import COMPONENTS, ComponentScore, TherapyVerdict
from tests.fakes.therapy_study import make_study

LOOP = "I hear you and I am here for you. " * 6
ANSWERS = {"q1": "", "q2": "[your answer]", "q3": LOOP}


@pytest.fixture
def silent_study(tmp_path: Path) -> Study:
    return make_study(tmp_path / "study", models=(), answers={"mock/silent": ANSWERS})


@pytest.mark.parametrize("answer", ["", "  ", "...", "[your answer]", "<answer>", "N/A"])
def test_an_llm_judge_is_not_asked_about_an_answer_with_nothing_to_score(answer: str) -> None:
    judge = MockModel(parse_model_id("mock/judge"))
    verdict = asyncio.run(
        judge_therapy_answer(
            judge,
            "I feel alone.",
            answer,
            source="mock/alpha",
            question_id="q1",
            epoch=0,
            settings=JudgeSettings(),
        )
    )
    assert judge.total_calls == 0
    assert verdict.no_reply is not None and verdict.raw_outputs == []
    for name in COMPONENTS:
        score = verdict.scores[name]
        assert (score.status, score.value, score.reason) == ("scored", 1.0, NO_REPLY)
    assert verdict.empathy == 1.0


@pytest.mark.parametrize(
    ("question", "asked"), [("I feel alone.", False), ("我感到很孤独。", True)]
)
def test_an_answer_in_a_script_the_question_does_not_use_is_not_judged(
    question: str, asked: bool
) -> None:
    judge = MockModel(parse_model_id("mock/judge"))
    verdict = asyncio.run(
        judge_therapy_answer(
            judge,
            question,
            "我明白你的感受，我在这里陪着你。",
            source="mock/alpha",
            question_id="q1",
            epoch=0,
            settings=JudgeSettings(),
        )
    )
    assert (judge.total_calls > 0) == asked
    assert verdict.no_reply == (None if asked else "other_script")


def test_judging_a_study_scores_empty_answers_by_rule_and_flags_loops(
    silent_study: Study,
) -> None:
    asked: list[str] = []

    def critic(request: ModelRequest, attempt: int) -> str:
        asked.append(request.messages[-1].content)
        return '{"cognitive": 3, "emotional": 3, "behavioral": 3}'

    judge = MockModel(parse_model_id("mock/critic"), script=critic)
    asyncio.run(
        judge_study(
            TherapyJudgeOptions(
                study_dir=silent_study.directory,
                judges=[judge.spec],
                sources=["mock/silent"],
                settings=JudgeSettings(max_backoff_s=0.01),
            ),
            models={judge.spec.id: judge},
        )
    )
    assert len(asked) == 1 and "I hear you" in asked[0]  # only the looping answer was judged
    verdicts = {k[0]: v for k, v in silent_study.verdicts("mock/critic", "mock/silent").items()}
    assert (verdicts["q1"].no_reply, verdicts["q2"].no_reply) == ("empty", "placeholder")
    assert verdicts["q3"].no_reply is None and verdicts["q3"].degenerate is not None
    assert verdicts["q3"].scores["cognitive"].value == 3.0  # flagged, not scored down
    report = build_therapy_report(silent_study, judges=["mock/critic"])
    source = next(s for s in report.sources if s.source == "mock/silent")
    assert (source.no_reply, source.degenerate) == (2, 1)
    assert "| mock/silent |" in therapy_markdown(report)
    assert therapy_csv(report).splitlines()[0].endswith(",no_reply,degenerate")


def test_the_offline_scorer_never_sees_an_empty_answer(
    silent_study: Study, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch")
    import empathybench.scorer as scorer

    seen: list[list[str]] = []
    real = scorer.score_responses

    def spy(texts: list[str], **kwargs: object) -> object:
        seen.append(list(texts))
        return real(texts, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(scorer, "score_responses", spy)
    asyncio.run(
        judge_study(
            TherapyJudgeOptions(
                study_dir=silent_study.directory, offline=["offline"], sources=["mock/silent"]
            )
        )
    )
    assert seen == [[LOOP]]
    verdicts = {k[0]: v for k, v in silent_study.verdicts("offline", "mock/silent").items()}
    assert verdicts["q1"].scores["emotional"].reason == NO_REPLY
    assert verdicts["q1"].scored_by is None  # scored by rule, not by the scorer
    assert verdicts["q3"].degenerate is not None
    assert verdicts["q3"].scored_by is not None


def _rejudge_over_old_verdicts(
    study: Study, source: str
) -> tuple[MockModel, int, int, dict[str, TherapyVerdict]]:
    """Write what an old judge wrote for every answer of ``source`` (2.5 everywhere, no rule),
    judge again with a mock judge; the judge, judged and skipped counts and latest verdicts."""
    log = study.verdict_log("mock/critic", source)
    log.open()
    for question in ANSWERS:
        log.append(
            TherapyVerdict(
                source=source,
                scenario_id=question,
                epoch=0,
                judge="mock/critic",
                rubric_version="therapy-rubric-v1",
                scores={c: ComponentScore(status="scored", value=2.5) for c in COMPONENTS},
                finished_at=now_iso(),
            )
        )
    log.close()
    judge = MockModel(parse_model_id("mock/critic"))
    result = asyncio.run(
        judge_study(
            TherapyJudgeOptions(study_dir=study.directory, judges=[judge.spec], sources=[source]),
            models={judge.spec.id: judge},
        )
    )
    verdicts = {k[0]: v for k, v in study.verdicts("mock/critic", source).items()}
    return judge, result.judged, result.skipped, verdicts


def test_a_verdict_from_before_the_rule_is_redone_without_a_call(silent_study: Study) -> None:
    judge, judged, skipped, verdicts = _rejudge_over_old_verdicts(silent_study, "mock/silent")
    assert judge.total_calls == 0 and (judged, skipped) == (2, 1)
    assert verdicts["q1"].scores["cognitive"].value == 1.0
    assert verdicts["q3"].scores["cognitive"].value == 2.5


def test_an_old_verdict_on_an_answer_in_another_script_is_redone_by_the_rule(
    tmp_path: Path,
) -> None:
    """The questions are English; before words counted in every script, a Chinese answer read
    as empty, and a judge that scored it stays stale until the rule sets it aside."""
    answers = {"q1": "我明白你的感受。", "q2": "I'm so sorry about your dog.", "q3": LOOP}
    study = make_study(tmp_path / "study", models=(), answers={"mock/chinese": answers})
    judge, judged, skipped, verdicts = _rejudge_over_old_verdicts(study, "mock/chinese")
    assert judge.total_calls == 0 and (judged, skipped) == (1, 2)
    assert verdicts["q1"].no_reply == "other_script"
    assert verdicts["q2"].no_reply is None and verdicts["q2"].scores["cognitive"].value == 2.5
