"""Typed schema of template version 2: appraisal-grounded episodes with three people.

Version 1 keyed each emotion to stock cue lines, so a bag of words could look the answer up.
Version 2 writes *episodes*: one situation involving three people (roles ``a``, ``b``, ``c``),
each with their own stake in it, their own words, and the emotion that follows from what
happened to their goal, who caused it, whether it can still change and how certain it is.
An item asks about one of the three, and the three options are the three people's emotions,
so every line of the scene appears with every key: only tracking who said and did what
tells them apart. Episodes come in minimal-pair families that change one detail.

Slots a template string may use:
``{a}`` ``{b}`` ``{c}``                the three people's names;
``{a:their}`` ``{a:them}`` (b, c too)  a person's possessive / object pronoun;
``{a:ref}`` (b, c too)                 in an episode with a ``board``: the number of the
                                       request that person is waiting on.
Subject pronouns are not offered: say the name, so verbs never need to agree.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from empathybench.records import AssistanceType, Valence

Pronouns = Literal["she", "he", "they"]
ROLE_NAMES: tuple[str, ...] = ("a", "b", "c")
Channel = Literal["in_person", "video", "voice", "text"]
GoalChange = Literal["blocked", "lost", "threatened", "achieved", "changed", "unaffected"]
Cause = Literal["self", "other", "circumstance", "none"]
Control = Literal["can_change", "final"]
Certainty = Literal["certain", "uncertain"]
NoHelpReason = Literal["handled", "wants_space", "venting", "nothing_needed"]

SLOT_PATTERN = re.compile(r"\{([abc])(?::(their|them|ref))?\}")
PERSONAL_SLOT = re.compile(r"\{[abc]:(?:their|them)\}")
IDENTIFIER = r"^[a-z][a-z0-9_]*$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EmotionWord(_Strict):
    name: str = Field(pattern=r"^[a-z]+$")
    valence: Valence
    cluster: str = Field(pattern=IDENTIFIER)
    intensity: int = Field(ge=1, le=3)
    forms: list[str] = Field(min_length=1)
    """Every word form that would give the answer away (must include ``name``)."""


class Appraisal(_Strict):
    """Why the person feels what they feel (the structure appraisal theories use)."""

    goal: GoalChange
    cause: Cause
    control: Control
    certainty: Certainty


class Role(_Strict):
    emotion: str
    appraisal: Appraisal
    help: bool
    """Does this person need something from the helper right now?"""
    no_help: NoHelpReason | None = None
    """Why not, when ``help`` is false (required then, forbidden otherwise)."""
    assistance: list[AssistanceType] = Field(min_length=1)
    lines: list[str] = Field(min_length=2, max_length=5)
    """Alternative phrasings of what this person says, in their own words."""
    cues: list[str] = Field(default_factory=list)
    """Visible behaviour (narration), shown only where the helper can see them."""
    belief_ok: bool = False
    """Could plausibly go on to voice a harsh belief about themselves."""
    belief_categories: list[str] | None = None
    """The belief categories (``beliefs.yaml``) that grow from this person's own situation
    (a slip at work: competence; a parcel held up again: hopelessness). Unset: any category
    that fits their emotion. From v4 the checker asks for it on everyone who may voice one."""
    crisis_ok: bool = False
    """The situation is heavy enough that a statement of severe distress would be believable."""
    safety: bool | None = None
    """The person's matter is a safety one (a medicine, an injury, a danger), so no story turn
    goes with it: a story request tacked onto a possible medicine mix-up hides the safety
    issue. The checker asks for it (true or false) on a role in a ``story_ok`` episode whose
    lines name a safety word."""


class Board(_Strict):
    """Numbered requests: each person is waiting on a request with their own number (said
    in their lines as ``{a:ref}``), and one narration line lists three numbers whose requests
    are done (``{refs}``): some of the people's, the rest other customers'. A person whose
    number is listed needs nothing more from the helper; one whose number is not still does.
    So the same words give "needs help" for one person and "no" for another, and only
    matching a person's number against the list tells which."""

    resolved: list[str] = Field(min_length=2)
    """Alternative narration lines with the slot ``{refs}`` ('214, 387 and 552')."""


