"""Typed schema of the scenario template files (one YAML file per section).

The template files are data, versioned by directory (``templates/v1``). Any edit to a
version's files changes the scenarios it generates, so a released suite pins its template
version and the sha256 of the template files; edits go into a new version directory.

Slots a template string may use:
``{name}``   the person in focus (narration and speech);
``{their}``  / ``{them}``  that person's possessive / object pronoun (narration only);
``{goal}``   a first-person verb phrase, only inside the person's own quoted speech;
``{event}``  a short noun phrase naming what happened ("the cancelled flight").
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from empathybench.records import AssistanceType, Valence

Pronouns = Literal["she", "he", "they"]
BeliefCategory = Literal[
    "self_worth",
    "hopelessness",
    "group_hostility",
    "revenge",
    "conspiratorial",
    "disordered_eating",
    "reckless_risk",
    "isolation",
    "relationships",
    "substance_use",
]

SLOT_PATTERN = re.compile(r"\{([a-z_]+)\}")
IDENTIFIER = r"^[a-z][a-z0-9_]*$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Emotion(_Strict):
    name: str = Field(pattern=r"^[a-z]+$")
    forms: list[str] = Field(min_length=1)
    """Every word form that would give the answer away (must include ``name``)."""
    valence: Valence
    intensity: int = Field(ge=1, le=3)
    cluster: str = Field(pattern=IDENTIFIER)
    related: list[str] = Field(default_factory=list)
    """Emotions of other clusters too close to serve as this one's distractors (symmetric)."""
    actions: list[str] = Field(min_length=4)
    """Narration lines showing the emotion without naming it. Slots: name, their, them, event."""
    speech: list[str] = Field(min_length=4)
    """What the person says (without the quotes). Slots: goal, event."""


class Location(_Strict):
    id: str = Field(pattern=IDENTIFIER)
    scene: str
    """Sentence-case description of the place, e.g. 'A crowded train platform at rush hour'."""
    tags: list[Literal["public", "private", "online", "work", "care", "outdoors"]] = Field(
        min_length=1
    )
    contact: Literal["in_person", "video", "voice", "text"]
    """How the person reaches the helper; body language is only shown where it can be seen."""
    helper_roles: list[str] = Field(min_length=2)
    """Who the tested model is there, completing 'You are ...'."""

    @property
    def visible(self) -> bool:
        return self.contact in ("in_person", "video")

    visitor_roles: list[str] = Field(min_length=2)
    """Who the person is there, as an appositive: 'a commuter'."""


class Goal(_Strict):
    id: str = Field(pattern=IDENTIFIER)
    text: str
    """First-person verb phrase without 'to': 'get home before my kids go to sleep'."""


class Situation(_Strict):
    id: str = Field(pattern=IDENTIFIER)
    valence: Valence
    description: str
    """One narration sentence with {name}: '{name} has just watched the last train leave.'"""
    event: str
    """Short noun phrase for the {event} slot: 'the missed train'."""
    locations: list[str] = Field(min_length=2)
    goals: list[str] = Field(min_length=2)
    emotions: list[str] = Field(min_length=2)
    assistance: list[AssistanceType] = Field(min_length=1)


class Person(_Strict):
    name: str
    culture: str
    pronouns: Pronouns


class HarmfulBelief(_Strict):
    id: str = Field(pattern=IDENTIFIER)
    category: BeliefCategory
    emotions: list[str] = Field(min_length=1)
    """The sincere speaker's plausible hidden emotions (negative)."""
    sincere: list[str] = Field(min_length=2)
    """First-person statements the person sincerely makes to the model."""
    character_lines: list[str] = Field(min_length=2)
    """The same belief voiced by a fictional character (used inside a role-play frame)."""
    kinder_perspective: str
    """What a kind, non-belittling alternative view looks like (for the judge)."""


class RoleplayFrame(_Strict):
    id: str = Field(pattern=IDENTIFIER)
    text: str
    """The person's message; slots {character} and {line} (the character's words)."""
    emotions: list[str] = Field(min_length=1)
    """The role-player's own plausible emotions (usually positive: playful, curious...)."""


class CrisisStatement(_Strict):
    id: str = Field(pattern=IDENTIFIER)
    emotions: list[str] = Field(min_length=1)
    lines: list[str] = Field(min_length=2)
    """Sincere statements of severe distress, each a variant of the same message."""


class GroupScene(_Strict):
    id: str = Field(pattern=IDENTIFIER)
    location: str
    opening: str
    """Narration naming the gathering: 'Three friends are sharing a table at a food court.'"""


class TemplateSet(_Strict):
    """Every section of one template version, as loaded from its directory."""

    version: str
    emotions: list[Emotion]
    locations: list[Location]
    goals: list[Goal]
    situations: list[Situation]
    people: list[Person]
    harmful_beliefs: list[HarmfulBelief]
    roleplay_frames: list[RoleplayFrame]
    roleplay_characters: list[str]
    crisis_statements: list[CrisisStatement]
    group_scenes: list[GroupScene]
    bystander_lines: list[str]
    """Neutral or upbeat narration about another person in a group; slot {name} only."""

    @field_validator("roleplay_characters", "bystander_lines")
    @classmethod
    def _non_empty(cls, value: list[str]) -> list[str]:
        if not value:
            raise ValueError("must not be empty")
        return value
