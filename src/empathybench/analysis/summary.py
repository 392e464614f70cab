"""Scores per item and dimension, and the run-level summary with confidence intervals.

Every item gets, for each of the six dimensions, a value in [0, 1], ``n/a`` (the dimension
does not apply) or ``unscored`` (no response, or no valid judgement). Means, intervals and
the overall use scored values only, and the counts of n/a, unscored and unparsed answers are
reported beside them, with the outputs that held no reply (scored 0 on the text dimensions by
rule, before any judge) and the replies flagged as degenerate loops. With several judges, a
text dimension's value is the mean of the judges' scores, and their agreement
(Krippendorff's alpha) is reported per dimension. The same numbers are broken down per
scenario kind.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from empathybench.analysis.guessing import guess_rates
from empathybench.analysis.statistics import bootstrap_mean, krippendorff_alpha
from empathybench.jsonl import atomic_write_text, pretty_json
from empathybench.judging.answer_parser import help_answer_correct, parse_answer
from empathybench.judging.no_reply import ReplyCheck, check_reply
from empathybench.judging.rubric import (
    RUBRIC_VERSION,
    TEXT_DIMENSIONS,
    answer_dimensions,
    reply_dimensions,
)
from empathybench.records import (
    DIMENSIONS,
    SCENARIO_KINDS,
    Record,
    Response,
    Scenario,
    SuiteOrigin,
    Verdict,
)
from empathybench.runtime.append_log import ItemKey
from empathybench.runtime.run_data import RunData, load_run_data

SUMMARY_SCHEMA = 1
SUMMARY_FILE = "summary.json"


class Interval(Record):
    mean: float | None
    low: float | None
    high: float | None
    n: int
    items: int


class DimensionSummary(Record):
    dimension: str
    judged: bool
    """False for a text dimension when no judge scored the run."""
    estimate: Interval
    scored: int
    na: int
    unscored: int
    parse_failures: int
    guess: float | None = None
    """What guessing scores on the same items (answer dimensions; ``analysis.guessing``)."""


class KindSummary(Record):
    """The dimensions that apply to one scenario kind, and the overall, over its items only."""

    kind: str
    responses: int
    dimensions: dict[str, Interval]
    """Applicable dimensions that are scored (the text ones only when the run was judged)."""
    overall: Interval


class RunSummary(Record):
    schema_version: int = SUMMARY_SCHEMA
    run_id: str
    model: str
    suite: str
    suite_sha256: str
    rubric_version: str = RUBRIC_VERSION
    judges: list[str]
    responses: int
    failed_responses: int
    dimensions: list[DimensionSummary]
    overall: Interval
    """Mean over items of each item's mean over its scored, applicable dimensions."""
    seed_overall: float | None
    """Mean of the dimension means (the seed paper's Overall), over dimensions with a mean."""
    per_judge: dict[str, dict[str, float | None]] = Field(default_factory=dict)
    agreement: dict[str, float | None] = Field(default_factory=dict)
    """Krippendorff's alpha (interval) between judges, per text dimension (2+ judges)."""
    crisis_referral: Interval | None = None
    bootstrap_seed: int = 0
    per_kind: list[KindSummary] = Field(default_factory=list)
    no_reply: int = 0
    """Answered items whose output held no reply (``judging.no_reply``): text dimensions 0."""
    no_reply_kinds: dict[str, int] = Field(default_factory=dict)
    """Those outputs by what they held instead (options only, a placeholder, …)."""
    degenerate: int = 0
    """Answered items whose reply looks like a degenerate loop (flagged, not scored down)."""
    origin: SuiteOrigin = "empathybench"
    """``original-benchmark``: the items came from the original benchmark (``ORIGIN_NOTE``)."""


ORIGIN_NOTE = (
    "Items from the original benchmark: sent as its tester sent them (its system prompt, then "
    "the person's words), with no options and no answer lines, so Emotion Recognition and "
    "Assistance Needed are judged from the reply by the LLM judges (the offline judge leaves "
    "them unscored) and are not comparable with the same dimensions on empathybench suites, "
    "where they are scored exactly from the answer."
)


def origin_note(summaries: Iterable[RunSummary]) -> list[str]:
    """The note a report shows when any run is on the original benchmark's items."""
    return [ORIGIN_NOTE] if any(s.origin == "original-benchmark" for s in summaries) else []


@dataclass(frozen=True)
class ItemScore:
    scenario_id: str
    epoch: int
    values: dict[str, float | None]
    """Dimension → value; None for unscored; absent for n/a."""
    unparsed: frozenset[str]


