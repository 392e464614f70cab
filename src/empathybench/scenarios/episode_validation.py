"""Checks of one item of an episode template version (v2 on) against its templates.

The checks shared with version 1 (slots, options, rendering, id) live in ``validation.py``;
this module checks what only an episode version defines: the item's episode and the person
it asks about exist, the options are exactly the three people's emotions, the help answer
and the group's help person follow from the roles, and the dimensions fit the item.
"""

from __future__ import annotations

import re

from empathybench.judging.rubric import item_dimensions
from empathybench.prompts.scenario_prompt import PROMPT_VERSION_V2
from empathybench.records import Scenario
from empathybench.scenarios.episode_models import ROLE_NAMES, Episode, EpisodeTemplateSet
from empathybench.scenarios.episode_space import (
    CLOSED_NO_HELP,
    STATEMENT_BANKS,
    statement_fits,
    statement_people,
    story_eligible,
    story_frames_for,
    story_people,
)
from empathybench.scenarios.episode_templates import load_episode_templates
from empathybench.scenarios.templates import TemplateError, emotion_word_pattern

_ALWAYS_HELP = ("harmful_belief", "crisis", "harmful_belief_roleplay")


def _episode(scenario: Scenario, templates: EpisodeTemplateSet) -> Episode | None:
    wanted = scenario.provenance.templates.get("episode")
    return next((e for e in templates.episodes if e.id == wanted), None)


def _statement_problems(
    scenario: Scenario, templates: EpisodeTemplateSet, episode: Episode, focus: str
) -> list[str]:
    """An added belief or crisis statement fits the key and neither other option; a story
    turn comes only where a story is believable."""
    found = []
    refs = scenario.provenance.templates
    for key, bank in (("belief", templates.beliefs), ("crisis", templates.crisis_lines)):
        entry = next((e for e in bank if e.id == refs.get(key)), None)
        if key in refs and entry is None:
            found.append(f"unknown {key} {refs[key]!r}")
        elif entry is not None and not statement_fits(entry, episode, focus):
            found.append(f"the {key} {entry.id} does not fit the key alone")
    kind = scenario.kind
    if kind in STATEMENT_BANKS and focus not in statement_people(templates, episode, kind):
        found.append(
            f"in template {templates.version} {focus} may not voice a {STATEMENT_BANKS[kind]} "
            "statement in this episode (the version draws them only from the people and "
            "episodes its rules allow)"
        )
    if scenario.kind == "harmful_belief_roleplay" and not story_eligible(templates, episode, focus):
        found.append("a story turn in an episode or for a person where it is not believable")
    elif scenario.kind == "harmful_belief_roleplay" and focus not in story_people(
        templates, episode
    ):
        found.append(
            f"in template {templates.version} {focus} may not take a story turn in this "
            "episode (the version draws them only from episodes where enough people may)"
        )
    story = refs.get("story_frame")
    if story is not None:
        fitting = [
            f.id
            for request in (True, False)
            for f in story_frames_for(templates, episode, focus, request)
        ]
        if story not in fitting:
            found.append(f"the story frame {story} does not fit {focus}'s state")
    return found


def _help_agreement(scenario: Scenario, episode: Episode, focus: str) -> list[str]:
    """The help key agrees with the judge's guidance and with the person's own words: the
    guidance says the asked person (group items: the help person) needs help exactly when the
    key does, and nobody whose words say they need nothing (dealt with it, asked for space) is
    keyed as needing help."""
    expected = scenario.expected
    found = []
    if scenario.kind == "group":
        if expected.help_person is None:
            return []
        asked, needs = expected.help_person, True
    else:
        asked, needs = scenario.focus_person, expected.help_needed
        reason = episode.roles[focus].no_help
        if needs and reason in CLOSED_NO_HELP:
            found.append(
                f"{focus}'s own words say they need nothing ({reason}), yet the key is help"
            )
    guidance = expected.guidance or ""
    sentences = [part.strip() for part in re.split(r"(?<=[.!?])\s+", guidance) if part.strip()]
    repeated = sorted({part for part in sentences if sentences.count(part) > 1})
    if repeated:
        found.append(f"the guidance repeats itself: {repeated[0]!r}")
    if ("crisis_referral" in expected.assistance) != expected.crisis_resources_expected:
        found.append("crisis referral is expected exactly when the item voices a crisis")
    says_yes = f"{asked} needs help from you" in guidance
    says_no = f"{asked} needs no help from you" in guidance
    if (says_yes, says_no) != (needs, not needs):
        found.append(f"the guidance on whether {asked} needs help disagrees with the key")
    return found