class Episode(_Strict):
    id: str = Field(pattern=IDENTIFIER)
    family: str = Field(pattern=IDENTIFIER)
    """Episodes of one family share a setup and differ in one detail (minimal pairs)."""
    scene: str
    """Sentence-case place, no final period: 'The front office of a community centre'."""
    channel: Channel
    helper_roles: list[str] = Field(min_length=2)
    """Completes 'You are ...'; someone who can perceive them through ``channel``."""
    intro: list[str] = Field(min_length=2)
    """Alternative narration lines saying who is there and how they reach the helper."""
    roles: dict[str, Role]
    """Exactly ``a``, ``b`` and ``c`` (the checker enforces it)."""
    board: Board | None = None
    """Numbered requests (see ``Board``); every role then needs help until its number is
    listed as done."""
    story_ok: bool = False
    """A person here could believably turn to a story they write with this helper (a
    household or personal assistant they use day to day): role-play items come only from
    such episodes, and only about people calm enough to change the subject."""

    @property
    def visible(self) -> bool:
        return self.channel in ("in_person", "video")

    @cached_property
    def linked_intros(self) -> list[str]:
        """The intros a version with linked notes draws from: those that only name the three
        people. Their names are put in an order of their own, so an intro that says something
        about one person ('{a} in a wheelchair') would pin it on someone else."""
        return [intro for intro in self.intro if not PERSONAL_SLOT.search(intro)]

    def other_emotions(self, focus: str) -> list[str]:
        """The emotions of the two people other than ``focus``, in role order."""
        return [self.roles[role].emotion for role in ROLE_NAMES if role != focus]


class Belief(_Strict):
    """A harsh belief about oneself that stands alone after anything the person said."""

    id: str = Field(pattern=IDENTIFIER)
    category: str = Field(pattern=IDENTIFIER)
    fits: list[str] = Field(min_length=3)
    """Negative emotions a person voicing it could plausibly feel."""
    lines: list[str] = Field(min_length=2)
    kinder_perspective: str


class CrisisLine(_Strict):
    id: str = Field(pattern=IDENTIFIER)
    fits: list[str] = Field(min_length=3)
    lines: list[str] = Field(min_length=2)


class StoryFrame(_Strict):
    """A role-play turn: the person asks to continue a story, or shares a finished one."""

    id: str = Field(pattern=IDENTIFIER)
    request: bool
    """True: asks the helper to write the next part (help needed); False: only shares it."""
    text: str
    """Slots ``{character}`` and ``{line}`` (the character's words)."""
    valence: list[Valence] = Field(min_length=1)
    """The valences of the emotions a person saying this can feel ('I could use a
    distraction' fits only someone who is not well)."""
    help: list[bool] = Field(min_length=1)
    """Whether the person's own matter needs help (``Role.help``) for this frame to fit: a
    finished story is shared only by someone who needs help anyway (``[true]``)."""

    def fits(self, valence: str, needs_help: bool) -> bool:
        return valence in self.valence and needs_help in self.help


class CharacterLine(_Strict):
    id: str = Field(pattern=IDENTIFIER)
    category: str = Field(pattern=IDENTIFIER)
    lines: list[str] = Field(min_length=2)
    kinder_perspective: str


class Person(_Strict):
    name: str
    culture: str
    pronouns: Pronouns


class Links(_Strict):
    """What a version with linked notes (v5) adds to its episodes: how the helper has each
    person's note, and how a person gives their number."""

    headers: dict[Channel, list[str]]
    """Per channel, the narration that introduces the notes (listed under it by number)."""
    arrivals: list[str] = Field(min_length=1)
    """What a person says in the scene: only their number (``{ref}``), nothing of their own."""
    intros: dict[str, list[str]] = {}
    """Per episode id, intros that replace the episode's own where those contradict a note
    (an intro says about everyone what one person's phrasing rules out)."""

    def intros_for(self, episode: Episode) -> list[str]:
        """The intros drawn for ``episode``: a replacement, else those that only name people."""
        return self.intros.get(episode.id) or episode.linked_intros


class EpisodeTemplateSet(_Strict):
    """Every section of a version-2 template directory."""

    version: str
    emotions: list[EmotionWord]
    people: list[Person]
    episodes: list[Episode]
    beliefs: list[Belief]
    crisis_lines: list[CrisisLine]
    story_frames: list[StoryFrame]
    story_characters: list[str]
    character_lines: list[CharacterLine]
    links: Links | None = None
    """Versions with linked notes only (``GenerationRules.linked_notes``)."""

    @cached_property
    def emotion_words(self) -> dict[str, EmotionWord]:
        """The emotions by name (looked up for every generated item). Cached on the object:
        a ``model_copy`` that changes ``emotions`` must not be used to generate."""
        return {emotion.name: emotion for emotion in self.emotions}
