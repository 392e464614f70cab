"""The empathybench scorer for Inspect: our dimensions, scored by our own functions.

- **Deterministic dimensions** (Emotion Recognition, Assistance Needed) come from
  ``analysis.summary.score_item``, which parses the answer with ``parse_answer`` and checks
  the help answer with ``help_answer_correct`` — exactly as ``empathybench summary`` does.
- **Text dimensions** come from a judge verdict: the model bound to Inspect's ``grader``
  role (``--model-role grader=…``) through ``llm_judge.judge_response`` (our judge prompt,
  ``validate_judgement``, bounded re-asks), or, with no grader role, the bundled offline
  judge (approximate; needs the ``local`` extra). Both apply the no-reply rule first: an
  output with no reply scores 0 on every applicable text dimension without a judge call.
- **Self-judge guard**: a grader from the tested model's family is refused
  (``families.check_judge``) unless the task is run with ``-T allow_self_judge=true``.

The score value is a dict over the six dimensions plus ``overall`` (the item's mean over its
scored dimensions) and ``crisis_referral``; a dimension that does not apply, or that no judge
scored, is NaN, which Inspect leaves out of the metrics and counts as unscored.
"""

from __future__ import annotations

import asyncio
import math
import threading
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from inspect_ai.model import Model, model_roles
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver

from empathybench.analysis.summary import item_overall, score_item
from empathybench.inspect_eval.dataset import scenario_of
from empathybench.inspect_eval.judge_model import InspectJudgeModel, spec_of
from empathybench.judging.answer_parser import parse_answer
from empathybench.judging.families import check_judge
from empathybench.judging.llm_judge import JudgeSettings, judge_response
from empathybench.records import DIMENSIONS, JudgeDecision, Response, Scenario, Verdict
from empathybench.runtime.provenance import now_iso

if TYPE_CHECKING:
    from empathybench.judging.offline_judge import OfflineJudge

GRADER_ROLE = "grader"
"""The Inspect model role whose model judges the text dimensions."""
ALLOW_SELF_JUDGE = "-T allow_self_judge=true"
RUN_ID = "inspect"
SCORE_KEYS: tuple[str, ...] = (*DIMENSIONS, "overall", "crisis_referral")
NO_JUDGE = (
    "no judge for the text dimensions: bind one with --model-role grader=PROVIDER/MODEL, or "
    "install empathybench[local] for the offline judge"
)


def grader_model() -> Model | None:
    """The model bound to the ``grader`` role for this eval, or None."""
    bound = model_roles().get(GRADER_ROLE)
    if isinstance(bound, list):
        return bound[0] if bound else None
    return bound


@cache
def _offline_judge() -> OfflineJudge | None:
    from empathybench.judging.offline_judge import load_offline_judge, offline_judge_available

    return load_offline_judge() if offline_judge_available() else None


_offline_lock = threading.Lock()


def _offline_verdict(scenario: Scenario, text: str, epoch: int) -> Verdict | None:
    with _offline_lock:  # one encoder, shared by every sample's thread
        judge = _offline_judge()
        if judge is None:
            return None
        return judge.judge([(scenario, text)], run_id=RUN_ID, epochs=[epoch])[0]


def grader_decision(tested: str, *, allow_self_judge: bool) -> JudgeDecision | None:
    """The self-judge guard's decision on the grader role's model (None without one).

    Raises ``UserError`` when the grader is from the tested model's family and that is not
    allowed.
    """
    grader = grader_model()
    if grader is None:
        return None
    return check_judge(
        spec_of(tested),
        spec_of(str(grader)),
        allow_self_judge=allow_self_judge,
        allow_with=ALLOW_SELF_JUDGE,
    )


