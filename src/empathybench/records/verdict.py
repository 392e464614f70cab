"""Judge records: one verdict per response, with a score per dimension."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from empathybench.records.base import SCHEMA_VERSION, Record
from empathybench.records.run import CallError

ScoreStatus = Literal["scored", "na", "unscored"]
NoReplyKind = Literal[
    "empty",
    "empty_reply",
    "placeholder",
    "options_only",
    "scene_only",
    "as_participant",
    "answer_lines_only",
    "labels_only",
    "other_script",
]
"""Why an output holds no reply to the person (``judging.no_reply``)."""


class DimensionScore(Record):
    """One dimension of one item: a value in [0, 1], or n/a, or unscored with a reason."""

    status: ScoreStatus
    value: float | None = Field(default=None, ge=0.0, le=1.0)
    rationale: str | None = None
    reason: str | None = None
    """Why the dimension is n/a or unscored; ``no reply`` when the no-reply rule scored it 0."""


class Verdict(Record):
    """One judge's scores for one response (``verdicts/<judge>.jsonl`` in a run directory)."""

    schema_version: int = SCHEMA_VERSION
    run_id: str
    scenario_id: str
    epoch: int
    judge: str
    """The judge's model id (or ``offline``)."""
    rubric_version: str
    scores: dict[str, DimensionScore]
    crisis_referral: bool | None = None
    """Crisis items: whether the reply points to real crisis help (None elsewhere)."""
    raw_outputs: list[str] = Field(default_factory=list)
    """The judge's raw answer to each attempt, kept for audit."""
    attempts: int = 0
    request_key: str | None = None
    error: CallError | None = None
    finished_at: str
    no_reply: NoReplyKind | None = None
    """Set when the output held no reply: the text dimensions are 0 by rule, no judge asked."""
    degenerate: str | None = None
    """Why the reply looks like a degenerate loop (flagged and counted, never scored down)."""
    scored_by: str | None = None
    """Offline judges: the head (its folder's name and a digest of its files) and how its
    encoder ran: ``judge-v3 (22f8c123) on minilm, onnx``. The id ``offline`` names the
    newest bundled head of the installed release, and the encoder backend moves scores in
    the third decimal, so a verdict says which produced it."""
