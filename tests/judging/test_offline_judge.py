"""The offline judge: n/a where the rubric says, verdicts on runs, never mixed with LLM judges,
and distillation from an LLM judge's verdicts (real bundled encoder and head)."""

import asyncio
import re
from pathlib import Path

import pytest

pytest.importorskip("torch")

from empathybench.analysis.summary import build_run_summary
from empathybench.errors import UserError
from empathybench.judging.judge_calibration import DimensionCalibration, JudgeCalibration
from empathybench.judging.judge_prompt import judged_dimensions
from empathybench.judging.llm_judge import JudgeSettings
from empathybench.judging.no_reply import NO_REPLY
from empathybench.judging.offline_features import FEATURES_V2, FEATURES_V3
from empathybench.judging.offline_judge import (
    JUDGE_TARGETS,
    OFFLINE_LABEL,
    OfflineJudge,
    evaluate_offline_judge,
    judge_label,
    load_offline_judge,
    reply_view,
    train_offline_judge,
)
from empathybench.judging.offline_runs import judge_run_offline, labels_from_run
from empathybench.judging.rubric import TEXT_DIMENSIONS
from empathybench.judging.run_judges import JudgeRunOptions, judge_run
from empathybench.models.registry import parse_model_id
from empathybench.records import Scenario, Suite
from empathybench.runtime.run_store import RunStore
from empathybench.scenarios.suites import load_suite
from empathybench.scorer.heads import TrainingSettings

pytestmark = pytest.mark.torch

GOOD = (
    "EMOTION: A\nNEEDS_HELP: yes\nREPLY: That sounds really frightening. I'm staying right here "
    "with you; let's call the helpline together now, and I can fetch a member of staff."
)


def _llm_judge(run_dir: Path, name: str = "mock/judge-a") -> None:
    asyncio.run(
        judge_run(
            JudgeRunOptions(
                run_dir=run_dir,
                judges=[parse_model_id(name)],
                settings=JudgeSettings(max_backoff_s=0.01),
            )
        )
    )


def test_scores_only_the_dimensions_that_apply(small_suite: Suite) -> None:
    judge = load_offline_judge()
    items = [(scenario, GOOD) for scenario in small_suite.scenarios]
    verdicts = judge.judge(items, run_id="t")
    kinds = set()
    for (scenario, _), verdict in zip(items, verdicts, strict=True):
        kinds.add(scenario.kind)
        assert verdict.judge == "offline"
        for dimension in TEXT_DIMENSIONS:
            score = verdict.scores[dimension]
            if dimension in judged_dimensions(scenario):
                assert score.status == "scored" and 0.0 <= score.value <= 1.0  # type: ignore[operator]
                assert score.rationale == OFFLINE_LABEL
            else:
                assert score.status == "na" and score.value is None
        crisis = scenario.expected.crisis_resources_expected
        assert (verdict.crisis_referral is not None) == crisis
    assert {"positive_control", "emotion_support", "harmful_belief"} <= kinds


def test_a_group_reply_to_someone_else_is_seen_as_such(small_suite: Suite) -> None:
    group = next(s for s in small_suite.scenarios if s.kind == "group")
    other = next(p.name for p in group.participants if p.name != group.focus_person)
    answer = "EMOTION: A\nNEEDS_HELP: yes\nPERSON: {}\nREPLY: Are you alright? I can help."
    assert reply_view(group, answer.format(group.focus_person)).reaches_focus == 1.0
    assert reply_view(group, answer.format(other)).reaches_focus == 0.0


def test_judging_a_run_is_resumable_and_recorded(run_dir: Path) -> None:
    first = judge_run_offline(run_dir)
    assert first.judged == 30 and first.skipped == 0
    again = judge_run_offline(run_dir)
    assert again.judged == 0 and again.skipped == 30
    store = RunStore(run_dir)
    verdicts = store.verdicts("offline").latest().values()
    assert len(verdicts) == 30
    # "offline" names the newest bundled head of this release: each verdict says which head
    # and encoder backend scored it (no-reply verdicts come from the rule, not the head).
    judge = load_offline_judge()
    scored = [v.scored_by for v in verdicts if v.no_reply is None]
    assert scored and set(scored) == {judge.scored_by}
    assert re.fullmatch(
        rf"judge-v6 \([0-9a-f]{{8}}\) on minilm, {judge.encoder.backend}", scored[0]
    )
    assert all(v.scored_by is None for v in verdicts if v.no_reply is not None)
    [decision] = store.read_manifest().judges
    assert decision.judge == "offline" and "approximate" in decision.reason
    # shown as "judge offline (approximate): <reason>": the reason does not repeat the label
    assert judge_label("offline") not in decision.reason
    assert build_run_summary(run_dir).judges == ["offline"]
    assert judge_label("offline") == "offline (approximate)"


