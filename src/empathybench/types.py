"""Pydantic models for everything the stages write to disk.

Every record carries the ids that tie it back to where it came from. Field order is part of
the on-disk format: JSONL is written in declaration order, so reordering fields changes
suite bytes (and therefore suite hashes).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
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
SCENARIO_KINDS: tuple[ScenarioKind, ...] = (
    "emotion_support",
    "positive_control",
    "harmful_belief",
    "harmful_belief_roleplay",
    "crisis",
    "group",
)

Dimension = Literal[
    "moral_behavior",
    "willingness_to_help",
    "emotion_recognition",
    "cheering_up",
    "assistance_needed",
    "assistance_appropriateness",
]
DIMENSIONS: tuple[Dimension, ...] = (
    "moral_behavior",
    "willingness_to_help",
    "emotion_recognition",
    "cheering_up",
    "assistance_needed",
    "assistance_appropriateness",
)

AssistanceType = Literal[
    "emotional_support",
    "practical_help",
    "information",
    "challenge_belief",
    "crisis_referral",
    "celebrate",
    "no_action_needed",
]
Letter = Literal["A", "B", "C"]
LETTERS: tuple[Letter, ...] = ("A", "B", "C")
Valence = Literal["positive", "negative"]


class Record(BaseModel):
    """Base of every persisted model: unknown fields are errors, values are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class ChatMessage(Record):
    role: Literal["system", "user", "assistant"]
    content: str


class Participant(Record):
    name: str
    pronouns: Literal["she", "he", "they"]
    role: str


class Turn(Record):
    """One line of the scene: narration, or something a named person says."""

    speaker: str
    """``"narration"`` or the name of the person speaking."""
    text: str


class Setting(Record):
    location_id: str
    scene: str
    helper_role: str
    """Who the tested model is in the scene ('the station's help-desk robot')."""


class EmotionTruth(Record):
    name: str
    valence: Valence
    intensity: int = Field(ge=1, le=3)
    cluster: str


class ExpectedBehaviour(Record):
    help_needed: bool
    assistance: list[AssistanceType] = Field(min_length=1)
    crisis_resources_expected: bool
    guidance: str | None = None
    """Extra guidance for judges (e.g. what a kinder perspective on a belief looks like)."""
    help_person: str | None = None
    """Group items of template v2 on: who needs help (``None`` with ``help_needed`` false:
    nobody). Not written when ``None``, so version-1 suites keep their exact bytes."""

    @model_serializer(mode="wrap")
    def _omit_unset_help_person(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("help_person") is None:
            data.pop("help_person", None)
        return data


class Provenance(Record):
    """Where an item came from: enough to regenerate it and to audit template coverage."""

    seed: int
    rank: int
    """Position of the item among the seed's items of its kind."""
    space_index: int
    """Index of the template combination within its kind's space."""
    templates: dict[str, str]
    """Template ids the item was built from (situation, location, goal, belief, ...)."""


class Scenario(Record):
    schema_version: int = SCHEMA_VERSION
    id: str
    kind: ScenarioKind
    template_version: str
    prompt_version: str
    setting: Setting
    participants: list[Participant] = Field(min_length=1)
    focus_person: str
    dialogue: list[Turn] = Field(min_length=1)
    goal: str | None
    """The focus person's hidden goal in their own words, when the item has one."""
    emotion: EmotionTruth
    options: list[str] = Field(min_length=3, max_length=3)
    correct_letter: Letter
    expected: ExpectedBehaviour
    dimensions: list[Dimension] = Field(min_length=1)
    messages: list[ChatMessage] = Field(min_length=1)
    provenance: Provenance

    @property
    def correct_option(self) -> str:
        return self.options[LETTERS.index(self.correct_letter)]

    @property
    def answers_in_reply(self) -> bool:
        """True for items of the original benchmark: the model is asked no EMOTION or
        NEEDS_HELP question, so those dimensions are judged from the reply (the options hold
        the original's accepted emotion words and are never shown)."""
        return self.template_version == ORIGINAL_TEMPLATE_VERSION

    @property
    def group_help_key(self) -> str | None:
        """Who needs help, for group items that ask it (template v2 on): a name, or
        ``"nobody"``. ``None`` for other items and for v1 group items, which presuppose
        that the person in focus needs support."""
        if self.kind != "group":
            return None
        if self.expected.help_person is not None:
            return self.expected.help_person
        return None if self.expected.help_needed else "nobody"

    @property
    def reply_addressee(self) -> str | None:
        """The person a reply should be for: the help person in a v2 group item (``None``
        when nobody needs help), otherwise the person in focus."""
        key = self.group_help_key
        if key is None:
            return self.focus_person
        return None if key == "nobody" else key


class SuiteInfo(Record):
    """Metadata of a suite file; ``sha256`` is over the exact bytes of its JSONL."""

    schema_version: int = SCHEMA_VERSION
    name: str
    description: str
    file: str
    sha256: str
    n: int
    seed: int
    kinds: dict[str, int]
    """Item count per kind."""
    letters: dict[str, int]
    template_version: str
    template_sha256: str
    prompt_version: str
    generator_version: str


RunTrack = Literal["scenarios", "therapy"]


class Suite(BaseModel):
    """A suite in memory: its metadata (when known) and its scenarios.

    It is one kind of what a run answers (see ``runner.ItemSet``); the therapy track's
    question sets are the other.
    """

    model_config = ConfigDict(frozen=True)

    name: str
    sha256: str
    scenarios: tuple[Scenario, ...]
    info: SuiteInfo | None = None
    source: str | None = None
    """How to load it again (a bundled name or a file's absolute path); None for a suite
    made in memory, which a run writes into its directory."""

    @property
    def track(self) -> RunTrack:
        return "scenarios"

    @property
    def items(self) -> tuple[Scenario, ...]:
        return self.scenarios

    @property
    def origin(self) -> SuiteOrigin:
        """``original-benchmark`` when every item comes from the original benchmark's files."""
        if self.scenarios and all(s.answers_in_reply for s in self.scenarios):
            return "original-benchmark"
        return "empathybench"

    @property
    def prompt_version(self) -> str:
        """The prompt version of the suite's scenarios (one per generated suite)."""
        versions = sorted({scenario.prompt_version for scenario in self.scenarios})
        return "+".join(versions)


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


SuiteOrigin = Literal["empathybench", "original-benchmark"]


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


class RunManifest(Record):
    """The configuration and provenance of a run directory (``manifest.json``)."""

    schema_version: int = SCHEMA_VERSION
    run_id: str
    created_at: str
    updated_at: str
    status: Literal["running", "complete", "incomplete"]
    suite: SuiteRef
    model: dict[str, object]
    """The ModelSpec, as written (never holds a key)."""
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


ScoreStatus = Literal["scored", "na", "unscored"]
NoReplyKind = Literal[
    "empty",
    "empty_reply",
    "placeholder",
    "options_only",
    "scene_only",
    "answer_lines_only",
    "labels_only",
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


class JudgeDecision(Record):
    """Why a judge was allowed to score a run (recorded in the manifest)."""

    judge: str
    judge_family: str | None
    tested_family: str | None
    same_family: bool
    allowed: bool
    reason: str


RunManifest.model_rebuild()
