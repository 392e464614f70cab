"""The shared text metrics: words, distinct-n and repeated n-grams, by hand."""

import pytest

from empathybench.analysis.text_metrics import distinct_n, repeated_ngram_share, words


def test_words() -> None:
    assert words("I'm here, FOR you!  2 times") == ["i'm", "here", "for", "you", "2", "times"]
    assert words(" ... ?! ") == []


def test_words_in_any_script() -> None:
    """Letters outside ASCII are words: accented Latin, Cyrillic, Greek, Arabic, Hangul as
    space-separated words; Chinese and Japanese characters one word each (no spaces)."""
    assert words("Très désolée, ça va?") == ["très", "désolée", "ça", "va"]
    assert words("Мне очень жаль.") == ["мне", "очень", "жаль"]
    assert words("Λυπάμαι πολύ") == ["λυπάμαι", "πολύ"]
    assert words("أنا آسف جدا") == ["أنا", "آسف", "جدا"]
    assert words("정말 미안해요") == ["정말", "미안해요"]
    assert words("我很抱歉。") == ["我", "很", "抱", "歉"]
    assert words("大丈夫ですか") == ["大", "丈", "夫", "で", "す", "か"]
    assert words("snake_case café") == ["snake", "case", "café"]
    assert words("I’m") == ["i", "m"]  # unchanged: only the ASCII apostrophe joins


def test_distinct_n_pools_lists_without_crossing_them() -> None:
    replies = [["a", "b", "a"], ["a", "b"]]
    assert distinct_n(replies, 1) == pytest.approx(2 / 5)
    assert distinct_n(replies, 2) == pytest.approx(2 / 3)  # ab, ba, ab
    assert distinct_n([["a", "b", "a", "b"]], 2) == pytest.approx(2 / 3)
    assert distinct_n([["a"]], 2) is None
    assert distinct_n([], 1) is None


def test_repeated_ngram_share() -> None:
    assert repeated_ngram_share(["i", "am", "here", "for", "you"]) == 0.0
    looping = ["i", "am", "here", "i", "am", "here", "i", "am", "here"]  # 7 trigrams, 3 distinct
    assert repeated_ngram_share(looping) == pytest.approx(4 / 7)
    assert repeated_ngram_share([1, 2, 3, 1, 2, 3, 1, 2, 3]) == pytest.approx(4 / 7)
    assert repeated_ngram_share(["too", "short"]) == 0.0
    assert repeated_ngram_share([7, 7, 7, 7], 2) == pytest.approx(2 / 3)
