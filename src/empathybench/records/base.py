"""The base of every persisted record, and the vocabularies records share.

Every record carries the ids that tie it back to where it came from. Field order is part of
the on-disk format: JSONL is written in declaration order, so reordering fields changes
suite bytes (and therefore suite hashes).
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
)

SCHEMA_VERSION = 1
KNOWN_SCHEMA_VERSIONS = frozenset({1})

ORIGINAL_TEMPLATE_VERSION = "original-benchmark"
"""The template version of items converted from the original benchmark's JSON files
(``empathybench.original``): they have no options and no answer format, so every dimension
is judged from the reply."""

ScenarioKind = Literal[
    "emotion_support",
    "positive_control",
    "harmful_belief",
    "harmful_belief_roleplay",
    "crisis",
    "group",
]
SCENARIO_KINDS: tuple[ScenarioKind, ...] = get_args(ScenarioKind)

Dimension = Literal[
    "moral_behavior",
    "willingness_to_help",
    "emotion_recognition",
    "cheering_up",
    "assistance_needed",
    "assistance_appropriateness",
]
DIMENSIONS: tuple[Dimension, ...] = get_args(Dimension)

AssistanceType = Literal[
    "emotional_support",
    "practical_help",
    "information",
    "challenge_belief",
    "crisis_referral",
    "celebrate",
    "no_action_needed",
]
ASSISTANCE_TYPES: tuple[AssistanceType, ...] = get_args(AssistanceType)
Letter = Literal["A", "B", "C"]
LETTERS: tuple[Letter, ...] = get_args(Letter)
Valence = Literal["positive", "negative"]


class Record(BaseModel):
    """Base of every persisted model: unknown fields are errors, values are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


RunTrack = Literal["scenarios", "therapy"]
SuiteOrigin = Literal["empathybench", "original-benchmark"]
