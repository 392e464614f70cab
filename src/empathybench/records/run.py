"""Run records: responses, their errors and usage, and the run manifest."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from empathybench.records.base import SCHEMA_VERSION, Record, RunTrack, SuiteOrigin
from empathybench.records.model_spec import ModelSpec


class TokenUsage(Record):
    input_tokens: int = 0
    output_tokens: int = 0


class CallError(Record):
    kind: str
    message: str
    """What went wrong; any URL in it is recorded without credentials."""
    status: int | None = None

    @field_validator("message")
    @classmethod
    def _no_secrets(cls, message: str) -> str:
        from empathybench.runtime.url_secrets import redact_urls

        return redact_urls(message)


class Response(Record):
    """One model answer (or its explicit failure) for one scenario and epoch."""

    schema_version: int = SCHEMA_VERSION
    run_id: str
    scenario_id: str
    epoch: int
    model: str
    strategy: str
    request_key: str
    text: str | None
    reasoning: str | None = None
    stop_reason: str | None = None
    refusal: str | None = None
    usage: TokenUsage = TokenUsage()
    latency_s: float
    attempts: int
    cached: bool
    error: CallError | None = None
    provider_model: str | None = None
    finished_at: str

    @property
    def ok(self) -> bool:
        return self.error is None and self.text is not None


class SuiteRef(Record):
    name: str
    source: str
    """A bundled suite's name, or the path of the suite file."""
    sha256: str
    n: int
    origin: SuiteOrigin = "empathybench"
    """``original-benchmark``: the original benchmark's items (or its tester's results,
    imported), judged from the reply (see ``Scenario.answers_in_reply``)."""


class RunTotals(Record):
    items: int = 0
    completed: int = 0
    errors: int = 0
    cached: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    wall_s: float = 0.0


class JudgeRequest(Record):
    """What ``run`` was asked to score with: its ``--judge`` values, or ``--no-judge``."""

    judges: list[str] = Field(default_factory=list)
    """Judge ids as resolved at the start (``offline`` when none was named and it was used)."""
    no_judge: bool = False
    judge_base_url: str | None = None
    """Recorded without credentials (``runtime.url_secrets``)."""
    allow_self_judge: bool = False


class JudgeDecision(Record):
    """Why a judge was allowed to score a run (recorded in the manifest)."""

    judge: str
    judge_family: str | None
    tested_family: str | None
    same_family: bool
    allowed: bool
    reason: str


class RunManifest(Record):
    """The configuration and provenance of a run directory (``manifest.json``)."""

    schema_version: int = SCHEMA_VERSION
    run_id: str
    created_at: str
    updated_at: str
    status: Literal["running", "complete", "incomplete"]
    suite: SuiteRef
    model: ModelSpec
    """The model as the run used it: never a key, and its server URL without credentials."""
    strategy: str
    strategy_version: str
    prompt_version: str
    epochs: int
    limit: int | None
    kinds: list[str] | None
    max_connections: int
    requests_per_minute: float | None
    package_versions: dict[str, str]
    python: str
    platform: str
    git_revision: str | None
    totals: RunTotals = RunTotals()
    judges: list[JudgeDecision] = Field(default_factory=list)
    """Judges that scored this run, with the self-judge decision for each."""
    track: RunTrack = "scenarios"
    """What the run answered: benchmark scenarios, or the therapy track's questions (whose
    ids stand in ``Response.scenario_id``)."""
    judging: JudgeRequest | None = None
    """The judges asked for when the run started (``run --resume`` uses them again); None in
    runs made before this was recorded."""
    answer_mode: Literal["guided", "free"] = "free"
    """guided: the engine filled the answer fields and the model wrote the reply (see
    ``models.guided``); free: the model wrote the whole answer. Runs made before guided
    answers existed read as free."""