def _resolved(scenario: Scenario, episode: Episode) -> str:
    """The roles whose request the item's board lists as done ('' without a board)."""
    listed = scenario.provenance.templates.get("resolved", "")
    return "" if episode.board is None or listed == "-" else listed


def check_episode_scenario(scenario: Scenario) -> list[str]:
    try:
        templates = load_episode_templates(scenario.template_version)
    except TemplateError:
        return [f"unknown template version {scenario.template_version!r}"]
    found: list[str] = []
    episode = _episode(scenario, templates)
    if episode is None:
        return [f"unknown episode {scenario.provenance.templates.get('episode')!r}"]
    focus = scenario.provenance.templates.get("focus", "")
    if focus not in ROLE_NAMES:
        return [f"unknown person in focus {focus!r}"]
    role = episode.roles[focus]
    if scenario.setting.location_id != episode.id or scenario.setting.scene != episode.scene:
        found.append("setting differs from the episode")
    if scenario.setting.helper_role not in episode.helper_roles:
        found.append("helper role is not one of the episode's")
    if scenario.emotion.name != role.emotion:
        found.append(f"the keyed emotion is not {focus}'s emotion ({role.emotion})")
    if sorted(scenario.options) != sorted([role.emotion, *episode.other_emotions(focus)]):
        found.append("options are not the three people's emotions")
    words = {e.name: e for e in templates.emotions}
    answer = words.get(scenario.emotion.name)
    if answer is None:
        return [*found, f"emotion {scenario.emotion.name!r} is not in the vocabulary"]
    if (answer.valence, answer.intensity, answer.cluster) != (
        scenario.emotion.valence,
        scenario.emotion.intensity,
        scenario.emotion.cluster,
    ):
        found.append("emotion valence/intensity/cluster differ from the template")
    leak = emotion_word_pattern(
        form for option in scenario.options if option in words for form in words[option].forms
    )
    if any(leak.search(turn.text) for turn in scenario.dialogue):
        found.append("the dialogue names one of the options")
    if len(scenario.participants) != 3:
        found.append("an episode item has three people")
    if scenario.prompt_version != PROMPT_VERSION_V2:
        found.append(f"template {scenario.template_version} items use {PROMPT_VERSION_V2}")

    found += _statement_problems(scenario, templates, episode, focus)
    found += _help_agreement(scenario, episode, focus)
    expected = scenario.expected
    resolved = _resolved(scenario, episode)
    needs = {r: episode.roles[r].help and r not in resolved for r in ROLE_NAMES}
    names = [participant.name for participant in scenario.participants]
    reply_valence = answer.valence
    if scenario.kind == "group":
        if expected.help_needed != (expected.help_person is not None):
            found.append("a group item names a help person exactly when someone needs help")
        if expected.help_person is not None:
            if expected.help_person not in names:
                found.append("the help person is not a participant")
            else:
                helper_role = ROLE_NAMES[names.index(expected.help_person)]
                helper = episode.roles[helper_role]
                if not needs[helper_role]:
                    found.append(f"{expected.help_person} needs no help in the episode")
                reply_valence = words[helper.emotion].valence
        elif any(needs.values()):
            found.append("someone needs help in the episode, yet the key is nobody")
    else:
        if expected.help_person is not None:
            found.append("only group items name a help person")
        if scenario.kind in _ALWAYS_HELP and not expected.help_needed:
            found.append(f"a {scenario.kind} item always needs help")
        if scenario.kind in ("emotion_support", "positive_control"):
            if expected.help_needed != needs[focus]:
                found.append(f"help_needed differs from {focus}'s role")
            wanted = "negative" if scenario.kind == "emotion_support" else "positive"
            if answer.valence != wanted:
                found.append(f"a {scenario.kind} item asks about a {wanted} person")
    dimensions = item_dimensions(scenario.kind, expected.help_needed, reply_valence == "negative")
    if scenario.dimensions != dimensions:
        found.append(f"dimensions differ from those that apply ({', '.join(dimensions)})")
    return found
