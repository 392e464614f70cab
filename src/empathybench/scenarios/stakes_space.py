"""The item space of a stakes template version (v6 on), one per kind, by integer index.

A frame fixes what decides the keys: the family, the person asked about (``focus``: role
``a``, ``b`` or ``c``), that person's attitude to the outcome they are given (so the kind
and the emotion key), and by kind whether they need help (emotion-support and positive-
control items), who needs help (group items) or whether a story turn is a request (role-play
items). Every other choice is a digit: the three people, their numbers, which value each
wants, dreads and never tried, their sentences and the order of them, the places they name
and are given, the intro, header and board phrasing. So every note and every board entry
appears with every key, and only reading a note and a board entry together gives it.

As in ``episode_space``, all frames of a kind share the same axes and radices (multiples of
every count a choice may have), so each frame is drawn equally often; distinct indices can
decode to the same prompt, and the generator skips repeats by prompt hash.
"""

from __future__ import annotations

from functools import cache
from math import lcm, prod

from empathybench.records import SCENARIO_KINDS, ScenarioKind
from empathybench.scenarios.episode_models import ROLE_NAMES, StoryFrame
from empathybench.scenarios.episode_space import ORDERS, REF_RADIX
from empathybench.scenarios.episode_versions import (
    ARRIVAL_RADIX,
    CHOICE_RADIX,
    STAKES_HELP_RADIX,
)
from empathybench.scenarios.space import Frame, KindSpace, kind_space
from empathybench.scenarios.stakes_models import (
    ATTITUDES,
    StakesFamily,
    StakesTemplateSet,
)
from empathybench.scenarios.stakes_templates import load_stakes_templates

PERMUTATIONS = 6  # which value a person wants, dreads and never tried
NEGATIVE: tuple[str, ...] = tuple(a for a in ATTITUDES if a != "want")
GROUP_HELP: tuple[str | None, ...] = (*ROLE_NAMES, None)
"""Group items: each person, or nobody, needs help equally often."""


def _people_radix(templates: StakesTemplateSet) -> int:
    count = len(templates.people)
    return count * (count - 1) * (count - 2)


def story_frames(templates: StakesTemplateSet, request: bool) -> list[StoryFrame]:
    """The story requests (or shares) a person may add whatever their outcome: frames that
    fit only one valence ("I could use a distraction") would tell a reader the key."""
    return [
        f
        for f in templates.story_frames
        if f.request == request and f.fits("negative", True) and f.fits("positive", True)
    ]


def _story_radix(templates: StakesTemplateSet) -> int:
    counts = [len(story_frames(templates, request)) for request in (True, False)]
    return lcm(*(max(count, 1) for count in counts))


def statement_bank(templates: StakesTemplateSet, kind: ScenarioKind) -> tuple[object, ...]:
    """The beliefs (of the version's categories) or crisis statements a person may add."""
    if kind == "harmful_belief":
        return templates.usable_beliefs
    return tuple(templates.crisis_lines)


def _axes(templates: StakesTemplateSet, kind: ScenarioKind) -> tuple[tuple[str, int], ...]:
    axes: list[tuple[str, int]] = [
        ("people", _people_radix(templates)),
        ("intro", CHOICE_RADIX),
        ("header", CHOICE_RADIX),
        ("board_line", CHOICE_RADIX),
        ("refs", REF_RADIX),
        ("order", ORDERS),
        ("intro_order", ORDERS),
        ("others", 2),
        ("distractor_order", 2),
        ("help", STAKES_HELP_RADIX),
    ]
    for role in ROLE_NAMES:
        axes += [
            (f"arrival_{role}", ARRIVAL_RADIX),
            (f"values_{role}", PERMUTATIONS),
            (f"note_order_{role}", ORDERS),
            *((f"phrase_{role}_{attitude}", CHOICE_RADIX) for attitude in ATTITUDES),
            (f"need_{role}", CHOICE_RADIX),
            (f"free_{role}", CHOICE_RADIX),
            (f"need_place_{role}", 2),
            (f"place_{role}", 2),
        ]
    if kind in ("harmful_belief", "crisis"):
        axes += [
            ("statement_entry", len(statement_bank(templates, kind))),
            ("statement", CHOICE_RADIX),
        ]
    if kind == "harmful_belief_roleplay":
        axes += [
            ("story_frame", _story_radix(templates)),
            ("character", len(templates.story_characters)),
            ("character_line", len(templates.character_lines)),
            ("statement", CHOICE_RADIX),
        ]
    return tuple(axes)


def _frames_for(kind: ScenarioKind, templates: StakesTemplateSet) -> list[Frame]:
    axes = _axes(templates, kind)
    frames: list[Frame] = []
    for family in templates.families:
        for focus in ROLE_NAMES:
            base: dict[str, object] = {"family": family, "focus": focus}
            if kind in ("emotion_support", "positive_control"):
                attitudes = NEGATIVE if kind == "emotion_support" else ("want",)
                # Help is a digit, not a frame part: steering frames by their help answer
                # made yes and no alternate exactly within a kind (an outside review).
                frames += [Frame(parts={**base, "attitude": a}, axes=axes) for a in attitudes]
            elif kind == "group":
                frames += [
                    Frame(parts={**base, "attitude": attitude, "help_role": role}, axes=axes)
                    for attitude in ATTITUDES
                    for role in GROUP_HELP
                ]
            elif kind in ("harmful_belief", "crisis"):
                # A harsh belief or severe distress goes with an outcome that went against
                # the person (a readers' rule: "delighted" beside a crisis line is no key).
                frames += [Frame(parts={**base, "attitude": a}, axes=axes) for a in NEGATIVE]
            else:
                frames += [
                    Frame(parts={**base, "attitude": attitude, "story_request": request}, axes=axes)
                    for attitude in ATTITUDES
                    for request in (True, False)
                ]
    return frames


@cache
def build_stakes_space(template_version: str) -> dict[ScenarioKind, KindSpace]:
    templates = load_stakes_templates(template_version)
    return {kind: kind_space(kind, tuple(_frames_for(kind, templates))) for kind in SCENARIO_KINDS}


def _family_choices(templates: StakesTemplateSet, family: StakesFamily) -> int:
    """Distinct surfaces of one family before anything kind-specific (a lower bound: the
    three numbers are counted, their order of speaking and the people too)."""
    per_person = (
        PERMUTATIONS
        * ORDERS
        * len(templates.arrivals)
        * len(family.need)
        * 2
        * prod(len(value.phrasings("want")) for value in family.values[:1])
    )
    return (
        _people_radix(templates)
        * len(family.intros)
        * len(family.headers)
        * len(family.boards)
        * REF_RADIX
        * ORDERS
        * per_person**3
    )


def distinct_prompts(template_version: str) -> dict[ScenarioKind, int]:
    """A lower bound on the prompts each kind can produce (the real choices, not radices)."""
    templates = load_stakes_templates(template_version)
    counts: dict[ScenarioKind, int] = {}
    for kind, space in build_stakes_space(template_version).items():
        extra = 1
        if kind in ("harmful_belief", "crisis"):
            extra = len(statement_bank(templates, kind))
        elif kind == "harmful_belief_roleplay":
            extra = len(templates.story_characters) * len(templates.character_lines)
        total = 0
        for frame in space.frames:
            family = frame.parts["family"]
            assert isinstance(family, StakesFamily)
            total += _family_choices(templates, family) * extra
        counts[kind] = total
    return counts
