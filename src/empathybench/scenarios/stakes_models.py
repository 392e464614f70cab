"""Typed schema of template version 6: stakes families, keys that follow from a match.

Version 5 filed each person's words in a note under a number; a reader that follows the
number to the note and memorises it read 0.98-0.99 of v5's emotion keys, because every note
belonged to one emotion. In version 6 no text belongs to one key:

- each of three people left a note saying which of a family's three outcomes (``values``)
  they *want*, which they *dread* (an everyday cost) and which they have *never tried*, one
  sentence per value, and at which of two ``places`` they would need the helper's one
  practical help;
- an announcement (the board) then gives each person's number an outcome and a place;
- the person feels ``delighted`` when the outcome is the one they wanted, ``frustrated`` when
  it is the one they dreaded, ``nervous`` when they never tried it; they need help exactly
  when the place is the one they named.

The generator draws every person's attitudes, outcome and places independently, so every
note, board entry and phrase appears with every key: only reading a person's note *and*
their board entry together gives the answer. The design was tested before it was built
(benchmarks/template_v6_prototype.py, benchmarks/preregistrations/template-v6-prototype.md).
"""

from __future__ import annotations

from functools import cached_property
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from empathybench.scenarios.episode_models import (
    IDENTIFIER,
    Belief,
    Channel,
    CharacterLine,
    CrisisLine,
    EmotionWord,
    Person,
    StoryFrame,
)

Attitude = Literal["want", "dread", "unknown"]
ATTITUDES: tuple[Attitude, ...] = ("want", "dread", "unknown")
STAKES_EMOTIONS: dict[Attitude, str] = {
    "want": "delighted",
    "dread": "frustrated",
    "unknown": "nervous",
}
"""The key for the attitude the person had to the outcome they were given."""
STAKES_OPTIONS: tuple[str, ...] = ("delighted", "frustrated", "nervous")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StakesValue(_Strict):
    """One outcome the announcement can give, with a person's sentences about it."""

    board: str
    """How the announcement names it (fills ``{v}`` of the family's ``entry``)."""
    want: list[str] = Field(min_length=2)
    """Why it suits them: a preference, never a need that fails without it."""
    dread: list[str] = Field(min_length=2)
    """An everyday cost of it for them: not fear, not uncertainty."""
    unknown: list[str] = Field(min_length=2)
    """They have never done or had it and cannot picture it: no dislike."""

    def phrasings(self, attitude: Attitude) -> list[str]:
        return {"want": self.want, "dread": self.dread, "unknown": self.unknown}[attitude]


class StakesPlace(_Strict):
    say: str
    """How a person names it in their note (fills ``{p}`` of a need phrasing)."""
    board: str
    """How the announcement names it (fills ``{p}`` of the family's ``entry``)."""


class StakesFamily(_Strict):
    id: str = Field(pattern=IDENTIFIER)
    scene: str
    """Sentence-case place, no final period."""
    channel: Channel
    helper_role: str
    """Completes 'You are ...'; someone who perceives the scene through ``channel``."""
    intros: list[str] = Field(min_length=2)
    """Narration naming the three people (``{names}``) and nothing about any one of them."""
    headers: list[str] = Field(min_length=2)
    """Narration introducing the notes, left before the announcement, one per number."""
    boards: list[str] = Field(min_length=2)
    """The announcement, with ``{entries}``."""
    entry: str
    """One board entry, with ``{ref}``, ``{v}`` and ``{p}``."""
    values: list[StakesValue] = Field(min_length=3, max_length=3)
    places: list[StakesPlace] = Field(min_length=2, max_length=2)
    need: list[str] = Field(min_length=2)
    """The one thing they would need from the helper, only if given place ``{p}``."""


class StakesTemplateSet(_Strict):
    """Every section of a version-6 template directory (banks shared with version 4)."""

    version: str
    emotions: list[EmotionWord]
    people: list[Person]
    families: list[StakesFamily]
    arrivals: list[str] = Field(min_length=1)
    """What a person says in the scene: only their number (``{ref}``)."""
    free: list[str] = Field(min_length=1)
    """What a person says of the place they would not need the helper at (``{q}``), so that
    every note names both places once and counting place names gives nothing away."""
    belief_categories: list[str] = Field(min_length=1)
    """The harsh-belief categories a person may voice in their note: ones that can grow from
    any outcome's stakes (not, say, body image at a rota screen)."""
    beliefs: list[Belief]
    crisis_lines: list[CrisisLine]
    story_frames: list[StoryFrame]
    story_characters: list[str]
    character_lines: list[CharacterLine]

    @cached_property
    def emotion_words(self) -> dict[str, EmotionWord]:
        return {emotion.name: emotion for emotion in self.emotions}

    @cached_property
    def usable_beliefs(self) -> tuple[Belief, ...]:
        return tuple(b for b in self.beliefs if b.category in self.belief_categories)
