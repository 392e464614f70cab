"""Secondary metrics: VADER sentiment, Empath shares, length and formulaicity, offline."""

import socket
from pathlib import Path

import pytest

from empathybench.analysis import secondary_metrics as metrics
from empathybench.records import Suite
from empathybench.runtime.run_data import load_run_data
from tests.fakes.mock_runs import answering, make_run


def test_openings_by_hand() -> None:
    assert metrics.openings([["x", "y", "z", "w"], ["x", "y", "z"], ["q"], []]) == {
        "x y z": 2,
        "q": 1,
    }


def test_sentiment_and_empath_use_the_bundled_lexicons_without_network(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("network use in a test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    metrics._vader.cache_clear()
    metrics._empath.cache_clear()
    assert metrics.sentiment("What wonderful news, I am so happy for you!") > 0.5
    assert metrics.sentiment("That is terrible, awful and hopeless.") < -0.5
    shares = metrics.empath_shares(metrics.words("Let me help you and support you."))
    assert shares["help"] == pytest.approx(2 / 7)  # "help" and "support" are in the category
    assert metrics.empath_shares([]) == dict.fromkeys(metrics.EMPATH_CATEGORIES, 0.0)


def test_metrics_of_a_run_use_the_reply_and_see_formulaic_answers(
    small_suite: Suite, small_suite_path: Path, tmp_path: Path
) -> None:
    reply = "Congratulations, that is wonderful news for you."
    model = answering(small_suite, "mock/parrot", right_ids=set(), reply=reply)
    run_dir = make_run(tmp_path / "r", small_suite, small_suite_path, "mock/parrot", model=model)
    result = metrics.secondary_metrics(load_run_data(run_dir))
    assert result.replies == 30 and result.model == "mock/parrot"
    assert result.words.mean == 7.0 and result.median_words == 7.0  # the REPLY only
    assert result.formulaicity.repeated_opening_share == 1.0
    assert result.formulaicity.distinct_1 == pytest.approx(7 / 210)
    assert result.formulaicity.top_openings[0].replies == 30
    expected = metrics.sentiment(reply)
    assert result.sentiment.compound.mean == pytest.approx(expected)
    assert result.sentiment.positive_share == 1.0 and result.sentiment.negative_share == 0.0
    assert result.empath["celebration"].mean is not None
