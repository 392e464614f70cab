"""Pydantic models for everything the stages write to disk.

Every record carries the ids that tie it back to where it came from. Field order is part of
the on-disk format: JSONL is written in declaration order, so reordering fields changes
suite bytes (and therefore suite hashes).

- ``base``: the base ``Record`` and the shared vocabularies (kinds, dimensions, letters);
- ``scenario``: items and suites;
- ``run``: responses and the run manifest;
- ``verdict``: judges' scores.
"""

from __future__ import annotations

from empathybench.records.base import (
    ASSISTANCE_TYPES,
    DIMENSIONS,
    KNOWN_SCHEMA_VERSIONS,
    LETTERS,
    ORIGINAL_TEMPLATE_VERSION,
    SCENARIO_KINDS,
    SCHEMA_VERSION,
    AssistanceType,
    Dimension,
    Letter,
    Record,
    RunTrack,
    ScenarioKind,
    SuiteOrigin,
    Valence,
)
from empathybench.records.model_spec import (
    GenerationParams,
    ModelSpec,
)
from empathybench.records.run import (
    CallError,
    JudgeDecision,
    JudgeRequest,
    Response,
    RunManifest,
    RunTotals,
    SuiteRef,
    TokenUsage,
)
from empathybench.records.scenario import (
    ChatMessage,
    EmotionTruth,
    ExpectedBehaviour,
    Participant,
    Provenance,
    Scenario,
    Setting,
    Suite,
    SuiteInfo,
    Turn,
)
from empathybench.records.verdict import (
    DimensionScore,
    NoReplyKind,
    ScoreStatus,
    Verdict,
)

__all__ = [
    "ASSISTANCE_TYPES",
    "DIMENSIONS",
    "KNOWN_SCHEMA_VERSIONS",
    "LETTERS",
    "ORIGINAL_TEMPLATE_VERSION",
    "SCENARIO_KINDS",
    "SCHEMA_VERSION",
    "AssistanceType",
    "CallError",
    "ChatMessage",
    "Dimension",
    "DimensionScore",
    "EmotionTruth",
    "ExpectedBehaviour",
    "GenerationParams",
    "JudgeDecision",
    "JudgeRequest",
    "Letter",
    "ModelSpec",
    "NoReplyKind",
    "Participant",
    "Provenance",
    "Record",
    "Response",
    "RunManifest",
    "RunTotals",
    "RunTrack",
    "Scenario",
    "ScenarioKind",
    "ScoreStatus",
    "Setting",
    "Suite",
    "SuiteInfo",
    "SuiteOrigin",
    "SuiteRef",
    "TokenUsage",
    "Turn",
    "Valence",
    "Verdict",
]