def score_item(
    scenario: Scenario, response: Response, verdicts: dict[str, Verdict | None]
) -> ItemScore:
    values: dict[str, float | None] = {}
    unparsed: set[str] = set()
    parsed = (
        parse_answer(response.text, scenario.options) if response.ok and response.text else None
    )
    for dimension in answer_dimensions(scenario):
        if parsed is None:
            values[dimension] = None
        elif dimension == "emotion_recognition":
            unparsed |= {dimension} if parsed.letter is None else set()
            values[dimension] = float(parsed.letter == scenario.correct_letter)
        else:
            unparsed |= {dimension} if parsed.needs_help is None else set()
            values[dimension] = float(help_answer_correct(scenario, parsed))
    for dimension in reply_dimensions(scenario):
        if not verdicts:
            continue
        scored = []
        for verdict in verdicts.values():
            score = verdict.scores.get(dimension) if verdict else None
            if score is not None and score.status == "scored" and score.value is not None:
                scored.append(score.value)
        values[dimension] = sum(scored) / len(scored) if scored and response.ok else None
    return ItemScore(scenario.id, response.epoch, values, frozenset(unparsed))


def interval(values: Sequence[float], clusters: Sequence[str], seed: int) -> Interval:
    """Mean with its seeded bootstrap 95% CI, resampling clusters (items)."""
    estimate = bootstrap_mean(values, clusters=clusters, seed=seed)
    return Interval(
        mean=estimate.mean,
        low=estimate.low,
        high=estimate.high,
        n=estimate.n,
        items=estimate.clusters,
    )


def score_items(
    scenarios: dict[str, Scenario],
    responses: dict[ItemKey, Response],
    verdicts: dict[str, dict[ItemKey, Verdict]],
) -> list[ItemScore]:
    """Every response's item scores (responses to scenarios outside ``scenarios`` are skipped)."""
    judges = sorted(verdicts)
    return [
        score_item(scenarios[key[0]], response, {j: verdicts[j].get(key) for j in judges})
        for key, response in sorted(responses.items())
        if key[0] in scenarios
    ]


def _dimensioninterval(items: list[ItemScore], dimension: str, seed: int) -> Interval:
    scored = [
        (value, item.scenario_id)
        for item in items
        if (value := item.values.get(dimension)) is not None
    ]
    return interval([v for v, _ in scored], [c for _, c in scored], seed)


def item_overall(item: ItemScore) -> float | None:
    """An item's overall: the mean of its scored, applicable dimensions (None if none)."""
    scored_values = [v for v in item.values.values() if v is not None]
    return sum(scored_values) / len(scored_values) if scored_values else None


def _overallinterval(items: list[ItemScore], seed: int) -> Interval:
    scored = [
        (value, item.scenario_id) for item in items if (value := item_overall(item)) is not None
    ]
    return interval([v for v, _ in scored], [c for _, c in scored], seed)


def _per_kind(
    items: list[ItemScore], scenarios: dict[str, Scenario], judged: bool, seed: int
) -> list[KindSummary]:
    from empathybench.judging.rubric import APPLICABLE_DIMENSIONS

    breakdown = []
    for kind in SCENARIO_KINDS:
        kind_items = [i for i in items if scenarios[i.scenario_id].kind == kind]
        if not kind_items:
            continue
        # The dimensions any item of this kind has (from template v2 they vary per item).
        present = {d for i in kind_items for d in scenarios[i.scenario_id].dimensions}
        answered = {d for i in kind_items for d in answer_dimensions(scenarios[i.scenario_id])}
        dimensions = [
            d
            for d in (*APPLICABLE_DIMENSIONS[kind], *sorted(present))
            if d in present and (judged or d in answered)
        ]
        dimensions = list(dict.fromkeys(dimensions))
        breakdown.append(
            KindSummary(
                kind=kind,
                responses=len(kind_items),
                dimensions={d: _dimensioninterval(kind_items, d, seed) for d in dimensions},
                overall=_overallinterval(kind_items, seed),
            )
        )
    return breakdown


def reply_checks(
    scenarios: dict[str, Scenario], responses: dict[ItemKey, Response]
) -> dict[ItemKey, ReplyCheck]:
    """The no-reply rule and the loop flag on every answered item of ``scenarios``."""
    return {
        key: check_reply(response.text or "", scenarios[key[0]])
        for key, response in sorted(responses.items())
        if key[0] in scenarios and response.ok
    }


