"""The empathy scorer end to end with the bundled encoder, labels and head."""

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from empathybench.errors import UserError
from empathybench.judging.no_reply import degenerate_reason
from empathybench.scorer import EmpathyScores, load_empathy_scorer, score_responses
from empathybench.scorer.empathy_data import (
    COMPONENTS,
    LabelSet,
    load_empathy_labels,
    split_for,
)
from empathybench.scorer.empathy_scorer import (
    SEED_STUDY_MSE,
    bundled_head_dir,
    evaluate_empathy_scorer,
    train_empathy_scorer,
)
from empathybench.scorer.heads import TrainingSettings
from empathybench.scorer.perturbations import PERTURBATIONS
from empathybench.scorer.robustness import robustness_summary, robustness_table
from empathybench.scorer.signals import SIGNAL_NAMES, SIGNAL_NAMES_V1
from empathybench.therapy.questions import load_questions

pytestmark = pytest.mark.torch

WARM = (
    "It makes sense that you feel lost after the move; starting over without friends nearby is "
    "lonely. Would you like to find one club or class this week that meets regularly, so you "
    "see the same faces? I'm glad you reached out."
)
COLD = "Loneliness is common after relocation. Join a club."
WARM_DOG = (
    "Coming home to a quiet flat without him must be so hard, no wonder the nights are the "
    "worst. How long did you have him? If it helps, writing down a favourite memory of him "
    "before bed might give the crying somewhere to go."
)
LOOPS = Path(__file__).parent / "fixtures" / "smollm2-therapy-loops.jsonl"


def test_the_bundled_labels_are_large_enough_and_split_by_prompt() -> None:
    labels = load_empathy_labels()
    assert labels.name == "empathy-labels-v4" and len(labels.records) >= 1600
    train, test = labels.part("train"), labels.part("test")
    assert len(test) >= 60 and len(train) >= 300
    assert not {r.prompt_id for r in train} & {r.prompt_id for r in test}
    styles = {r.style for r in labels.records}
    assert {"cold_clinical", "advice_only", "reflect_only", "warm_practical"} <= styles
    assert {"sycophantic", "dismissive"} <= styles
    assert {"formulaic", "loop", "self_focused", "explore_question", "interpret"} <= styles
    for component in COMPONENTS:
        counts = {v: sum(r.labels[component] == v for r in labels.records) for v in (1, 2, 3)}
        assert min(counts.values()) >= len(labels.records) * 0.15, (component, counts)


def test_the_shipped_head_beats_the_mean_predictor_on_the_test_split() -> None:
    scorer = load_empathy_scorer()
    evaluation = evaluate_empathy_scorer(scorer, load_empathy_labels())
    assert evaluation.seed_study_mse == SEED_STUDY_MSE
    for key in (*COMPONENTS, "overall"):
        assert evaluation.mse[key] < evaluation.baseline_mse[key], key
    assert scorer.head.config.metrics["mse"] == evaluation.mse  # recorded at training time


def test_scores_are_ordered_batched_and_rank_a_warm_reply_above_a_cold_one() -> None:
    texts = [WARM, COLD, WARM]
    one_by_one = [score_responses([t], batch_size=1)[0] for t in texts]
    batched = score_responses(texts, batch_size=64)
    assert all(isinstance(s, EmpathyScores) for s in batched)
    for a, b in zip(one_by_one, batched, strict=True):
        assert a.empathy == pytest.approx(b.empathy, abs=1e-4)
    assert batched[0].empathy > batched[1].empathy + 0.3
    assert batched[0].empathy == pytest.approx(
        (batched[0].cognitive + batched[0].emotional + batched[0].behavioral) / 3
    )
    assert score_responses([]) == []


