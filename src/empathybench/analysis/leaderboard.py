"""A leaderboard: comparable runs ranked by overall score, with CIs and tests between neighbours.

Only finished runs are ranked (``run_status``): a run that was killed or is still running,
that has items never run, or where more than a small share of calls failed is listed as left
out with the reason and its true counts. Runs are comparable when they share the suite (by
hash), the judge set and the rubric version. The board holds the largest comparable group
(ties: the group of the first run given); every other run is listed as left out, with the
reason. Runs scored by the offline judge are therefore never ranked beside LLM-judged runs:
their judge sets differ.

Ranks follow the overall (the mean over items of each item's mean over its scored
dimensions), each with its seeded, item-clustered bootstrap CI. Each run is tested against
the next one down with a paired bootstrap over the items both answered (each item's score
averaged over epochs); with fewer than two such items there is no test (no p-value, no
tie). A p-value at or above the significance level marks the two as statistically tied;
equal overalls share a rank. P-values are not adjusted for multiplicity.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import NoReturn

from empathybench.analysis.run_sets import UnreadableRun, run_labels
from empathybench.analysis.run_status import MAX_FAILED_SHARE, RunCounts, run_state
from empathybench.analysis.statistics import bootstrap_paired_difference
from empathybench.analysis.summary import (
    Interval,
    RunSummary,
    item_overall,
    score_items,
    summarize_run_data,
)
from empathybench.errors import UserError
from empathybench.judging.offline_judge import is_offline_judge, judge_label
from empathybench.records import Record
from empathybench.runtime.run_data import RunData

LEADERBOARD_SCHEMA = 1
SIGNIFICANCE_LEVEL = 0.05
ComparabilityKey = tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]
"""Suite hash, judge ids, rubric versions, offline set-ups (``scored_by``)."""


class LeaderboardEntry(Record):
    rank: int
    label: str
    model: str
    run_id: str
    run_dir: str
    strategy: str
    overall: Interval
    seed_overall: float | None
    dimensions: dict[str, Interval]
    responses: int
    """Items answered (failed calls not counted)."""
    failed: int = 0
    """Items whose model call failed (excluded from the means)."""
    items: int = 0
    """Items the run set out to answer (suite selection x epochs)."""
    no_reply: int = 0
    """Answered items with no reply to the person (text dimensions 0 by rule)."""
    degenerate: int = 0
    """Replies flagged as degenerate loops (counted, not scored down)."""
    difference_to_next: Interval | None = None
    """Paired difference of this run's overall minus the next run's, over shared items."""
    p_value_to_next: float | None = None
    tied_with_next: bool = False
    test_note: str | None = None
    """Why there is no test against the next run (too few items scored by both)."""


class LeftOutRun(Record):
    run_dir: str
    label: str | None
    reason: str
    counts: RunCounts | None = None
    """Its planned, answered, failed and never-run items (None when it could not be read)."""


class Leaderboard(Record):
    schema_version: int = LEADERBOARD_SCHEMA
    suite: str
    suite_sha256: str
    judges: list[str]
    """Judge labels (offline judges say they are approximate)."""
    rubric_versions: list[str]
    entries: list[LeaderboardEntry]
    left_out: list[LeftOutRun]
    significance_level: float = SIGNIFICANCE_LEVEL
    bootstrap_seed: int = 0
    max_failed_share: float = MAX_FAILED_SHARE


def rubric_versions(run: RunData) -> tuple[str, ...]:
    """The rubric versions of a run's verdicts (empty when it has no judge)."""
    return tuple(
        sorted({v.rubric_version for verdicts in run.verdicts.values() for v in verdicts.values()})
    )


def scored_by(run: RunData) -> tuple[str, ...]:
    """The offline set-ups (head with its digest, encoder, backend) behind a run's verdicts;
    a run judged before verdicts recorded one holds ``unrecorded``."""
    return tuple(
        sorted(
            {
                v.scored_by or "unrecorded"
                for judge, verdicts in run.verdicts.items()
                if is_offline_judge(judge)
                for v in verdicts.values()
                if v.no_reply is None
            }
        )
    )


def comparability_key(run: RunData) -> ComparabilityKey:
    return (run.suite.sha256, tuple(sorted(run.verdicts)), rubric_versions(run), scored_by(run))


def _judges_text(judges: Sequence[str]) -> str:
    return ", ".join(judge_label(j) for j in judges) if judges else "no judge"


def why_not_comparable(key: ComparabilityKey, board: ComparabilityKey, suite: str) -> str:
    """One line saying how a run differs from the board."""
    reasons = []
    if key[0] != board[0]:
        reasons.append(
            f"a different suite ({key[0][:12]}…, the board's is {suite} {board[0][:12]}…)"
        )
    if key[1] != board[1]:
        text = f"different judges ({_judges_text(key[1])}; the board's: {_judges_text(board[1])})"
        if any(is_offline_judge(j) for j in key[1]) != any(is_offline_judge(j) for j in board[1]):
            text += "; offline (approximate) scores are never ranked beside LLM-judged ones"
        reasons.append(text)
    if key[2] != board[2]:
        reasons.append(
            f"a different rubric version ({', '.join(key[2]) or 'none'}; "
            f"the board's: {', '.join(board[2]) or 'none'})"
        )
    if key[1] == board[1] and key[3] != board[3]:
        reasons.append(
            f"scored by a different offline head or encoder backend ({'; '.join(key[3])}; "
            f"the board's: {'; '.join(board[3])})"
        )
    return "; ".join(reasons)


