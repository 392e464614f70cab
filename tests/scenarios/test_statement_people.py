"""Template v4: belief, crisis and role-play items no longer tell a reader of the scene
whom they ask about (in v3 most such episodes had one person who could voice them)."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from empathybench.scenarios.episode_models import Episode
from empathybench.scenarios.episode_space import build_episode_space
from empathybench.scenarios.space import KindSpace

STATEMENT_KINDS = ("harmful_belief", "crisis", "harmful_belief_roleplay")


def _people_per_episode(space: KindSpace) -> dict[str, Counter[str]]:
    """Per episode: how many frames (so how much of the space) ask about each person."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for frame in space.frames:
        episode = frame.parts["episode"]
        assert isinstance(episode, Episode)
        counts[episode.id][str(frame.parts["focus"])] += 1
    return counts


def _scene_key_share(space: KindSpace) -> float:
    """The mean over scenes of the most common keyed emotion's share of that scene's space:
    what a reader who knows only the scene gets right."""
    keys: dict[str, Counter[str]] = defaultdict(Counter)
    for frame in space.frames:
        episode = frame.parts["episode"]
        assert isinstance(episode, Episode)
        keys[episode.scene][episode.roles[str(frame.parts["focus"])].emotion] += 1
    shares = [max(c.values()) / sum(c.values()) for c in keys.values()]
    return sum(shares) / len(shares)


@pytest.mark.parametrize("kind", STATEMENT_KINDS)
def test_v4_asks_about_two_or_more_people_equally_in_each_episode(kind: str) -> None:
    per_episode = _people_per_episode(build_episode_space("v4")[kind])  # type: ignore[index]
    assert len(per_episode) >= 6, f"too few {kind} episodes for varied items"
    for episode, people in per_episode.items():
        assert len(people) >= 2, (kind, episode, people)
        assert len(set(people.values())) == 1, (kind, episode, people)


@pytest.mark.parametrize("kind", ("harmful_belief", "crisis"))
def test_the_scene_gives_away_the_key_in_v3_and_far_less_in_v4(kind: str) -> None:
    """The contrast shows the measure can fail: v3's scenes nearly give the key."""
    v3 = _scene_key_share(build_episode_space("v3")[kind])  # type: ignore[index]
    v4 = _scene_key_share(build_episode_space("v4")[kind])  # type: ignore[index]
    assert v3 > 0.8
    assert v4 <= 0.6, v4


def test_v4_beliefs_come_from_the_categories_their_speaker_lists() -> None:
    """Every v4 belief item's belief is of a category its speaker's situation grows into
    (an independent reader found a body-image belief tacked onto a pharmacy queue)."""
    space = build_episode_space("v4")["harmful_belief"]
    checked = 0
    for frame in space.frames:
        episode = frame.parts["episode"]
        assert isinstance(episode, Episode)
        role = episode.roles[str(frame.parts["focus"])]
        assert role.belief_categories, (episode.id, frame.parts["focus"])
        entries = frame.parts["belief_entries"]
        assert isinstance(entries, tuple) and entries
        for entry in entries:
            assert entry.category in role.belief_categories, (episode.id, entry.id)
            checked += 1
    assert checked >= 40


def test_the_checker_asks_v4_belief_speakers_for_their_categories() -> None:
    from empathybench.scenarios.episode_checks import check_episode_templates
    from empathybench.scenarios.episode_templates import load_episode_templates

    templates = load_episode_templates("v4")
    assert check_episode_templates(templates) == []
    episode = next(e for e in templates.episodes if e.id == "wk_library_fine_unpaid")
    bare = episode.model_copy(
        update={
            "roles": {
                **episode.roles,
                "a": episode.roles["a"].model_copy(update={"belief_categories": None}),
            }
        }
    )
    broken = templates.model_copy(
        update={"episodes": [bare if e is episode else e for e in templates.episodes]}
    )
    problems = check_episode_templates(broken)
    assert any("wk_library_fine_unpaid role a" in p and "belief_categories" in p for p in problems)


@pytest.mark.parametrize("kind", ("harmful_belief", "crisis"))
def test_v4_draws_each_fitting_statement_equally_often(kind: str) -> None:
    """The statement digit's radix is a multiple of every person's count of fitting
    statements, so over the radix each statement is drawn equally often."""
    from empathybench.scenarios.episode_space import frame_statement

    space = build_episode_space("v4")[kind]  # type: ignore[index]
    radix = dict(space.frames[0].axes)["statement_entry"]
    key = "belief" if kind == "harmful_belief" else "crisis"
    for frame in space.frames:
        entries = frame.parts[f"{key}_entries"]
        assert isinstance(entries, tuple) and radix % len(entries) == 0
        drawn = Counter(
            frame_statement(frame, {"statement_entry": digit}, key).id  # type: ignore[union-attr]
            for digit in range(radix)
        )
        assert set(drawn) == {entry.id for entry in entries}
        assert len(set(drawn.values())) == 1, drawn


def test_a_v4_story_turn_from_an_episode_with_one_possible_teller_is_reported() -> None:
    """v4 draws role-play only from episodes where two or more people may take a story turn:
    a hand-made item from an episode where one person alone could is reported."""
    from empathybench.records import Scenario
    from empathybench.scenarios.episode_space import story_eligible, story_people
    from empathybench.scenarios.episode_templates import load_episode_templates
    from empathybench.scenarios.generator import generate_records
    from empathybench.scenarios.validation import check_scenario

    templates = load_episode_templates("v4")
    record = next(
        r
        for r in generate_records(400, 5, template_version="v4")
        if r["kind"] == "harmful_belief_roleplay"
    )
    assert check_scenario(Scenario.model_validate(record)) == []
    episode, teller = next(
        (episode, role)
        for episode in templates.episodes
        if not story_people(templates, episode)
        for role in ("a", "b", "c")
        if story_eligible(templates, episode, role)
    )
    doctored = {**record, "provenance": {**record["provenance"]}}
    doctored["provenance"]["templates"] = {
        **record["provenance"]["templates"],
        "episode": episode.id,
        "focus": teller,
    }
    problems = check_scenario(Scenario.model_validate(doctored))
    assert any(f"{teller} may not take a story turn" in p for p in problems), problems


def test_distinct_prompts_counts_a_repeated_story_frame_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """v4 repeats a person's role-play frames so each person is asked about equally often;
    the repeats are the same prompts, so the space's distinct count must not grow with them."""
    from dataclasses import replace

    from empathybench.scenarios import episode_space

    spaces = build_episode_space("v4")
    roleplay = spaces["harmful_belief_roleplay"]
    assert len({id(frame) for frame in roleplay.frames}) < len(roleplay.frames)  # repeats
    counted = episode_space.distinct_prompts("v4")["harmful_belief_roleplay"]
    repeated = replace(roleplay, frames=roleplay.frames + roleplay.frames[:3])
    monkeypatch.setattr(
        episode_space,
        "build_episode_space",
        lambda version: {**spaces, "harmful_belief_roleplay": repeated},
    )
    assert episode_space.distinct_prompts("v4")["harmful_belief_roleplay"] == counted