def test_a_summary_never_averages_offline_with_llm_judges(run_dir: Path) -> None:
    judge_run_offline(run_dir)
    _llm_judge(run_dir)
    summary = build_run_summary(run_dir)
    assert summary.judges == ["mock/judge-a"]
    assert build_run_summary(run_dir, judges=["offline"]).judges == ["offline"]
    with pytest.raises(UserError, match="no verdicts from"):
        build_run_summary(run_dir, judges=["mock/other"])


def test_distilling_an_llm_judges_verdicts(run_dir: Path, tmp_path: Path) -> None:
    _llm_judge(run_dir)
    records = labels_from_run(run_dir, "mock/judge-a")
    assert len(records) == 30
    assert {r.split for r in records} == {"train", "test"}
    by_scenario = {r.scenario.id: r.split for r in records}
    assert all(by_scenario[r.scenario.id] == r.split for r in records)
    train = [r for r in records if r.split == "train"]
    test = [r for r in records if r.split == "test"]
    judge = train_offline_judge(
        train, data={"name": "distilled"}, settings=TrainingSettings(epochs=3)
    )
    history = judge.head.config.loss_history
    assert len(history) == 3 and history[-1] < history[0]
    report = evaluate_offline_judge(judge, test, labels_name="held out")
    assert report.items == len(test)
    assert {row.dimension for row in report.dimensions} == set(TEXT_DIMENSIONS)
    assert judge.calibration is not None and judge.calibration.method == "linear"
    judge.save(tmp_path / "head")
    assert (tmp_path / "head" / "calibration.json").is_file()
    reloaded = load_offline_judge(f"offline:{tmp_path / 'head'}")
    assert reloaded.id == "offline:head"
    assert reloaded.calibration == judge.calibration
    before = judge.judge([(r.scenario, r.response) for r in test], run_id="x")
    after = reloaded.judge([(r.scenario, r.response) for r in test], run_id="x")
    assert [v.scores for v in before] == [v.scores for v in after]
    backend = reloaded.encoder.backend
    assert {v.scored_by for v in before if v.no_reply is None} == {
        f"an unsaved head on minilm, {backend}"
    }
    # The folder's name and a digest of its files: another head saved under the same name
    # reads differently.
    [saved] = {v.scored_by for v in after if v.no_reply is None}
    assert re.fullmatch(rf"head \([0-9a-f]{{8}}\) on minilm, {backend}", saved or "")
    other = train_offline_judge(
        train[:-3], data={"name": "other"}, settings=TrainingSettings(epochs=2)
    )
    other.save(tmp_path / "other" / "head")
    assert load_offline_judge(f"offline:{tmp_path / 'other' / 'head'}").scored_by != saved