@solver
def self_judge_guard(allow_self_judge: bool = False) -> Solver:
    """Refuse a grader of the tested model's family before the tested model is called."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        grader_decision(str(state.model), allow_self_judge=allow_self_judge)
        return state

    return solve


@dataclass(frozen=True)
class Judged:
    verdict: Verdict | None
    judge: str | None
    decision: JudgeDecision | None = None


async def judge_text(
    scenario: Scenario,
    text: str,
    *,
    tested: str,
    epoch: int,
    allow_self_judge: bool,
    settings: JudgeSettings,
) -> Judged:
    """The text-dimension verdict: the grader role's model if bound, else the offline judge.

    Raises ``UserError`` when the grader is from the tested model's family and that is not
    allowed.
    """
    grader = grader_model()
    if grader is not None:
        judge = InspectJudgeModel(grader)
        decision = grader_decision(tested, allow_self_judge=allow_self_judge)
        verdict = await judge_response(
            judge, scenario, text, run_id=RUN_ID, epoch=epoch, settings=settings
        )
        return Judged(verdict, judge.spec.id, decision)
    offline = await asyncio.to_thread(_offline_verdict, scenario, text, epoch)
    return Judged(offline, offline.judge if offline is not None else None)


def _value(values: dict[str, float | None], key: str) -> float:
    value = values.get(key)
    return math.nan if value is None else float(value)


def _explanation(scenario: Scenario, text: str, judged: Judged) -> str:
    parsed = parse_answer(text, scenario.options)
    help_key = "yes" if scenario.expected.help_needed else "no"
    help_answer = {True: "yes", False: "no", None: "not found"}[parsed.needs_help]
    parts = [
        f"emotion {parsed.letter or 'not found'} (key {scenario.correct_letter})",
        f"needs help {help_answer} (key {help_key})",
    ]
    if judged.verdict is None:
        parts.append(NO_JUDGE)
    else:
        parts.append(f"text dimensions judged by {judged.judge}")
        if judged.verdict.no_reply is not None:
            parts.append(f"no reply ({judged.verdict.no_reply}): text dimensions 0 by rule")
    return "; ".join(parts)


@scorer(metrics={key: [mean(), stderr()] for key in SCORE_KEYS})
def empathy_scorer(
    allow_self_judge: bool = False,
    judge_settings: JudgeSettings | None = None,
) -> Scorer:
    """Score each answer on our six dimensions (see the module docstring)."""
    settings = judge_settings or JudgeSettings()

    async def score(state: TaskState, target: Target) -> Score:
        scenario = scenario_of(state.metadata)
        text = state.output.completion
        tested = str(state.model)
        judged = await judge_text(
            scenario,
            text,
            tested=tested,
            epoch=state.epoch,
            allow_self_judge=allow_self_judge,
            settings=settings,
        )
        response = Response(
            run_id=RUN_ID,
            scenario_id=scenario.id,
            epoch=state.epoch,
            model=tested,
            strategy=str(state.metadata.get("strategy", "plain")),
            request_key="",
            text=text,
            latency_s=0.0,
            attempts=1,
            cached=False,
            finished_at=now_iso(),
        )
        verdicts = {judged.judge: judged.verdict} if judged.judge and judged.verdict else {}
        item = score_item(scenario, response, dict(verdicts))
        values = dict(item.values)
        values["overall"] = item_overall(item)
        referral = judged.verdict.crisis_referral if judged.verdict else None
        values["crisis_referral"] = None if referral is None else float(referral)
        metadata: dict[str, Any] = {
            "judge": judged.judge,
            "judge_decision": (
                judged.decision.model_dump(mode="json") if judged.decision else None
            ),
            "verdict": judged.verdict.model_dump(mode="json") if judged.verdict else None,
            "unparsed": sorted(item.unparsed),
            "not_applicable": [d for d in DIMENSIONS if d not in scenario.dimensions],
        }
        return Score(
            value={key: _value(values, key) for key in SCORE_KEYS},
            answer=parse_answer(text, scenario.options).letter,
            explanation=_explanation(scenario, text, judged),
            metadata=metadata,
        )

    return score
