"""The offline judge on run directories: judging a run, and distilling an LLM judge's verdicts.

``judge_run_offline`` scores every answered, not yet judged item of a run in batches and
appends ``verdicts/offline.jsonl`` like any judge (resumable; the decision is recorded in the
manifest). ``labels_from_run`` turns an LLM judge's verdicts on a run into labelled responses,
split by scenario, so ``empathybench scorer train --from-run`` can train a cheap local judge on
an expensive one's scores.
"""

from __future__ import annotations

from pathlib import Path

from empathybench.errors import UserError
from empathybench.judging.calibration import LabelledResponse
from empathybench.judging.judge_prompt import judged_dimensions
from empathybench.judging.offline_judge import (
    is_offline_judge,
    load_offline_judge,
    offline_judge_id,
)
from empathybench.judging.run_judges import JudgeRunResult, pending_items, record_decisions
from empathybench.records import JudgeDecision, Scenario
from empathybench.runner import load_run_suite
from empathybench.runtime.run_store import RunStore
from empathybench.scorer.empathy_data import split_for

BATCH = 256


def judge_run_offline(run_dir: Path, judge_id: str = "offline") -> JudgeRunResult:
    """Score a run's answered items with an offline judge (``offline`` or ``offline:DIR``)."""
    store = RunStore(run_dir)
    manifest = store.read_manifest()
    recorded_id = offline_judge_id(judge_id)
    scenarios: dict[str, Scenario] = {s.id: s for s in load_run_suite(manifest).scenarios}
    responses = {k: r for k, r in store.latest_responses().items() if k[0] in scenarios}
    log = store.verdicts(recorded_id)
    pending = pending_items(responses, log.latest(), scenarios)
    if pending:
        judge = load_offline_judge(judge_id)  # loading costs seconds: only when needed
        log.open()
        try:
            for start in range(0, len(pending), BATCH):
                keys = pending[start : start + BATCH]
                verdicts = judge.judge(
                    [(scenarios[k[0]], responses[k].text or "") for k in keys],
                    run_id=manifest.run_id,
                    epochs=[k[1] for k in keys],
                )
                for verdict in verdicts:
                    log.append(verdict)
        finally:
            log.close()
    decision = JudgeDecision(
        judge=recorded_id,
        judge_family=None,
        tested_family=None,
        same_family=False,
        allowed=True,
        reason="approximate scores from a trained scorer, not a model: no self-judging check",
    )
    record_decisions(store, [decision])
    answered = sum(1 for r in responses.values() if r.ok)
    return JudgeRunResult(
        decisions=[decision],
        verdicts={recorded_id: log.latest()},
        judged=len(pending),
        skipped=answered - len(pending),
    )


def labels_from_run(
    run_dir: Path, judge: str, *, test_fraction: float = 0.2
) -> list[LabelledResponse]:
    """An LLM judge's scored verdicts on a run as labelled responses, split by scenario."""
    if is_offline_judge(judge):
        raise UserError("distil from an LLM judge's verdicts, not from an offline judge")
    store = RunStore(run_dir)
    manifest = store.read_manifest()
    if judge not in {d.judge for d in manifest.judges}:
        known = ", ".join(d.judge for d in manifest.judges) or "none"
        raise UserError(f"{run_dir}: no verdicts from judge {judge!r} (judges here: {known})")
    scenarios = {s.id: s for s in load_run_suite(manifest).scenarios}
    responses = store.latest_responses()
    records = []
    for key, verdict in sorted(store.verdicts(judge).latest().items()):
        response = responses.get(key)
        scenario = scenarios.get(key[0])
        if response is None or not response.ok or scenario is None:
            continue
        labels = {
            dimension: score.value
            for dimension in judged_dimensions(scenario)
            if (score := verdict.scores.get(dimension)) is not None
            and score.status == "scored"
            and score.value is not None
        }
        if not labels:
            continue
        records.append(
            LabelledResponse(
                id=f"{key[0]}#{key[1]}",
                scenario=scenario,
                response=response.text or "",
                labels=labels,
                crisis_referral=verdict.crisis_referral,
                split=split_for(key[0], test_fraction=test_fraction, salt="distill-v1"),
            )
        )
    if not records:
        raise UserError(f"{run_dir}: judge {judge!r} scored no answered item")
    return records