def _item_means(run: RunData) -> dict[str, float]:
    per_item: dict[str, list[float]] = {}
    for item in score_items(run.scenarios, run.responses, run.verdicts):
        value = item_overall(item)
        if value is not None:
            per_item.setdefault(item.scenario_id, []).append(value)
    return {sid: sum(values) / len(values) for sid, values in per_item.items()}


def build_leaderboard(
    runs: Sequence[RunData],
    unreadable: Sequence[UnreadableRun] = (),
    *,
    seed: int = 0,
    significance_level: float = SIGNIFICANCE_LEVEL,
    max_failed_share: float = MAX_FAILED_SHARE,
) -> Leaderboard:
    """Rank the largest comparable group of finished ``runs``; list every other run with the
    reason (unfinished, too many failures, not comparable, nothing scored)."""
    if not runs:
        raise_no_runs(unreadable)
    all_labels = run_labels(runs)
    left_out: list[LeftOutRun] = []
    rankable: list[tuple[RunData, str, RunCounts, RunSummary]] = []
    for run, label in zip(runs, all_labels, strict=True):
        state = run_state(run, max_failed_share=max_failed_share)
        summary = summarize_run_data(run, seed=seed) if state.problem is None else None
        problem = state.problem
        if summary is not None and summary.overall.n == 0:
            problem = f"no item could be scored ({state.counts.text()})"
        if problem is not None or summary is None:
            left_out.append(
                LeftOutRun(
                    run_dir=str(run.directory),
                    label=label,
                    reason=problem or "",
                    counts=state.counts,
                )
            )
        else:
            rankable.append((run, label, state.counts, summary))
    keys = [comparability_key(run) for run, *_ in rankable]
    counts = Counter(keys)
    board_key = (
        max(counts, key=lambda k: (counts[k], -keys.index(k)))
        if keys
        else comparability_key(runs[0])
    )
    suite_name = next((r.suite.name for r, *_ in rankable), runs[0].suite.name)
    chosen = [entry for entry, key in zip(rankable, keys, strict=True) if key == board_key]
    left_out += [
        LeftOutRun(
            run_dir=str(run.directory),
            label=label,
            reason=why_not_comparable(key, board_key, suite_name),
            counts=run_counts,
        )
        for (run, label, run_counts, _), key in zip(rankable, keys, strict=True)
        if key != board_key
    ]
    left_out += [
        LeftOutRun(run_dir=str(u.directory), label=None, reason=u.reason) for u in unreadable
    ]
    chosen.sort(key=lambda entry: -(entry[3].overall.mean or 0.0))
    entries = _ranked_entries(chosen, seed, significance_level)
    return Leaderboard(
        suite=suite_name,
        suite_sha256=board_key[0],
        judges=[judge_label(j) for j in board_key[1]],
        rubric_versions=list(board_key[2]),
        entries=entries,
        left_out=left_out,
        significance_level=significance_level,
        bootstrap_seed=seed,
        max_failed_share=max_failed_share,
    )


def raise_no_runs(unreadable: Sequence[UnreadableRun]) -> NoReturn:
    detail = "; ".join(f"{u.directory}: {u.reason}" for u in unreadable)
    raise UserError("no readable runs to rank" + (f" ({detail})" if detail else ""))


def _ranked_entries(
    chosen: list[tuple[RunData, str, RunCounts, RunSummary]],
    seed: int,
    significance_level: float,
) -> list[LeaderboardEntry]:
    item_means = [_item_means(run) for run, *_ in chosen]
    entries = []
    rank = 0
    for position, (run, label, counts, summary) in enumerate(chosen):
        previous = chosen[position - 1][3].overall.mean if position else None
        if position == 0 or summary.overall.mean != previous:
            rank = position + 1
        entry = LeaderboardEntry(
            rank=rank,
            label=label,
            model=run.model,
            run_id=run.manifest.run_id,
            run_dir=str(run.directory),
            strategy=run.manifest.strategy,
            overall=summary.overall,
            seed_overall=summary.seed_overall,
            dimensions={d.dimension: d.estimate for d in summary.dimensions if d.judged},
            responses=counts.answered,
            failed=counts.failed,
            items=counts.items,
            no_reply=summary.no_reply,
            degenerate=summary.degenerate,
        )
        if position + 1 < len(chosen):
            entry = entry.model_copy(
                update=_neighbour_test(
                    item_means[position], item_means[position + 1], seed, significance_level
                )
            )
        entries.append(entry)
    return entries


MIN_SHARED_ITEMS = 2


def _neighbour_test(
    upper: dict[str, float], lower: dict[str, float], seed: int, significance_level: float
) -> dict[str, object]:
    shared = sorted(set(upper) & set(lower))
    if len(shared) < MIN_SHARED_ITEMS:
        return {
            "test_note": f"no test: {len(shared)} item(s) scored in both runs "
            f"(needs {MIN_SHARED_ITEMS})"
        }
    estimate, p_value = bootstrap_paired_difference(
        [upper[s] for s in shared], [lower[s] for s in shared], clusters=shared, seed=seed
    )
    return {
        "difference_to_next": Interval(
            mean=estimate.mean,
            low=estimate.low,
            high=estimate.high,
            n=estimate.n,
            items=estimate.clusters,
        ),
        "p_value_to_next": p_value,
        "tied_with_next": p_value >= significance_level,
    }
