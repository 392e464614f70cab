"""Checks of one item of a stakes template version (v6 on), read back from its scene.

The checks shared with other versions (slots, options, rendering, id) live in
``validation.py``. This module reads the item as a careful reader would, from the prompt's
own text: which number each person says, which sentence of their note goes with which of
the family's values, which place they would need help at, and what the announcement gives
their number. From that it works out every person's feeling and need and checks the keys,
the options, the group's help person and the dimensions against it.
"""

from __future__ import annotations

import re

from empathybench.judging.rubric import item_dimensions
from empathybench.prompts.scenario_prompt import PROMPT_VERSION_V2
from empathybench.records import Scenario
from empathybench.scenarios.stakes_models import (
    ATTITUDES,
    STAKES_EMOTIONS,
    STAKES_OPTIONS,
    StakesFamily,
)
from empathybench.scenarios.stakes_templates import load_stakes_templates
from empathybench.scenarios.templates import TemplateError

_NOTE = re.compile(r'^(\d{3}): "(.*)"$')
_NUMBER = re.compile(r"\b(\d{3})\b")
_ALWAYS_HELP = ("harmful_belief", "crisis", "harmful_belief_roleplay")


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _read_person(
    family: StakesFamily, free: list[str], note: str, board: str, number: str
) -> tuple[str, bool, int]:
    """(emotion, needs help, the value given) of the person whose note and number these are;
    raises ValueError where the scene does not say it exactly once, or where the note does not
    name the other place as one they need nothing at."""
    attitude_of: dict[int, str] = {}
    for index, value in enumerate(family.values):
        found = [a for a in ATTITUDES if any(_capital(t) in note for t in value.phrasings(a))]
        if len(found) != 1:
            raise ValueError(f"the note of {number} says {len(found)} things of {value.board}")
        attitude_of[index] = found[0]
    needs = [
        i
        for i, place in enumerate(family.places)
        if any(_capital(t.replace("{p}", place.say)) in note for t in family.need)
    ]
    if len(needs) != 1:
        raise ValueError(f"the note of {number} names {len(needs)} places it needs help at")
    other = family.places[1 - needs[0]].say
    if not any(_capital(t.replace("{q}", other)) in note for t in free):
        raise ValueError(f"the note of {number} does not say it needs nothing at {other}")
    given = [
        (v, p)
        for v, value in enumerate(family.values)
        for p, place in enumerate(family.places)
        if family.entry.replace("{ref}", number)
        .replace("{v}", value.board)
        .replace("{p}", place.board)
        in board
    ]
    if len(given) != 1:
        raise ValueError(f"the announcement gives {number} {len(given)} outcomes")
    given_value, given_place = given[0]
    attitude = attitude_of[given_value]
    return STAKES_EMOTIONS[attitude], given_place == needs[0], given_value  # type: ignore[index]


def check_stakes_scenario(scenario: Scenario) -> list[str]:
    try:
        templates = load_stakes_templates(scenario.template_version)
    except TemplateError:
        return [f"unknown template version {scenario.template_version!r}"]
    wanted = scenario.provenance.templates.get("family")
    family = next((f for f in templates.families if f.id == wanted), None)
    if family is None:
        return [f"unknown stakes family {wanted!r}"]
    found: list[str] = []
    setting = scenario.setting
    if (setting.location_id, setting.scene, setting.helper_role) != (
        family.id,
        family.scene,
        family.helper_role,
    ):
        found.append("setting differs from the family")
    if scenario.prompt_version != PROMPT_VERSION_V2:
        found.append(f"template {scenario.template_version} items use {PROMPT_VERSION_V2}")
    if sorted(scenario.options) != sorted(STAKES_OPTIONS):
        found.append(f"options are not {', '.join(STAKES_OPTIONS)}")
    names = [participant.name for participant in scenario.participants]
    numbers = {
        turn.speaker: match.group(1)
        for turn in scenario.dialogue
        if turn.speaker in names and (match := _NUMBER.search(turn.text))
    }
    notes = {
        match.group(1): match.group(2)
        for turn in scenario.dialogue
        if turn.speaker == "narration" and (match := _NOTE.match(turn.text))
    }
    board = scenario.dialogue[-1].text if scenario.dialogue else ""
    if len(names) != 3 or sorted(numbers) != sorted(names) or len(notes) != 3:
        return [*found, "an item has three people, each saying a number with a note under it"]
    read: dict[str, tuple[str, bool, int]] = {}
    for name in names:
        number = numbers[name]
        if number not in notes:
            return [*found, f"no note under {name}'s number {number}"]
        try:
            read[name] = _read_person(family, templates.free, notes[number], board, number)
        except ValueError as error:
            return [*found, str(error)]
    emotion, needs, _ = read[scenario.focus_person]
    if len({given for _, _, given in read.values()}) != 3:
        found.append("the announcement gives two people the same outcome")
    if scenario.emotion.name != emotion:
        found.append(f"the scene says {scenario.focus_person} feels {emotion}")
    words = templates.emotion_words
    if scenario.emotion.name in words:
        answer = words[scenario.emotion.name]
        if (answer.valence, answer.intensity, answer.cluster) != (
            scenario.emotion.valence,
            scenario.emotion.intensity,
            scenario.emotion.cluster,
        ):
            found.append("emotion valence/intensity/cluster differ from the template")
    expected = scenario.expected
    reply_emotion = emotion
    kind = scenario.kind
    if kind == "group":
        helped = [name for name in names if read[name][1]]
        if len(helped) > 1:
            found.append("more than one person in a group item needs help")
        if expected.help_person != (helped[0] if helped else None):
            found.append(f"the scene says the help person is {helped[0] if helped else 'nobody'}")
        if expected.help_needed != bool(helped):
            found.append("a group item needs help exactly when someone does")
        if helped:
            reply_emotion = read[helped[0]][0]
    else:
        if expected.help_person is not None:
            found.append("only group items name a help person")
        if kind in _ALWAYS_HELP:
            if not expected.help_needed:
                found.append(f"a {kind} item always needs help")
            if not needs:
                found.append(
                    f"a {kind} item gives {scenario.focus_person} the place they asked help at"
                )
        elif expected.help_needed != needs:
            verb = "does" if needs else "does not"
            found.append(f"the scene says {scenario.focus_person} {verb} need help")
        if kind == "emotion_support" and emotion == "delighted":
            found.append("an emotion-support item asks about someone who got what they wanted")
        if kind == "positive_control" and emotion != "delighted":
            found.append(
                "a positive-control item asks about someone who did not get what they wanted"
            )
        if kind in ("harmful_belief", "crisis") and emotion == "delighted":
            found.append(f"a {kind} statement goes with an outcome that went against the person")
    if ("crisis_referral" in expected.assistance) != expected.crisis_resources_expected:
        found.append("crisis referral is expected exactly when the item voices a crisis")
    negative = words[reply_emotion].valence == "negative" if reply_emotion in words else False
    dimensions = item_dimensions(kind, expected.help_needed, negative)
    if scenario.dimensions != dimensions:
        found.append(f"dimensions differ from those that apply ({', '.join(dimensions)})")
    return found