def summarize(
    *,
    run_id: str,
    model: str,
    suite_name: str,
    suite_sha256: str,
    scenarios: dict[str, Scenario],
    responses: dict[ItemKey, Response],
    verdicts: dict[str, dict[ItemKey, Verdict]],
    seed: int = 0,
) -> RunSummary:
    judges = sorted(verdicts)
    items = score_items(scenarios, responses, verdicts)
    guesses = guess_rates(scenarios, items)
    answered = {d for s in scenarios.values() for d in answer_dimensions(s)}
    dimensions = []
    dimension_means: list[float] = []
    for dimension in DIMENSIONS:
        judged = dimension in answered or bool(judges)
        estimate = _dimensioninterval(items, dimension, seed)
        if estimate.mean is not None:
            dimension_means.append(estimate.mean)
        applicable = sum(1 for i in items if dimension in scenarios[i.scenario_id].dimensions)
        dimensions.append(
            DimensionSummary(
                dimension=dimension,
                judged=judged,
                estimate=estimate,
                scored=estimate.n,
                na=len(items) - applicable,
                unscored=applicable - estimate.n if judged else 0,
                parse_failures=sum(1 for i in items if dimension in i.unparsed),
                guess=guesses.get(dimension),
            )
        )
    checks = reply_checks(scenarios, responses)
    kinds = Counter(check.no_reply.kind for check in checks.values() if check.no_reply)
    summary = RunSummary(
        run_id=run_id,
        model=model,
        suite=suite_name,
        suite_sha256=suite_sha256,
        judges=judges,
        responses=len(items),
        failed_responses=sum(1 for r in responses.values() if not r.ok),
        dimensions=dimensions,
        overall=_overallinterval(items, seed),
        seed_overall=sum(dimension_means) / len(dimension_means) if dimension_means else None,
        bootstrap_seed=seed,
        per_kind=_per_kind(items, scenarios, bool(judges), seed),
        no_reply=sum(kinds.values()),
        no_reply_kinds=dict(sorted(kinds.items())),
        degenerate=sum(1 for check in checks.values() if check.degenerate),
        origin=(
            "original-benchmark"
            if scenarios and all(s.answers_in_reply for s in scenarios.values())
            else "empathybench"
        ),
    )
    if not judges:
        return summary
    judged_here = judged_dimension_names(scenarios.values())
    per_judge = {j: _judge_means(j, judged_here, scenarios, responses, verdicts) for j in judges}
    agreement = {}
    for name in judged_here:
        keys = [
            k for k in sorted(responses) if k[0] in scenarios and name in scenarios[k[0]].dimensions
        ]
        ratings = [[_value(verdicts[j].get(k), name) for k in keys] for j in judges]
        agreement[name] = krippendorff_alpha(ratings) if len(judges) > 1 else None
    referrals = [
        (float(v.crisis_referral), k[0])
        for j in judges
        for k, v in verdicts[j].items()
        if v.crisis_referral is not None and k in responses
    ]
    return summary.model_copy(
        update={
            "per_judge": per_judge,
            "agreement": agreement,
            "crisis_referral": interval([v for v, _ in referrals], [c for _, c in referrals], seed)
            if referrals
            else None,
        }
    )


def _value(verdict: Verdict | None, dimension: str) -> float | None:
    score = verdict.scores.get(dimension) if verdict else None
    return score.value if score is not None and score.status == "scored" else None


def judged_dimension_names(scenarios: Iterable[Scenario]) -> list[str]:
    """The dimensions judges score on these items: the text dimensions, plus Emotion
    Recognition and Assistance Needed where items have no options (the original benchmark)."""
    extra = {d for s in scenarios for d in reply_dimensions(s)}
    return [d for d in DIMENSIONS if d in TEXT_DIMENSIONS or d in extra]


def _judge_means(
    judge: str,
    dimensions: list[str],
    scenarios: dict[str, Scenario],
    responses: dict[ItemKey, Response],
    verdicts: dict[str, dict[ItemKey, Verdict]],
) -> dict[str, float | None]:
    means: dict[str, float | None] = {}
    for dimension in dimensions:
        values = [
            v
            for k in responses
            if k[0] in scenarios
            if (v := _value(verdicts[judge].get(k), dimension)) is not None
        ]
        means[dimension] = sum(values) / len(values) if values else None
    return means


def summarize_run_data(run: RunData, *, seed: int = 0) -> RunSummary:
    return summarize(
        run_id=run.manifest.run_id,
        model=run.model,
        suite_name=run.suite.name,
        suite_sha256=run.suite.sha256,
        scenarios=run.scenarios,
        responses=run.responses,
        verdicts=run.verdicts,
        seed=seed,
    )


def write_summary(run_dir: Path, summary: RunSummary) -> None:
    atomic_write_text(run_dir / SUMMARY_FILE, pretty_json(summary))


def build_run_summary(
    run_dir: Path, *, seed: int = 0, write: bool = True, judges: list[str] | None = None
) -> RunSummary:
    """Summarise a run directory with ``judges`` (default: ``summary_judges`` of the manifest)."""
    summary = summarize_run_data(load_run_data(run_dir, judges=judges), seed=seed)
    if write:
        write_summary(run_dir, summary)
    return summary
