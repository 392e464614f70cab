"""Scenario items and suites: what ``generate`` writes and ``run`` reads."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from empathybench.records.base import (
    LETTERS,
    ORIGINAL_TEMPLATE_VERSION,
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
