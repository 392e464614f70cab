"""Reply signals and the lexicon baseline: plain text features, no encoder needed."""

import numpy as np
import pytest

from empathybench.scorer.signals import (
    LENGTH_BUCKETS,
    SIGNAL_NAMES,
    SIGNAL_NAMES_V1,
    lexicon_counts,
    lexicon_score,
    reply_signals,
)

LOOP = " ".join(["I'm here for you. You are strong and you can get through this."] * 12)
VARIED = (
    "That sounds so lonely, especially on weekends. Is it the quiet at night that gets to you "
    "most? If you like, we could look for one weekly club near you."
)


def _signals(texts: list[str], messages: bool = False) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    embeddings = rng.normal(size=(len(texts), 8)).astype(np.float32)
    stock = rng.normal(size=(3, 8)).astype(np.float32)
    context = embeddings.copy() if messages else None
    rows = reply_signals(texts, embeddings, stock, context)
    assert rows.shape == (len(texts), len(SIGNAL_NAMES))
    return {name: rows[:, i] for i, name in enumerate(SIGNAL_NAMES)}


def test_a_loop_shows_as_repetition_and_a_varied_reply_does_not() -> None:
    signals = _signals([LOOP, VARIED])
    assert signals["repeated_sentence_share"][0] > 0.8
    assert signals["repeated_sentence_share"][1] == 0
    assert signals["distinct_2"][0] < 0.2 < 0.9 < signals["distinct_2"][1]
    assert signals["questions"][1] > 0 == signals["questions"][0]
    assert signals["feeling_questions"][1] > 0


def test_no_replies_give_no_rows() -> None:
    empty = np.zeros((0, 8), dtype=np.float32)
    assert reply_signals([], empty, np.ones((2, 8), np.float32)).shape == (0, len(SIGNAL_NAMES))


def test_length_is_one_hot_in_buckets() -> None:
    texts = [" ".join(["word"] * n) for n in (1, LENGTH_BUCKETS[0] + 1, LENGTH_BUCKETS[-1] + 1)]
    signals = _signals(texts)
    buckets = np.stack([signals[f"length_bucket_{i}"] for i in range(len(LENGTH_BUCKETS) + 1)])
    assert buckets.sum(axis=0).tolist() == [1, 1, 1]
    assert [int(np.argmax(buckets[:, i])) for i in range(3)] == [0, 1, len(LENGTH_BUCKETS)]


def test_message_similarity_is_flagged_when_the_message_is_given() -> None:
    alone, given = _signals([VARIED]), _signals([VARIED], messages=True)
    assert alone["has_message"][0] == 0 and alone["message_similarity"][0] == 0
    assert given["has_message"][0] == 1
    assert given["message_similarity"][0] == pytest.approx(1.0, abs=1e-5)


def test_focus_separates_talking_about_oneself_from_talking_to_the_person() -> None:
    signals = _signals(["I did this too, my ex was awful and I got over it.", VARIED])
    assert signals["first_person_rate"][0] > signals["first_person_rate"][1]
    assert signals["second_person_share"][1] > signals["second_person_share"][0]


def test_lexicon_baseline_counts_feeling_words_second_person_and_questions() -> None:
    assert lexicon_counts("You feel lonely? Your week sounds awful.") == (3, 2, 1)
    assert lexicon_score("ok") == 0.0


def _v2(texts: list[str], messages: list[str] | None = None) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    embeddings = rng.normal(size=(len(texts), 8)).astype(np.float32)
    rows = reply_signals(
        texts, embeddings, rng.normal(size=(3, 8)).astype(np.float32), messages=messages
    )
    return {name: rows[:, i] for i, name in enumerate(SIGNAL_NAMES)}


POST = "my dog died last week and the flat feels so empty. i keep crying at night"


def test_signals_v2_see_interpretation_self_disclosure_and_questions_to_the_person() -> None:
    signals = _v2(
        [
            "That sounds so empty without him, no wonder the nights are hard.",
            "When my dog died I went through the same thing. How are you holding up?",
            "hugs",
            "same here lol, just get over it",
        ]
    )
    assert signals["interpretation_phrases"].tolist()[:2] == [1.0, 0.0]
    assert signals["self_disclosure"][1] > 0 == signals["self_disclosure"][0]
    assert signals["open_questions_to_them"][1] > 0 == signals["open_questions_to_them"][0]
    assert signals["one_liner"].tolist() == [0.0, 0.0, 1.0, 0.0]
    assert signals["stock_phrases"][2] > 0 == signals["stock_phrases"][0]
    assert signals["dismissive_phrases"][3] == 1.0 and signals["dismissive_phrases"][0] == 0
    assert signals["slang_rate"][3] > 0 == signals["slang_rate"][1]
    assert 0 < signals["log_length"][2] < signals["log_length"][0] < 1


def test_overlap_with_the_post_needs_the_message_and_rewards_reflecting_it() -> None:
    reflecting = "Losing your dog and coming home to an empty flat, crying at night makes sense."
    generic = "Sorry to hear that, stay strong."
    alone = _v2([reflecting, generic])
    given = _v2([reflecting, generic], messages=[POST, POST])
    for name in ("post_words_reflected", "post_feelings_reflected", "reply_words_from_post"):
        assert alone[name].tolist() == [0.0, 0.0], name
        assert given[name][0] > given[name][1], name


def test_signals_are_chosen_by_name_in_the_order_asked() -> None:
    rng = np.random.default_rng(0)
    embeddings = rng.normal(size=(1, 8)).astype(np.float32)
    stock = rng.normal(size=(3, 8)).astype(np.float32)
    full = reply_signals([VARIED], embeddings, stock)
    names = ["one_liner", *SIGNAL_NAMES_V1[:3]]
    picked = reply_signals([VARIED], embeddings, stock, names=names)
    assert picked.tolist() == full[:, [SIGNAL_NAMES.index(n) for n in names]].tolist()
    assert SIGNAL_NAMES[: len(SIGNAL_NAMES_V1)] == SIGNAL_NAMES_V1
    with pytest.raises(ValueError, match="unknown reply signals: nope"):
        reply_signals([VARIED], embeddings, stock, names=["nope"])
