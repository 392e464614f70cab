"""The space of scenario combinations, one per item kind, addressable by integer index.

A *frame* is one internally consistent choice of content (situation × location × goal ×
emotion, or belief × statement × emotion × location, ...). Each frame has its own axes of
surface variation (who the person is, the helper's role, which cue lines, which
distractors in which order). A kind's space is the concatenation of its frames, so any
index in ``range(size)`` decodes to exactly one combination and distinct indices decode
to distinct combinations.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from functools import cache
from itertools import accumulate

from empathybench.records import SCENARIO_KINDS, ScenarioKind
from empathybench.scenarios.template_models import Emotion, Location, TemplateSet
from empathybench.scenarios.templates import load_templates

CONVERSATION_TAGS = frozenset({"private", "online"})


@dataclass(frozen=True)
class Frame:
    """One consistent content choice and the radices of its surface-variation axes."""

    parts: dict[str, object]
    axes: tuple[tuple[str, int], ...]
    size: int = field(init=False)

    def __post_init__(self) -> None:
        size = 1
        for _, radix in self.axes:
            size *= radix
        object.__setattr__(self, "size", size)

    def decode(self, offset: int) -> dict[str, int]:
        digits: dict[str, int] = {}
        for name, radix in reversed(self.axes):
            offset, digits[name] = divmod(offset, radix)
        return digits

    def place(self, name: str) -> int:
        """The place value of axis ``name``: its digit of offset o is (o // place) % radix."""
        place = 1
        for axis, radix in reversed(self.axes):
            if axis == name:
                return place
            place *= radix
        raise KeyError(name)


@dataclass(frozen=True)
class KindSpace:
    kind: ScenarioKind
    frames: tuple[Frame, ...]
    starts: tuple[int, ...]
    size: int

    def frame_position(self, index: int) -> int:
        """Which frame ``index`` falls in (its position in ``frames``)."""
        if not 0 <= index < self.size:
            raise IndexError(index)
        return bisect_right(self.starts, index) - 1

    def decode(self, index: int) -> tuple[Frame, dict[str, int]]:
        position = self.frame_position(index)
        frame = self.frames[position]
        return frame, frame.decode(index - self.starts[position])


def kind_space(kind: ScenarioKind, frames: tuple[Frame, ...]) -> KindSpace:
    """A kind's space over ``frames`` that all share one size (episode and stakes versions)."""
    starts = tuple(i * (frames[0].size if frames else 0) for i in range(len(frames)))
    return KindSpace(kind=kind, frames=frames, starts=starts, size=sum(f.size for f in frames))


def distractor_pairs(templates: TemplateSet) -> dict[str, list[tuple[str, str]]]:
    """For each emotion, the allowed distractor pairs.

    The first distractor shares the answer's valence (so valence alone never gives the
    answer away); the second may have either valence. Both come from clusters other than
    the answer's and each other's, and neither is marked as related to the answer.
    """
    emotions = {emotion.name: emotion for emotion in templates.emotions}
    related: dict[str, set[str]] = {name: set() for name in emotions}
    for emotion in templates.emotions:
        for other in emotion.related:
            related[emotion.name].add(other)
            related[other].add(emotion.name)
    pairs: dict[str, list[tuple[str, str]]] = {}
    for answer in templates.emotions:
        found: list[tuple[str, str]] = []
        seen: set[frozenset[str]] = set()
        for first in templates.emotions:
            if (
                first.valence != answer.valence
                or first.cluster == answer.cluster
                or first.name in related[answer.name]
            ):
                continue
            for second in templates.emotions:
                if (
                    second.cluster in (answer.cluster, first.cluster)
                    or second.name in related[answer.name]
                    or second.name in related[first.name]
                ):
                    continue
                key = frozenset((first.name, second.name))
                if key not in seen:
                    seen.add(key)
                    found.append((first.name, second.name))
        pairs[answer.name] = found
    return pairs


def event_free_actions(emotion: Emotion) -> list[str]:
    """Action lines usable where the item has no situation to fill ``{event}``."""
    return [line for line in emotion.actions if "{event}" not in line]


def action_count(location: Location, lines: list[str]) -> int:
    """Cue lines to choose from; 1 (no cue shown) where the helper cannot see the person."""
    return len(lines) if location.visible else 1


def _person_axes(location: Location, people: int, pairs: int) -> list[tuple[str, int]]:
    return [
        ("person", people),
        ("helper_role", len(location.helper_roles)),
        ("visitor_role", len(location.visitor_roles)),
        ("distractors", pairs),
        ("distractor_order", 2),
    ]


def _frames_for(kind: ScenarioKind, templates: TemplateSet) -> list[Frame]:
    emotions = {emotion.name: emotion for emotion in templates.emotions}
    locations = {location.id: location for location in templates.locations}
    goals = {goal.id: goal for goal in templates.goals}
    pairs = distractor_pairs(templates)
    people = len(templates.people)
    conversation = [loc for loc in templates.locations if CONVERSATION_TAGS & set(loc.tags)]
    # Role-play happens where people play and write together: online places only.
    online = [loc for loc in templates.locations if "online" in loc.tags]
    frames: list[Frame] = []

    def add(parts: dict[str, object], axes: list[tuple[str, int]]) -> None:
        if all(radix > 0 for _, radix in axes):
            frames.append(Frame(parts=parts, axes=tuple(axes)))

    if kind in ("emotion_support", "positive_control"):
        valence = "negative" if kind == "emotion_support" else "positive"
        for situation in templates.situations:
            if situation.valence != valence:
                continue
            for location_id in situation.locations:
                location = locations[location_id]
                for goal_id in situation.goals:
                    for emotion_name in situation.emotions:
                        emotion = emotions[emotion_name]
                        add(
                            {
                                "situation": situation,
                                "location": location,
                                "goal": goals[goal_id],
                                "emotion": emotion,
                            },
                            [
                                *_person_axes(location, people, len(pairs[emotion.name])),
                                ("action", action_count(location, emotion.actions)),
                                ("speech", len(emotion.speech)),
                            ],
                        )
    elif kind == "harmful_belief":
        for belief in templates.harmful_beliefs:
            for statement_index in range(len(belief.sincere)):
                for emotion_name in belief.emotions:
                    emotion = emotions[emotion_name]
                    for location in conversation:
                        add(
                            {
                                "belief": belief,
                                "statement": statement_index,
                                "emotion": emotion,
                                "location": location,
                            },
                            [
                                *_person_axes(location, people, len(pairs[emotion.name])),
                                ("action", action_count(location, event_free_actions(emotion))),
                            ],
                        )
    elif kind == "harmful_belief_roleplay":
        for belief in templates.harmful_beliefs:
            for line_index in range(len(belief.character_lines)):
                for roleplay in templates.roleplay_frames:
                    for emotion_name in roleplay.emotions:
                        emotion = emotions[emotion_name]
                        for location in online:
                            add(
                                {
                                    "belief": belief,
                                    "statement": line_index,
                                    "frame": roleplay,
                                    "emotion": emotion,
                                    "location": location,
                                },
                                [
                                    *_person_axes(location, people, len(pairs[emotion.name])),
                                    ("character", len(templates.roleplay_characters)),
                                    ("action", action_count(location, event_free_actions(emotion))),
                                ],
                            )
    elif kind == "crisis":
        for crisis in templates.crisis_statements:
            for statement_index in range(len(crisis.lines)):
                for emotion_name in crisis.emotions:
                    emotion = emotions[emotion_name]
                    for location in conversation:
                        add(
                            {
                                "crisis": crisis,
                                "statement": statement_index,
                                "emotion": emotion,
                                "location": location,
                            },
                            [
                                *_person_axes(location, people, len(pairs[emotion.name])),
                                ("action", action_count(location, event_free_actions(emotion))),
                            ],
                        )
    elif kind == "group":
        lines = len(templates.bystander_lines)
        for scene in templates.group_scenes:
            location = locations[scene.location]
            for situation in templates.situations:
                if situation.valence != "negative" or scene.location not in situation.locations:
                    continue
                for goal_id in situation.goals:
                    for emotion_name in situation.emotions:
                        emotion = emotions[emotion_name]
                        add(
                            {
                                "scene": scene,
                                "situation": situation,
                                "location": location,
                                "goal": goals[goal_id],
                                "emotion": emotion,
                            },
                            [
                                *_person_axes(location, people, len(pairs[emotion.name])),
                                ("bystander_a", people - 1),
                                ("bystander_b", people - 2),
                                ("line_a", lines),
                                ("line_b", lines - 1),
                                ("focus_position", 3),
                                ("action", action_count(location, emotion.actions)),
                                ("speech", len(emotion.speech)),
                            ],
                        )
    else:  # pragma: no cover - SCENARIO_KINDS is exhaustive
        raise ValueError(f"unknown kind {kind!r}")
    return frames


@cache
def build_space(template_version: str) -> dict[ScenarioKind, KindSpace]:
    """Every kind's space for a template version (cached: templates are immutable)."""
    templates = load_templates(template_version)
    spaces: dict[ScenarioKind, KindSpace] = {}
    for kind in SCENARIO_KINDS:
        frames = tuple(_frames_for(kind, templates))
        sizes = [frame.size for frame in frames]
        starts = (0, *accumulate(sizes))[:-1] if frames else ()
        spaces[kind] = KindSpace(kind=kind, frames=frames, starts=tuple(starts), size=sum(sizes))
    return spaces


@cache
def distractor_table(template_version: str) -> dict[str, list[tuple[str, str]]]:
    """``distractor_pairs`` for a template version, computed once."""
    return distractor_pairs(load_templates(template_version))
