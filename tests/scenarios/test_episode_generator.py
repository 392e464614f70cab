"""Episode generation (the newest template version; the frozen suites pin the older ones):
valid, deterministic, balanced, and built so that surface fragments never point at one key."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from functools import cache
from typing import Any

import pytest

from empathybench.jsonl import canonical_json_data
from empathybench.records import Scenario
from empathybench.scenarios.episode_models import ROLE_NAMES, Episode
from empathybench.scenarios.episode_rendering import build_episode_record
from empathybench.scenarios.episode_space import build_episode_space, distinct_prompts
from empathybench.scenarios.episode_templates import load_episode_templates
from empathybench.scenarios.episode_versions import GENERATION_RULES, NEWEST_EPISODE_VERSION
from empathybench.scenarios.generator import EPISODE_MIX, SpaceTooSmallError, generate_records
from empathybench.scenarios.validation import check_scenario

VERSION = NEWEST_EPISODE_VERSION


@cache
def _items(n: int = 1000, seed: int = 31) -> tuple[dict[str, Any], ...]:
    return tuple(generate_records(n, seed, template_version=VERSION))


def _masked_lines(record: dict[str, Any]) -> list[str]:
    names = [participant["name"] for participant in record["participants"]]
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    return [pattern.sub("X", turn["text"]) for turn in record["dialogue"]]


def test_items_validate_and_regenerate_identically() -> None:
    items = _items()
    for record in items[:400]:
        assert check_scenario(Scenario.model_validate(record)) == [], record["id"]
    again = list(generate_records(50, 31, template_version=VERSION))
    assert [canonical_json_data(r) for r in again] == [
        canonical_json_data(r) for r in generate_records(50, 31, template_version=VERSION)
    ]
    assert len({record["id"] for record in items}) == len(items)


def test_help_is_balanced_overall_and_within_balanced_kinds() -> None:
    """The audit's help limit is the majority + 5 points with a majority of at most 60%: the
    suite stays at or under 60% yes, and the two balanced kinds stay close to one half and
    to each other (a kind with its own rate would hand a surface reader its difference)."""
    aim = GENERATION_RULES[VERSION].help_yes_share
    for seed in (31, 2025, 77):
        items = _items(seed=seed)
        overall = sum(r["expected"]["help_needed"] for r in items) / len(items)
        assert 0.50 <= overall <= 0.60, (seed, overall)
        for kind in ("emotion_support", "positive_control"):
            kind_items = [r for r in items if r["kind"] == kind]
            share = sum(r["expected"]["help_needed"] for r in kind_items) / len(kind_items)
            assert aim - 0.03 <= share <= aim + 0.03, (seed, kind, share)


def test_group_items_name_who_needs_help_or_nobody() -> None:
    groups = [r for r in _items() if r["kind"] == "group"]
    nobody = [r for r in groups if not r["expected"]["help_needed"]]
    named = [r for r in groups if r["expected"]["help_needed"]]
    assert nobody and named
    assert all("help_person" not in r["expected"] for r in nobody)
    for record in named:
        names = [p["name"] for p in record["participants"]]
        assert record["expected"]["help_person"] in names
    # The emotion question is not a pointer to who needs help.
    same = sum(r["expected"]["help_person"] == r["focus_person"] for r in named)
    assert same / len(named) < 0.6
    speakers = Counter(
        sum(turn["speaker"] != "narration" for turn in r["dialogue"]) for r in groups
    )
    assert min(speakers) >= 2


def test_every_line_is_shown_with_several_keys() -> None:
    keys: dict[str, set[str]] = defaultdict(set)
    counts: Counter[str] = Counter()
    for record in _items():
        for line in _masked_lines(record):
            keys[line].add(record["emotion"]["name"])
            counts[line] += 1
    common = [line for line, count in counts.items() if count >= 5]
    assert common
    single = [line for line in common if len(keys[line]) < 2]
    assert len(single) / len(common) < 0.05, single[:5]


def test_no_line_in_more_than_one_percent_of_items() -> None:
    items = _items()
    templates = load_episode_templates(VERSION)
    # The line that introduces the notes (v5) is part of the frame, like the questions: the
    # same few for every item whatever its key, so it is not counted as a line of content.
    frame = {h for hs in templates.links.headers.values() for h in hs} if templates.links else set()
    counts: Counter[str] = Counter()
    for record in items:
        for turn in record["dialogue"]:
            if turn["text"] not in frame:
                counts[turn["text"]] += 1
    line, top = counts.most_common(1)[0]
    # Goal: 1% (10 in 1,000). v3 (110 episodes, up to five phrasings a person) measured
    # 0.9-1.1% on seeds 31, 77, 2025, 5, 9 and 11 (v2: 2.2-2.6%); see docs/templates-v2.md.
    assert top <= len(items) * 15 // 1000, (line, top)


def test_asking_about_another_person_changes_the_key() -> None:
    templates = load_episode_templates(VERSION)
    space = build_episode_space(VERSION)["group"]  # every person of a group episode is asked about
    frames: dict[str, dict[str, Any]] = defaultdict(dict)
    for frame in space.frames:
        episode = frame.parts["episode"]
        assert isinstance(episode, Episode)
        frames[episode.id][str(frame.parts["focus"])] = frame
    digits = {name: 1 for name, _ in space.frames[0].axes}
    checked = 0
    for by_role in frames.values():
        records = [
            build_episode_record("group", by_role[role], digits, 0, templates)
            for role in ROLE_NAMES
        ]
        # The same people say the same words; only the person asked about differs ...
        assert len({tuple(map(str, r["dialogue"])) for r in records}) == 1
        assert len({frozenset(r["options"]) for r in records}) == 1
        # ... and each of the three is keyed to their own emotion.
        assert len({r["emotion"]["name"] for r in records}) == 3
        assert len({r["focus_person"] for r in records}) == 3
        checked += 1
    assert checked >= 8  # group items come from the board episodes


NOTE = re.compile(r'^\d{3}: "')


def test_space_is_large_and_channels_hide_what_cannot_be_perceived() -> None:
    assert min(distinct_prompts(VERSION).values()) >= 10**6
    templates = load_episode_templates(VERSION)
    episodes = {e.id: e for e in templates.episodes}
    links = templates.links
    headers = {h for hs in links.headers.values() for h in hs} if links else set()
    for record in _items()[:300]:
        episode = episodes[record["provenance"]["templates"]["episode"]]
        # A board's update (a bot's message, an announcement) and the notes (v5) are
        # perceived on every channel; visible behaviour (cues) only in person or on camera,
        # and never with linked notes (a cue names a person and shows their feeling).
        end = -1 if episode.board else None
        narration = [t["text"] for t in record["dialogue"][1:end] if t["speaker"] == "narration"]
        cues = [text for text in narration if text not in headers and not NOTE.match(text)]
        if episode.channel in ("voice", "text") or links is not None:
            assert cues == [], record["id"]


def _numbers(text: str) -> set[str]:
    return set(re.findall(r"\b\d{3}\b", text))


def test_the_board_decides_who_needs_help() -> None:
    """On a board episode each person says their request number, and the last narration
    lists three numbers that are done: a person needs help exactly when theirs is missing."""
    templates = load_episode_templates(VERSION)
    boards = {episode.id for episode in templates.episodes if episode.board}
    checked = Counter()
    for record in _items():
        if record["provenance"]["templates"]["episode"] not in boards:
            continue
        listed = _numbers(record["dialogue"][-1]["text"])
        assert record["dialogue"][-1]["speaker"] == "narration" and len(listed) == 3
        said = {
            turn["speaker"]: _numbers(turn["text"])
            for turn in record["dialogue"]
            if turn["speaker"] != "narration"
        }
        assert all(len(numbers) == 1 for numbers in said.values()), said
        waiting = sorted(name for name, numbers in said.items() if not numbers & listed)
        if record["kind"] == "group":
            assert len(waiting) <= 1
            assert record["expected"].get("help_person") == (waiting[0] if waiting else None)
        elif record["kind"] in ("harmful_belief", "crisis", "harmful_belief_roleplay"):
            # A belief, crisis statement or story turn needs a reply whatever the board says.
            assert record["expected"]["help_needed"] is True
        else:
            focus_waits = record["focus_person"] in waiting
            assert record["expected"]["help_needed"] == focus_waits
        checked[record["kind"], record["expected"]["help_needed"]] += 1
    assert checked["group", True] and checked["group", False], checked


def test_group_keys_are_each_person_or_nobody_equally() -> None:
    groups = [r for r in _items() if r["kind"] == "group"]
    positions = Counter(
        [p["name"] for p in r["participants"]].index(r["expected"]["help_person"])
        if r["expected"].get("help_person")
        else "nobody"
        for r in groups
    )
    assert set(positions) == {0, 1, 2, "nobody"}
    assert max(positions.values()) <= 0.35 * len(groups), positions


def test_added_statements_fit_the_key_alone() -> None:
    templates = load_episode_templates(VERSION)
    banks = {"belief": templates.beliefs, "crisis": templates.crisis_lines}
    seen = 0
    for record in _items():
        refs = record["provenance"]["templates"]
        for key, bank in banks.items():
            if key in refs:
                entry = next(e for e in bank if e.id == refs[key])
                others = set(record["options"]) - {record["emotion"]["name"]}
                assert record["emotion"]["name"] in entry.fits
                assert not others & set(entry.fits), (entry.id, record["options"])
                seen += 1
    assert seen >= 50


def test_a_statement_that_fits_another_option_is_reported() -> None:
    templates = load_episode_templates(VERSION)
    record, wrong = next(
        (r, b)
        for r in _items()
        if "belief" in r["provenance"]["templates"]
        for b in templates.beliefs
        if set(r["options"]) - {r["emotion"]["name"]} & set(b.fits)
    )
    doctored = {**record, "provenance": {**record["provenance"]}}
    doctored["provenance"]["templates"] = {**record["provenance"]["templates"], "belief": wrong.id}
    problems = check_scenario(Scenario.model_validate(doctored))
    assert any("does not fit the key alone" in p for p in problems), problems


def test_a_statement_from_someone_the_version_does_not_let_voice_one_is_reported() -> None:
    """v4 draws beliefs only from people its rules allow (two or more per episode): a file
    whose belief item asks about anyone else is reported."""
    templates = load_episode_templates("v4")
    record = next(
        r for r in generate_records(400, 5, template_version="v4") if r["kind"] == "harmful_belief"
    )
    assert check_scenario(Scenario.model_validate(record)) == []
    episode = next(
        e for e in templates.episodes if e.id == record["provenance"]["templates"]["episode"]
    )
    other = next(
        role
        for role in ROLE_NAMES
        if role != record["provenance"]["templates"]["focus"] and not episode.roles[role].belief_ok
    )
    doctored = {**record, "provenance": {**record["provenance"]}}
    doctored["provenance"]["templates"] = {**record["provenance"]["templates"], "focus": other}
    problems = check_scenario(Scenario.model_validate(doctored))
    assert any(f"{other} may not voice a belief" in p for p in problems), problems


def test_story_turns_only_where_a_story_is_believable() -> None:
    templates = load_episode_templates(VERSION)
    episodes = {episode.id: episode for episode in templates.episodes}
    intensity = {emotion.name: emotion.intensity for emotion in templates.emotions}
    stories = [r for r in _items() if r["kind"] == "harmful_belief_roleplay"]
    assert stories
    for record in stories:
        assert episodes[record["provenance"]["templates"]["episode"]].story_ok
        assert intensity[record["emotion"]["name"]] <= 2
        assert record["expected"]["help_needed"]
    # No story turn goes with a safety matter (a medicine mix-up), and several roles carry them.
    roles = {
        (r["provenance"]["templates"]["episode"], r["provenance"]["templates"]["focus"])
        for r in stories
    }
    assert not any(episodes[episode].roles[focus].safety for episode, focus in roles)
    assert len({(episodes[e].family, focus) for e, focus in roles}) >= 5


def test_guidance_says_each_thing_once_and_crisis_help_only_with_a_crisis() -> None:
    records = _items()
    for record in records:
        assert check_scenario(Scenario.model_validate(record)) == [], record["id"]
    group = next(
        r
        for r in records
        if r["kind"] == "group"
        and f"Who needs help: {r['focus_person']}" in r["expected"]["guidance"]
    )
    expected = group["expected"]
    repeated = {**expected, "guidance": expected["guidance"] + " " + expected["guidance"]}
    crisis = {**expected, "assistance": [*expected["assistance"], "crisis_referral"]}
    for doctored, problem in ((repeated, "repeats itself"), (crisis, "crisis referral")):
        found = check_scenario(Scenario.model_validate({**group, "expected": doctored}))
        assert any(problem in p for p in found), found


def test_help_key_agrees_with_guidance_and_words() -> None:
    """An added belief, crisis statement or story request makes a person need help whose
    own matter alone would not: never a person whose own words ask for space or say it is
    dealt with ('I'm logging off for tonight'), and the judge's guidance then says they need
    help instead of keeping the role's "needs no help" text."""
    episodes = {episode.id: episode for episode in load_episode_templates(VERSION).episodes}
    overridden = 0
    for seed in (31, 2025):
        for record in _items(seed=seed):
            if record["kind"] == "group":
                continue
            refs = record["provenance"]["templates"]
            role = episodes[refs["episode"]].roles[refs["focus"]]
            name, help_needed = record["focus_person"], record["expected"]["help_needed"]
            guidance = record["expected"]["guidance"]
            assert (f"{name} needs help from you" in guidance) == help_needed, record["id"]
            assert (f"{name} needs no help from you" in guidance) != help_needed, record["id"]
            if help_needed:
                assert role.no_help not in ("handled", "wants_space"), record["id"]
                overridden += not role.help
            assert len(set(record["expected"]["assistance"])) == len(
                record["expected"]["assistance"]
            )
    assert overridden >= 5  # venting or content people who voice a belief or ask for a story


def test_stale_help_guidance_is_reported() -> None:
    record = next(
        r
        for r in _items()
        if r["kind"] == "harmful_belief" and "needs help from you" in r["expected"]["guidance"]
    )
    stale = record["expected"]["guidance"].replace(
        "needs help from you", "needs no help from you (has asked for space)", 1
    )
    doctored = {**record, "expected": {**record["expected"], "guidance": stale}}
    problems = check_scenario(Scenario.model_validate(doctored))
    assert any("guidance on whether" in p for p in problems), problems


def test_story_frames_fit_the_person_state() -> None:
    templates = load_episode_templates(VERSION)
    frames = {frame.id: frame for frame in templates.story_frames}
    seen: Counter[str] = Counter()
    for seed in (31, 2025):
        for record in _items(seed=seed):
            story = record["provenance"]["templates"].get("story_frame")
            if story is None:
                continue
            valence = record["emotion"]["valence"]
            assert valence in frames[story].valence, (record["id"], story, valence)
            seen[valence] += 1
    assert seen["positive"] and seen["negative"], seen


def _scenes(records: list[dict[str, Any]]) -> tuple[Counter[tuple[str, str]], Counter[str]]:
    templates = [r["provenance"]["templates"] for r in records]
    people = Counter((t["episode"], t["focus"]) for t in templates)
    return people, Counter(t["family"] for t in templates)


def test_a_spread_draw_asks_about_each_person_once_and_caps_each_scene_family() -> None:
    free = list(generate_records(100, 2718, dict(EPISODE_MIX), VERSION))
    people, _ = _scenes(free)
    assert max(people.values()) > 1  # the free walk repeats a person: what the spread is for
    spread = list(generate_records(100, 2718, dict(EPISODE_MIX), VERSION, per_family=4))
    people, families = _scenes(spread)
    assert max(people.values()) == 1 and max(families.values()) <= 4
    assert Counter(r["kind"] for r in spread) == Counter(r["kind"] for r in free)
    assert Counter(r["correct_letter"] for r in spread) == Counter(
        r["correct_letter"] for r in free
    )


def test_a_spread_the_templates_cannot_meet_is_one_clear_error() -> None:
    with pytest.raises(SpaceTooSmallError, match="ran out of new scenes"):
        list(generate_records(60, 1, {"group": 1}, VERSION, per_family=1))