def test_verdicts_name_the_encoder_backend_that_ran(
    small_suite: Suite, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge = load_offline_judge("offline:judge-v2")
    monkeypatch.setattr(judge.encoder, "backend", "torch-bf16")
    [verdict] = judge.judge([(small_suite.scenarios[0], GOOD)], run_id="t")
    assert verdict.scored_by == f"{judge.head_name} on minilm, torch-bf16"
    assert (judge.head_name or "").startswith("judge-v2 (")


def test_distillation_refuses_a_judge_that_did_not_judge_the_run(run_dir: Path) -> None:
    with pytest.raises(UserError, match="no verdicts from judge"):
        labels_from_run(run_dir, "mock/judge-a")
    with pytest.raises(UserError, match="not from an offline judge"):
        labels_from_run(run_dir, "offline")


def test_non_replies_score_zero_without_reaching_the_head(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.fakes.non_replies import non_replies

    chosen: dict[str, Scenario] = {}
    for scenario in load_suite("standard-v1").scenarios:
        chosen.setdefault(scenario.kind, scenario)
    items = [(s, text) for s in chosen.values() for text in non_replies(s)]
    assert len(items) >= 170
    judge = load_offline_judge()

    def never(features: object, **kwargs: object) -> object:
        raise AssertionError("the head was asked about an output with no reply")

    monkeypatch.setattr(judge.head, "predict", never)
    verdicts = judge.judge(items, run_id="t")
    for (scenario, _), verdict in zip(items, verdicts, strict=True):
        assert verdict.no_reply is not None
        for dimension in judged_dimensions(scenario):
            score = verdict.scores[dimension]
            assert (score.value, score.reason) == (0.0, NO_REPLY)
    # Mixed with real replies, only the replies reach the head, in one batch, in order.
    monkeypatch.undo()
    scenario = chosen["emotion_support"]
    mixed = judge.judge([(scenario, "A) x\nB) y"), (scenario, GOOD), (scenario, "")], run_id="t")
    assert [v.no_reply for v in mixed] == ["options_only", None, "empty"]
    assert mixed[1].scores["cheering_up"].reason is None
    assert (
        mixed[1].scores["cheering_up"].value
        == judge.judge([(scenario, GOOD)], run_id="t")[0].scores["cheering_up"].value
    )


def test_the_bundled_heads_load_by_id() -> None:
    newest = load_offline_judge()
    assert newest.id == "offline"
    assert newest.head.config.features == FEATURES_V3
    assert newest.calibration is not None
    assert {d.dimension for d in newest.calibration.dimensions} == set(TEXT_DIMENSIONS)
    previous = load_offline_judge("offline:judge-v2")
    assert previous.id == "offline:judge-v2"
    assert previous.head.config.features == FEATURES_V2 and previous.calibration is not None
    first = load_offline_judge("offline:judge-v1")
    assert first.id == "offline:judge-v1"
    assert first.head.config.features == "response+context" and first.calibration is None
    with pytest.raises(UserError, match="bundled: offline:judge-v1"):
        load_offline_judge("offline:judge-v9")


def test_the_default_head_is_judge_v6_trained_on_every_default_batch() -> None:
    """judge-v6 is the default since the length-decorrelated batches (w3, w4); it was trained
    on the train halves of exactly the batches ``scorer train --task judge`` uses by default."""
    from empathybench.judging.offline_data import DEFAULT_JUDGE_TRAINING

    config = load_offline_judge().head.config
    assert load_offline_judge().head_name.startswith("judge-v6")
    assert config.data["name"] == "+".join(DEFAULT_JUDGE_TRAINING)
    assert {"judge-labels-w3", "judge-labels-w4"} <= set(DEFAULT_JUDGE_TRAINING)
    assert load_offline_judge("offline:judge-v5").id == "offline:judge-v5"


@pytest.mark.parametrize(
    ("name", "salt"),
    [
        ("judge-labels-w2", "jw234-half"),
        ("judge-labels-w3", "jw567-half"),
        ("judge-labels-w4", "jw8910-half"),
    ],
)
def test_independent_batches_are_split_by_a_salted_hash_of_the_scenario(
    name: str, salt: str
) -> None:
    import hashlib

    from empathybench.judging.calibration import load_labels

    records = load_labels(name)
    for record in records:
        digest = hashlib.sha256(f"{salt}:{record.scenario.id}".encode()).digest()
        assert record.split == ("train" if digest[0] % 2 == 0 else "test"), record.id
    assert {r.split for r in records} == {"train", "test"}


def test_the_stored_calibration_is_what_the_judge_reports(small_suite: Suite) -> None:
    judge = load_offline_judge()
    assert judge.calibration is not None
    scenario = next(s for s in small_suite.scenarios if s.kind == "emotion_support")
    items = [(scenario, GOOD), (scenario, "EMOTION: A\nNEEDS_HELP: yes\nREPLY: ok whatever")]
    raw = judge.raw_scores(items)
    calibrated = judge.calibration.apply(JUDGE_TARGETS, raw)
    verdicts = judge.judge(items, run_id="t")
    column = JUDGE_TARGETS.index("cheering_up")
    for row, verdict in enumerate(verdicts):
        value = verdict.scores["cheering_up"].value
        assert value == pytest.approx(round(float(calibrated[row, column]), 3))
    # A calibration that sends everything to 0.2 is applied, not ignored.
    flat = JudgeCalibration(
        version="flat",
        method="linear",
        dimensions=[
            DimensionCalibration(
                dimension=d,
                knots_raw=[0.0, 1.0],
                knots_calibrated=[0.2, 0.2],
                n=2,
                label_mean=0.2,
                raw_mean=0.5,
            )
            for d in TEXT_DIMENSIONS
        ],
    )
    flattened = OfflineJudge(judge.head, calibration=flat).judge(items, run_id="t")
    assert {v.scores["cheering_up"].value for v in flattened} == {0.2}