def _few_messages(count: int = 6) -> LabelSet:
    """A small slice of the bundled labels (whole messages, both splits), to train quickly."""
    labels = load_empathy_labels()
    keep = (
        sorted({r.prompt_id for r in labels.part("train")})[: count // 2]
        + sorted({r.prompt_id for r in labels.part("test")})[: count // 2]
    )
    records = [r for r in labels.records if r.prompt_id in keep]
    return LabelSet(name="slice", sha256=labels.sha256, records=records)


def test_training_saving_and_loading_round_trip(tmp_path: Path) -> None:
    labels = _few_messages()
    scorer = train_empathy_scorer(labels, settings=TrainingSettings(epochs=4, seed=1))
    history = scorer.head.config.loss_history
    assert len(history) == 4 and history[-1] < history[0]
    assert scorer.head.config.data["sha256"] == labels.sha256
    scorer.head.save(tmp_path / "head")
    loaded = load_empathy_scorer(tmp_path / "head")
    texts = [r.response for r in labels.part("test")[:20]]
    np.testing.assert_array_equal(loaded.predict(texts), scorer.predict(texts))


def test_augmented_training_sees_every_perturbation() -> None:
    labels = _few_messages(2)
    scorer = train_empathy_scorer(labels, settings=TrainingSettings(epochs=1, augment=True))
    data = scorer.head.config.data
    assert data["train_texts"] == data["train"] * (1 + len(PERTURBATIONS))


def test_robustness_table_and_summary_shapes() -> None:
    scorer = load_empathy_scorer()
    rows = robustness_table(scorer, WARM, seed=0)
    assert [r.perturbation for r in rows] == ["original", *PERTURBATIONS]
    assert rows[0].change == dict.fromkeys(("cognitive", "emotional", "behavioral", "empathy"), 0.0)
    for row in rows[1:]:
        assert row.change["empathy"] == pytest.approx(
            row.scores.empathy - rows[0].scores.empathy, abs=1e-3
        )
    summary = robustness_summary(scorer, [WARM, COLD], seed=0)
    assert summary.texts == 2 and [e.perturbation for e in summary.effects] == list(PERTURBATIONS)
    assert all(0 <= v <= 2 for e in summary.effects for v in e.mean_abs_change.values())


def test_bad_label_files_are_one_clear_error(tmp_path: Path) -> None:
    good = {
        "id": "x",
        "prompt_id": "p",
        "prompt": "?",
        "response": "!",
        "split": "train",
        "labels": {"cognitive": 1, "emotional": 2, "behavioral": 3},
    }
    path = tmp_path / "labels.jsonl"
    path.write_text(json.dumps({**good, "labels": {"cognitive": 4}}) + "\n")
    with pytest.raises(UserError, match=r"labels.jsonl:1: invalid EmpathyLabel \(labels: "):
        load_empathy_labels(str(path))
    path.write_text(
        json.dumps(good) + "\n" + json.dumps({**good, "id": "y", "split": "test"}) + "\n"
    )
    with pytest.raises(UserError, match="prompts in both splits"):
        load_empathy_labels(str(path))
    path.write_text("{not json\n")
    with pytest.raises(UserError, match="not valid JSON"):
        load_empathy_labels(str(path))
    with pytest.raises(UserError, match="no such labels file"):
        load_empathy_labels(str(tmp_path / "missing.jsonl"))


def test_v1_labels_stay_reproducible_inside_v2() -> None:
    v1, v2 = load_empathy_labels("empathy-labels-v1"), load_empathy_labels("empathy-labels-v2")
    shipped_v1 = load_empathy_scorer(bundled_head_dir("empathy-v1"))
    assert shipped_v1.head.config.data["sha256"] == v1.sha256
    by_id = {r.id: r for r in v2.records}
    for record in v1.records:
        assert by_id[record.id].model_copy(update={"batch": None}) == record
    assert {r.batch for r in v2.records} == {"v1", "v2-a", "v2-b", "v2-c"}


def test_v2_labels_stay_inside_v3_and_w2_is_split_by_message_with_a_fixed_salt() -> None:
    v2, v3 = load_empathy_labels("empathy-labels-v2"), load_empathy_labels("empathy-labels-v3")
    by_id = {r.id: r for r in v3.records}
    assert all(by_id[r.id] == r for r in v2.records)
    w2 = [r for r in v3.records if r.batch == "w2"]
    assert len(w2) >= 300 and len(v3.records) == len(v2.records) + len(w2)
    for record in w2:
        assert record.split == split_for(record.prompt_id, test_fraction=0.5, salt="w2-half")
    test_messages = {r.prompt_id for r in w2 if r.split == "test"}
    assert 15 <= len(test_messages) <= len({r.prompt_id for r in w2}) - 15
    shipped_v3 = load_empathy_scorer(Path("empathy-v3"))
    assert shipped_v3.head.config.data["sha256"] == v3.sha256


@pytest.mark.parametrize(
    ("earlier", "later", "batches", "salt"),
    [
        ("empathy-labels-v3", "empathy-labels-v4", ("w3", "w4"), "w34-half"),
        ("empathy-labels-v4", "empathy-labels-v5", ("w5", "w6"), "w56-half"),
        ("empathy-labels-v5", "empathy-labels-v6", ("w7", "w8"), "w78-half"),
    ],
)
def test_each_label_set_keeps_the_last_and_splits_new_batches_by_message_with_a_fixed_salt(
    earlier: str, later: str, batches: tuple[str, str], salt: str
) -> None:
    old, new_set = load_empathy_labels(earlier), load_empathy_labels(later)
    by_id = {r.id: r for r in new_set.records}
    assert all(by_id[r.id] == r for r in old.records)
    new = [r for r in new_set.records if r.batch in batches]
    assert len(new) >= 600 and len(new_set.records) == len(old.records) + len(new)
    for batch in batches:
        rows = [r for r in new if r.batch == batch]
        for record in rows:
            assert record.split == split_for(record.prompt_id, test_fraction=0.5, salt=salt)
        test_messages = {r.prompt_id for r in rows if r.split == "test"}
        assert 12 <= len(test_messages) <= len({r.prompt_id for r in rows}) - 12


def test_the_default_head_is_trained_on_the_default_labels() -> None:
    assert load_empathy_scorer().head.config.data["sha256"] == load_empathy_labels().sha256


@pytest.mark.parametrize("version", ["v5", "v6"])
def test_later_heads_load_by_name_and_are_trained_on_their_own_labels(version: str) -> None:
    head = load_empathy_scorer(Path(f"empathy-{version}")).head
    assert head.config.data["sha256"] == load_empathy_labels(f"empathy-labels-{version}").sha256
    assert head.config.data["test"] > 0 and head.config.data["split"] == "fixed by prompt"
    assert load_empathy_scorer().head.config.data["sha256"] != head.config.data["sha256"]


def test_earlier_heads_load_by_name_with_their_own_signals() -> None:
    previous = load_empathy_scorer(Path("empathy-v2"))
    assert previous.head.config.signals == list(SIGNAL_NAMES_V1)
    assert previous.head.config.input_dimension == 384 + len(SIGNAL_NAMES_V1)
    message = "I moved for work and I have no friends here. Weekends are the worst."
    assert previous.predict([WARM, COLD], messages=[message, message]).shape == (2, 3)
    with pytest.raises(UserError, match="not a scorer head"):
        load_empathy_scorer(Path("empathy-v9"))


def test_one_liners_score_low_beside_a_reply_that_engages() -> None:
    message = "my dog died last week and the flat feels so empty. i keep crying at night"
    texts = ["hugs", "same here lol", "stay strong 💪", WARM_DOG]
    scores = score_responses(texts, messages=[message] * len(texts))
    assert all(s.empathy < 1.8 for s in scores[:3]), [s.empathy for s in scores]
    assert scores[3].empathy > max(s.empathy for s in scores[:3]) + 0.5


def test_the_seed_method_stays_available_under_its_name() -> None:
    seed, default = load_empathy_scorer(method="seed"), load_empathy_scorer()
    assert (seed.method, default.method) == ("seed", "signals")
    assert seed.head.config.features == "response" and not seed.head.config.signals
    assert default.head.config.signals == list(SIGNAL_NAMES)
    assert default.head.config.input_dimension == seed.head.config.input_dimension + len(
        SIGNAL_NAMES
    )
    with pytest.raises(UserError, match="unknown scorer method"):
        load_empathy_scorer(method="bert")


def test_messages_are_optional_and_must_match_the_replies() -> None:
    scorer = load_empathy_scorer()
    message = "I moved for work and I have no friends here. Weekends are the worst."
    alone = scorer.predict([WARM])
    beside = scorer.predict([WARM], messages=[message])
    assert alone.shape == beside.shape == (1, 3)
    assert not np.allclose(alone, beside)  # the message-reply similarity is used
    with pytest.raises(ValueError, match="1 texts but 2 messages"):
        scorer.predict([WARM], messages=[message, message])


def test_real_smollm2_loops_score_below_the_therapy_references() -> None:
    """SmolLM2's 640-token therapy loops against the reference answers to the same questions."""
    references = {q.id: q.reference for q in load_questions("sample-v1").questions}
    rows = [json.loads(line) for line in LOOPS.read_text().splitlines()]
    assert len(rows) == 12 and all(degenerate_reason(r["text"]) for r in rows)
    loops = [s.empathy for s in score_responses([r["text"] for r in rows])]
    good = [s.empathy for s in score_responses([references[r["question_id"]] or "" for r in rows])]
    # the therapy report ranks sources by their mean: the looping source must come last
    assert np.mean(good) > np.mean(loops) + 0.25
    assert sum(g > x for g, x in zip(good, loops, strict=True)) >= 9  # 10 of 12 measured
    seed_v1 = load_empathy_scorer(bundled_head_dir("empathy-v1"))  # the earlier default
    earlier = [s.empathy for s in seed_v1.score([r["text"] for r in rows])]
    assert np.mean(earlier) > np.mean(loops) + 0.25  # it rated these loops ~2.8 of 3
