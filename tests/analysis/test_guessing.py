"""The guessing reference printed beside the answer dimensions."""

from __future__ import annotations

import pytest

from empathybench.analysis.guessing import guess_rates
from empathybench.analysis.summary import ItemScore
from empathybench.scenarios.suites import load_suite


def _all_scored(ids: list[str]) -> list[ItemScore]:
    values: dict[str, float | None] = {"emotion_recognition": 1.0, "assistance_needed": 0.0}
    return [ItemScore(i, 0, dict(values), frozenset()) for i in ids]


def test_v1_guessing_is_a_third_and_the_suites_yes_share() -> None:
    suite = load_suite("standard-v1")
    scenarios = {s.id: s for s in suite.scenarios}
    rates = guess_rates(scenarios, _all_scored(list(scenarios)))
    assert rates["emotion_recognition"] == pytest.approx(1 / 3)
    assert rates["assistance_needed"] == pytest.approx(0.78)  # 78 of 100 keyed yes


def test_v2_group_items_that_ask_who_count_a_random_pick_among_people_and_nobody() -> None:
    suite = load_suite("standard-v2")
    scenarios = {s.id: s for s in suite.scenarios}
    groups = [s for s in suite.scenarios if s.kind == "group"]
    singles = [s for s in suite.scenarios if s.kind != "group"]
    assert groups and all(len(s.participants) == 3 for s in groups)
    yes = sum(s.expected.help_needed for s in singles)
    expected = (max(yes, len(singles) - yes) + len(groups) / 4) / len(suite.scenarios)
    rates = guess_rates(scenarios, _all_scored(list(scenarios)))
    assert rates["assistance_needed"] == pytest.approx(expected)
    assert expected < 0.6  # v2 balances help: guessing gains far less than on v1


def test_only_scored_items_count_and_unscored_dimensions_have_no_reference() -> None:
    suite = load_suite("standard-v1")
    scenarios = {s.id: s for s in suite.scenarios}
    yes_items = [s.id for s in suite.scenarios if s.expected.help_needed][:5]
    items = _all_scored(yes_items) + [
        ItemScore(s.id, 0, {"emotion_recognition": None}, frozenset())
        for s in suite.scenarios
        if not s.expected.help_needed
    ]
    rates = guess_rates(scenarios, items)
    assert rates == {"emotion_recognition": pytest.approx(1 / 3), "assistance_needed": 1.0}
    assert guess_rates(scenarios, []) == {}
