"""Check a judge against human labels before trusting it (``empathybench judge-check``).

A labels file is JSONL; each line holds a full scenario, a response, and the human scores
(0, 0.5 or 1) for the text dimensions that apply — see docs/labelling-guide.md. The judge
scores every response; agreement is reported per dimension as Spearman's rho and Cohen's
kappa on binned scores (unweighted and quadratic), with counts; the judge's bias (mean judge
score − mean label) with a 95% bootstrap CI over scenarios; and, as a trivial baseline, the
Spearman of reply length (words of the reply; 0 for outputs the no-reply rule catches) with
the labels, so a reader sees what the judge adds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from empathybench.analysis.statistics import bin_scores, bootstrap_mean, cohen_kappa, spearman
from empathybench.errors import UserError
from empathybench.jsonl import parse_record, read_json_objects
from empathybench.judging.llm_judge import JudgeSettings, judge_response
from empathybench.judging.rubric import TEXT_DIMENSIONS
from empathybench.models.base import ModelAPI
from empathybench.records import Record, Scenario, Verdict
from empathybench.runtime.cache import ResponseCache
from empathybench.runtime.concurrency import for_each_concurrently

BUNDLED_LABELS = "calibration-v1"


class LabelledResponse(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    id: str
    scenario: Scenario
    response: str
    labels: dict[str, float]
    crisis_referral: bool | None = None
    split: Literal["train", "test"] | None = None
    """Sets used for training an offline judge fix their split here (by scenario)."""


class DimensionAgreement(Record):
    dimension: str
    n: int
    judge_unscored: int
    spearman: float | None
    kappa: float | None
    kappa_quadratic: float | None
    human_mean: float | None
    judge_mean: float | None
    bias: float | None = None
    """Mean judge score − mean label over the scored pairs."""
    bias_low: float | None = None
    bias_high: float | None = None
    """95% bootstrap CI of the bias, resampling scenarios."""
    length_spearman: float | None = None
    """Spearman of reply length (words; 0 when the no-reply rule fires) with the labels."""


class CalibrationReport(Record):
    judge: str
    labels: str
    items: int
    dimensions: list[DimensionAgreement]
    crisis_referral_agreement: float | None
    crisis_items: int


BUNDLED_LABEL_FILES = {
    BUNDLED_LABELS: "calibration/calibration-v1.jsonl",
    "judge-labels-v1": "scorer/judge-labels-v1.jsonl",
    "judge-labels-v2": "scorer/judge-labels-v2.jsonl",
    "judge-labels-w1": "scorer/judge-labels-w1.jsonl",
    "judge-labels-w2": "scorer/judge-labels-w2.jsonl",
    "judge-labels-w3": "scorer/judge-labels-w3.jsonl",
    "judge-labels-w4": "scorer/judge-labels-w4.jsonl",
}
"""Bundled labelled benchmark responses by name → file under ``empathybench/data``."""


def labels_path(path_or_name: str) -> Path:
    """The file for a bundled labels name, or the path as given."""
    if path_or_name in BUNDLED_LABEL_FILES:
        from importlib import resources

        data = resources.files("empathybench") / "data"
        return Path(str(data / BUNDLED_LABEL_FILES[path_or_name]))
    return Path(path_or_name)


def load_labels(path_or_name: str) -> list[LabelledResponse]:
    path = labels_path(path_or_name)
    if not path.is_file():
        known = ", ".join(BUNDLED_LABEL_FILES)
        raise UserError(f"{path_or_name}: no such labels file (or use a bundled set: {known})")
    records = []
    for number, data in read_json_objects(path):
        record = parse_record(data, LabelledResponse, f"{path}:{number}")
        bad = {
            d: v
            for d, v in record.labels.items()
            if d not in TEXT_DIMENSIONS or v not in (0.0, 0.5, 1.0)
        }
        if bad:
            raise UserError(
                f"{path}:{number}: labels must be text dimensions scored 0, 0.5 or 1, got {bad}"
            )
        records.append(record)
    if not records:
        raise UserError(f"{path}: no labelled responses")
    return records


def reply_length(record: LabelledResponse) -> int:
    """Words of the reply part of a labelled answer (0 when the no-reply rule fires): the
    trivial baseline every judge is shown beside."""
    from empathybench.analysis.text_metrics import words
    from empathybench.judging.no_reply import check_reply, reply_part

    if check_reply(record.response, record.scenario).no_reply is not None:
        return 0
    return len(words(reply_part(record.response, record.scenario)))


def agreement_report(
    judge_id: str, labels_name: str, records: list[LabelledResponse], verdicts: list[Verdict]
) -> CalibrationReport:
    rows = []
    lengths = [reply_length(r) for r in records]
    for dimension in TEXT_DIMENSIONS:
        pairs: list[tuple[float, float]] = []
        clusters: list[str] = []
        unscored = 0
        for record, verdict in zip(records, verdicts, strict=True):
            if dimension not in record.labels:
                continue
            score = verdict.scores.get(dimension)
            if score is None or score.status != "scored" or score.value is None:
                unscored += 1
                continue
            pairs.append((record.labels[dimension], score.value))
            clusters.append(record.scenario.id)
        human = [h for h, _ in pairs]
        judged = [j for _, j in pairs]
        rho, n = spearman(human, judged)
        bias = bootstrap_mean([j - h for h, j in pairs], clusters=clusters, seed=0)
        labelled = [i for i, r in enumerate(records) if dimension in r.labels]
        length_rho, _ = spearman(
            [records[i].labels[dimension] for i in labelled], [float(lengths[i]) for i in labelled]
        )
        rows.append(
            DimensionAgreement(
                dimension=dimension,
                n=n,
                judge_unscored=unscored,
                spearman=rho,
                kappa=cohen_kappa(bin_scores(human), bin_scores(judged)) if pairs else None,
                kappa_quadratic=(
                    cohen_kappa(bin_scores(human), bin_scores(judged), weights="quadratic")
                    if pairs
                    else None
                ),
                human_mean=sum(human) / len(human) if human else None,
                judge_mean=sum(judged) / len(judged) if judged else None,
                bias=bias.mean,
                bias_low=bias.low,
                bias_high=bias.high,
                length_spearman=length_rho,
            )
        )
    crisis = [
        (r.crisis_referral, v.crisis_referral)
        for r, v in zip(records, verdicts, strict=True)
        if r.crisis_referral is not None and v.crisis_referral is not None
    ]
    return CalibrationReport(
        judge=judge_id,
        labels=labels_name,
        items=len(records),
        dimensions=rows,
        crisis_referral_agreement=(sum(a == b for a, b in crisis) / len(crisis))
        if crisis
        else None,
        crisis_items=len(crisis),
    )


async def check_judge_against_labels(
    judge: ModelAPI,
    records: list[LabelledResponse],
    *,
    labels_name: str,
    settings: JudgeSettings,
    cache: ResponseCache | None,
    max_connections: int = 8,
) -> CalibrationReport:
    verdicts: dict[int, Verdict] = {}

    async def one(index: int) -> None:
        record = records[index]
        verdicts[index] = await judge_response(
            judge,
            record.scenario,
            record.response,
            run_id="judge-check",
            epoch=0,
            settings=settings,
            cache=cache,
        )

    await for_each_concurrently(
        range(len(records)),
        one,
        description=f"checking {judge.spec.id} against {labels_name}",
        max_connections=max_connections,
    )
    return agreement_report(
        judge.spec.id, labels_name, records, [verdicts[i] for i in range(len(records))]
    )
