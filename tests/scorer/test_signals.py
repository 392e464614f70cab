"""Reply signals and the lexicon baseline: plain text features, no encoder needed."""

import numpy as np
import pytest

from empathybench.scorer.signals import (
    LENGTH_BUCKETS,
    SIGNAL_NAMES,
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
