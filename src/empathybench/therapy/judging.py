"""``therapy judge``: every source's answers scored C/E/B by LLM judges or the offline scorer.

Verdicts are appended to ``verdicts/<judge>/<source>.jsonl`` as they finish; judging again
skips answers a judge already scored (a failed judge call is tried again). An empty,
placeholder or punctuation-only answer is scored 1 (absent) on every component by rule,
before any judge (``judging.no_reply``). An LLM judge from
the family of a model source is refused unless explicitly allowed; each decision is recorded
in ``study.json``. The offline judge is the project's trained empathy scorer (frozen MiniLM +
regression head): approximate, but it needs no key and no network.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from empathybench.judging.families import check_judge
from empathybench.judging.llm_judge import JudgeSettings
from empathybench.judging.no_reply import check_reply, classify_reply
from empathybench.judging.offline_judge import OFFLINE_JUDGE
from empathybench.judging.run_judges import JudgePass, judge_pass, merge_passes
from empathybench.models.base import ModelAPI, ModelSpec
from empathybench.models.registry import create_model
from empathybench.progress import ProgressCallback
from empathybench.records import JudgeDecision
from empathybench.runtime.append_log import AppendLog, ItemKey
from empathybench.runtime.cache import ResponseCache
from empathybench.runtime.concurrency import check_connections, for_each_concurrently
from empathybench.runtime.directory_lock import hold_directory
from empathybench.runtime.provenance import now_iso
from empathybench.runtime.run_store import RunStore
from empathybench.therapy.llm_judge import judge_therapy_answer, no_reply_components
from empathybench.therapy.questions import TherapyQuestion
from empathybench.therapy.rubric import THERAPY_RUBRIC_VERSION
from empathybench.therapy.study import HUMAN, SourceAnswer, SourceDecision, Study
from empathybench.therapy.verdicts import COMPONENTS, ComponentScore, TherapyVerdict

OFFLINE_SCORER_RUBRIC = f"{THERAPY_RUBRIC_VERSION}/offline-scorer"


@dataclass
class TherapyJudgeOptions:
    study_dir: Path
    judges: list[ModelSpec] = field(default_factory=list)
    offline: list[str] = field(default_factory=list)
    """Offline judge ids: ``offline`` (the bundled empathy scorer) or ``offline:HEAD_DIR``."""
    sources: list[str] | None = None
    allow_self_judge: bool = False
    max_connections: int = 8
    settings: JudgeSettings = field(default_factory=JudgeSettings)
    cache_path: Path | None = None
    progress: ProgressCallback | None = None

    def __post_init__(self) -> None:
        check_connections(self.max_connections)


@dataclass
class TherapyJudgeResult:
    judged: int = 0
    skipped: int = 0
    decisions: list[SourceDecision] = field(default_factory=list)
    passes: list[JudgePass] = field(default_factory=list)
    """Per LLM judge: judgements attempted in this call and how many failed."""


def pending_answers(
    answers: dict[ItemKey, SourceAnswer],
    existing: dict[ItemKey, TherapyVerdict],
    questions: dict[str, TherapyQuestion],
) -> list[SourceAnswer]:
    """Answers a judge has not scored yet, whose judge call failed, or whose verdict the
    no-reply rule now reads the other way: judged although they hold nothing to score (redone
    by rule, no call), or set aside by an earlier rule although they hold an answer (e.g. one
    in Chinese, which held no words before words counted in every script)."""

    def stale(answer: SourceAnswer, verdict: TherapyVerdict) -> bool:
        if verdict.error is not None:
            return True
        question = questions[answer.question_id].question
        ruled_out = classify_reply(answer.text, None, question=question) is not None
        return ruled_out != (verdict.no_reply is not None)

    return [
        answer
        for key, answer in sorted(answers.items())
        if key not in existing or stale(answer, existing[key])
    ]


def self_judge_decisions(
    study: Study, sources: list[str], judges: list[ModelSpec], *, allow: bool
) -> list[SourceDecision]:
    """Check every LLM judge against every model source (refuses before any call)."""
    decisions = []
    runs = study.model_sources()
    for judge in judges:
        for source in sources:
            if source == HUMAN:
                continue
            tested = RunStore(runs[source]).read_manifest().model
            decision: JudgeDecision = check_judge(tested, judge, allow_self_judge=allow)
            decisions.append(SourceDecision(source=source, decision=decision))
    return decisions


async def judge_study(
    options: TherapyJudgeOptions, models: dict[str, ModelAPI] | None = None
) -> TherapyJudgeResult:
    """Score every chosen source's answers with every judge in ``options`` (the study
    directory is held exclusively meanwhile, see ``runtime.directory_lock``).

    The offline scorer runs in a worker thread, so the event loop stays free meanwhile.
    """
    Study(options.study_dir).require()
    with hold_directory(options.study_dir):
        return await _judge_study(options, models)


async def _judge_study(
    options: TherapyJudgeOptions, models: dict[str, ModelAPI] | None
) -> TherapyJudgeResult:
    study = Study(options.study_dir).require()
    questions = study.question_set().by_id
    answers = study.answers(options.sources)
    result = TherapyJudgeResult(
        decisions=self_judge_decisions(
            study, list(answers), options.judges, allow=options.allow_self_judge
        )
    )
    for judge_id in options.offline:
        await asyncio.to_thread(_judge_offline, study, judge_id, answers, result, questions)
    for spec in options.judges:
        await _judge_with_model(study, spec, questions, answers, options, models, result)
    if result.decisions:
        study.record_decisions(result.decisions)
    return result


def _judge_offline(
    study: Study,
    judge_id: str,
    answers: dict[str, dict[ItemKey, SourceAnswer]],
    result: TherapyJudgeResult,
    questions: dict[str, TherapyQuestion],
) -> None:
    from empathybench.scorer import score_responses
    from empathybench.scorer.empathy_scorer import bundled_scorer, load_empathy_scorer

    head = judge_id.removeprefix(OFFLINE_JUDGE).removeprefix(":")
    scorer = load_empathy_scorer(Path(head)) if head else bundled_scorer()
    for source, by_key in answers.items():
        log = study.verdict_log(judge_id, source)
        pending = pending_answers(by_key, log.latest(), questions)
        result.skipped += len(by_key) - len(pending)
        if not pending:
            continue
        checks = [
            check_reply(answer.text, None, question=questions[answer.question_id].question)
            for answer in pending
        ]
        to_score = [a for a, check in zip(pending, checks, strict=True) if not check.no_reply]
        scores = iter(
            score_responses(
                [a.text for a in to_score],
                messages=[questions[a.question_id].question for a in to_score],
                scorer=scorer,
            )
            if to_score
            else []
        )
        log.open()
        try:
            for answer, check in zip(pending, checks, strict=True):
                if check.no_reply is not None:
                    components = no_reply_components(check.no_reply)
                else:
                    score = next(scores)
                    values = {"cognitive": score.cognitive, "emotional": score.emotional}
                    values["behavioral"] = score.behavioral
                    components = {
                        name: ComponentScore(status="scored", value=round(values[name], 4))
                        for name in COMPONENTS
                    }
                log.append(
                    TherapyVerdict(
                        source=source,
                        scenario_id=answer.question_id,
                        epoch=answer.epoch,
                        judge=judge_id,
                        rubric_version=OFFLINE_SCORER_RUBRIC,
                        scores=components,
                        finished_at=now_iso(),
                        no_reply=check.no_reply.kind if check.no_reply else None,
                        degenerate=check.degenerate,
                        scored_by=None if check.no_reply else scorer.scored_by,
                    )
                )
        finally:
            log.close()
        result.judged += len(pending)


async def _judge_with_model(
    study: Study,
    spec: ModelSpec,
    questions: dict[str, TherapyQuestion],
    answers: dict[str, dict[ItemKey, SourceAnswer]],
    options: TherapyJudgeOptions,
    models: dict[str, ModelAPI] | None,
    result: TherapyJudgeResult,
) -> None:
    judge = (models or {}).get(spec.id) or create_model(spec)
    cache = ResponseCache(options.cache_path) if options.cache_path else None
    passes: list[JudgePass] = []
    try:
        for source, by_key in answers.items():
            log = study.verdict_log(spec.id, source)
            pending = pending_answers(by_key, log.latest(), questions)
            result.skipped += len(by_key) - len(pending)
            log.open()
            try:
                result.judged += await _judge_all(
                    judge, log, pending, questions, options, cache, label=f"{spec.id} → {source}"
                )
            finally:
                log.close()
            keys = [(answer.question_id, answer.epoch) for answer in pending]
            passes.append(judge_pass(spec.id, keys, log.latest()))
        result.passes.append(merge_passes(spec.id, passes))
    finally:
        if cache is not None:
            cache.close()
        if models is None or spec.id not in models:
            await judge.aclose()


async def _judge_all(
    judge: ModelAPI,
    log: AppendLog[TherapyVerdict],
    pending: list[SourceAnswer],
    questions: dict[str, TherapyQuestion],
    options: TherapyJudgeOptions,
    cache: ResponseCache | None,
    *,
    label: str,
) -> int:
    async def judge_one(answer: SourceAnswer) -> None:
        verdict = await judge_therapy_answer(
            judge,
            questions[answer.question_id].question,
            answer.text,
            source=answer.source,
            question_id=answer.question_id,
            epoch=answer.epoch,
            settings=options.settings,
            cache=cache,
        )
        log.append(verdict)

    return await for_each_concurrently(
        pending,
        judge_one,
        description=f"judging {label}",
        max_connections=options.max_connections,
        progress=options.progress,
    )
