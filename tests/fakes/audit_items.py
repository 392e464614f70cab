"""Hand-made and re-keyed scenarios for the audit tests.

``scene`` builds a small but valid ``Scenario`` from a few dialogue lines, so baselines can
be checked on items designed around one cue. ``shuffled_keys`` re-keys generated items at
random, so that no key follows from the text any more.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence

from empathybench.audit.visible import VisibleItem, visible_item
from empathybench.prompts.scenario_prompt import render_prompt
from empathybench.records import LETTERS, Scenario

_PRONOUNS = "they"


def scene(
    lines: Sequence[tuple[str, str]],
    options: Sequence[str] = ("joy", "fear", "anger"),
    names: Sequence[str] = (),
    setting: str = "A quiet room",
    template_version: str = "v1",
    seed: int = 1,
    asked: str | None = None,
) -> Scenario:
    """A scenario whose dialogue is ``lines`` (speaker or ``narration``, text).

    Participants are the speakers plus ``names``; with more than one it is a group item,
    unless ``asked`` names the one person the questions ask about (as v2 and later do).
    Its keys are placeholders: tests pass keys to the baselines themselves.
    """
    people = list(dict.fromkeys([*names, *(s for s, _ in lines if s != "narration")]))
    people = people or ["Ana"]
    kind = "group" if len(people) > 1 and asked is None else "emotion_support"
    focus = asked or people[0]
    system, user = render_prompt(kind, setting, "a helper", list(lines), focus, list(options))
    return Scenario.model_validate(
        {
            "id": "t-" + hashlib.sha256(repr((lines, options)).encode()).hexdigest()[:12],
            "kind": kind,
            "template_version": template_version,
            "prompt_version": "test",
            "setting": {"location_id": "room", "scene": setting, "helper_role": "a helper"},
            "participants": [
                {"name": name, "pronouns": _PRONOUNS, "role": "someone"} for name in people
            ],
            "focus_person": focus,
            "dialogue": [{"speaker": s, "text": t} for s, t in lines],
            "goal": None,
            "emotion": {"name": options[0], "valence": "positive", "intensity": 1, "cluster": "x"},
            "options": list(options),
            "correct_letter": "A",
            "expected": {
                "help_needed": True,
                "assistance": ["emotional_support"],
                "crisis_resources_expected": False,
            },
            "dimensions": ["emotion_recognition"],
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
            "provenance": {"seed": seed, "rank": 0, "space_index": 0, "templates": {}},
        }
    )


def view(item: Scenario, candidates: Sequence[str] | None = None) -> VisibleItem:
    """The visible item, with the options (or ``candidates``) to choose from."""
    visible = visible_item(item)
    return visible.with_candidates(tuple(candidates) if candidates else visible.options)


def who_view(item: Scenario, nobody: bool = False) -> VisibleItem:
    visible = visible_item(item)
    return visible.with_candidates((*visible.names, "nobody") if nobody else visible.names)


def shuffled_keys(items: Sequence[Scenario], seed: int) -> list[Scenario]:
    """The same items with emotion, help and focus person drawn at random."""
    rng = random.Random(seed)
    shuffled = []
    for item in items:
        letter = rng.randrange(len(LETTERS))
        focus = rng.choice(item.participants).name
        shuffled.append(
            item.model_copy(
                update={
                    "correct_letter": LETTERS[letter],
                    "emotion": item.emotion.model_copy(update={"name": item.options[letter]}),
                    "expected": item.expected.model_copy(
                        update={"help_needed": rng.random() < 0.5}
                    ),
                    "focus_person": focus,
                }
            )
        )
    return shuffled
