"""What therapy judging writes: cognitive / emotional / behavioral scores on the 1–3 scale.

A component the judge could not score is ``unscored`` with the reason — never a 1, never
averaged. ``empathy`` (the seed's mean of the three) exists only when all three are scored.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from empathybench.records import SCHEMA_VERSION, CallError, NoReplyKind, Record

COMPONENTS: tuple[str, ...] = ("cognitive", "emotional", "behavioral")
SCALE_LOW, SCALE_HIGH = 1.0, 3.0


class ComponentScore(Record):
    status: Literal["scored", "unscored"]
    value: float | None = Field(default=None, ge=SCALE_LOW, le=SCALE_HIGH)
    rationale: str | None = None
    reason: str | None = None
    """Why the component is unscored; ``no reply`` when the no-reply rule scored it 1."""


class TherapyVerdict(Record):
    """One judge's C/E/B scores for one source's answer to one question.

    ``scenario_id`` holds the question id, so these records share the append-only log
    (keyed by item and epoch) with the rest of the project.
    """

    schema_version: int = SCHEMA_VERSION
    source: str
    scenario_id: str
    epoch: int
    judge: str
    rubric_version: str
    scores: dict[str, ComponentScore]
    raw_outputs: list[str] = Field(default_factory=list)
    attempts: int = 0
    request_key: str | None = None
    error: CallError | None = None
    finished_at: str
    no_reply: NoReplyKind | None = None
    """Set when the answer held nothing to score: every component is 1 (absent) by rule."""
    degenerate: str | None = None
    """Why the answer looks like a degenerate loop (flagged and counted, never scored down)."""
    scored_by: str | None = None
    """The offline scorer's head, encoder and encoder backend, for scores it gave
    (``empathy-v4 (1a2b3c4d) on minilm, onnx``); None for model judges and no-reply rows."""

    @property
    def empathy(self) -> float | None:
        values = [self.scores[c].value for c in COMPONENTS if c in self.scores]
        scored = [v for v in values if v is not None]
        return sum(scored) / len(COMPONENTS) if len(scored) == len(COMPONENTS) else None
