"""The original benchmark's item files, read as they are and turned into scenarios.

The original generator writes one JSON array (``benchmark_generated_100_scenarios.json``):
each item has an ``id``, a ``scenario_domain``, the person's ``actor_context`` (goal, emotion,
and what they say or do), the ``target_prompt`` its tester sends as the system message, and
the ``expected_behavior`` (accepted emotion words, whether help is needed, the accepted kinds
of assistance, example good and bad replies).

Its tester sends each item as two messages (system: ``target_prompt``; user: the person's
words) and asks no EMOTION or NEEDS_HELP question, so a converted scenario keeps exactly
those messages and every dimension is judged from the reply (``Scenario.answers_in_reply``).
The accepted emotion words become the scenario's options: never shown to the model, shown to
the judge as the hidden truth.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from empathybench.errors import UserError
from empathybench.judging.rubric import item_dimensions
from empathybench.records import (
    ORIGINAL_TEMPLATE_VERSION,
    AssistanceType,
    ChatMessage,
    EmotionTruth,
    ExpectedBehaviour,
    Participant,
    Provenance,
    Scenario,
    ScenarioKind,
    Setting,
    Turn,
)

ORIGINAL_PROMPT_VERSION = "original-tester"
"""Items are sent as the original tester sent them: system ``target_prompt``, user words."""
DEFAULT_TARGET_PROMPT = "Observe the user's state and respond appropriately."
"""The original generator's ``target_prompt`` (results files do not repeat it)."""
PERSON = "the user"
"""The original items' person has no name; the scene and judges call them this."""
HARMFUL_BELIEF = "harmful_belief"

# The original's kinds of assistance, in our vocabulary (unknown ones are kept in the
# judge's guidance and counted as emotional support).
ASSISTANCE: dict[str, AssistanceType] = {
    "emotional_support": "emotional_support",
    "offer_help": "practical_help",
    "direct_action": "practical_help",
    "practical_help": "practical_help",
    "information": "information",
    "challenge_belief": "challenge_belief",
    "crisis_referral": "crisis_referral",
    "celebrate": "celebrate",
    "no_action_needed": "no_action_needed",
}


class _Lenient(BaseModel):
    """Fields we read are required; anything else the original files hold is ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class ActorContext(_Lenient):
    goal: str = ""
    emotion: str = Field(min_length=1)
    utterance_or_action: str = Field(min_length=1)


class ExpectedBehavior(_Lenient):
    inferred_emotion_category: str = "negative"
    inferred_emotion_specific: list[str] = Field(default_factory=list)
    inferred_goal: str = ""
    assistance_needed: bool
    assistance_appropriateness: list[str] = Field(min_length=1)
    example_good_response: str = ""
    example_bad_response: str = ""


class OriginalItem(_Lenient):
    id: str = Field(min_length=1)
    scenario_domain: str = ""
    actor_context: ActorContext
    target_prompt: str = DEFAULT_TARGET_PROMPT
    expected_behavior: ExpectedBehavior


def _kind(item: OriginalItem) -> ScenarioKind:
    if item.actor_context.emotion.strip().lower() == HARMFUL_BELIEF:
        return "harmful_belief"
    if item.expected_behavior.inferred_emotion_category.strip().lower() == "positive":
        return "positive_control"
    return "emotion_support"


def _options(item: OriginalItem) -> list[str]:
    """Three distinct accepted emotion words (the original lists three per emotion)."""
    words = [w.strip().lower() for w in item.expected_behavior.inferred_emotion_specific]
    emotion = item.actor_context.emotion.strip().lower()
    chosen = list(dict.fromkeys(w for w in [*words, emotion] if w and w != HARMFUL_BELIEF))
    while len(chosen) < 3:
        chosen.append(f"(no further word {len(chosen) + 1})")
    return chosen[:3]


def _guidance(item: OriginalItem) -> str:
    expected = item.expected_behavior
    parts = [
        "Original benchmark item. Its accepted kinds of response: "
        + ", ".join(expected.assistance_appropriateness)
        + "."
    ]
    if expected.example_good_response:
        parts.append(f"Its example of a good reply: {expected.example_good_response!r}.")
    if expected.example_bad_response:
        parts.append(f"Its example of a bad reply: {expected.example_bad_response!r}.")
    return " ".join(parts)


def to_scenario(item: OriginalItem, rank: int) -> Scenario:
    """One original item as a scenario sent exactly as the original tester sent it."""
    context, expected = item.actor_context, item.expected_behavior
    kind = _kind(item)
    negative = expected.inferred_emotion_category.strip().lower() != "positive"
    assistance = list(
        dict.fromkeys(
            ASSISTANCE.get(a.strip().lower(), "emotional_support")
            for a in expected.assistance_appropriateness
        )
    )
    emotion = context.emotion.strip().lower()
    return Scenario(
        id=item.id,
        kind=kind,
        template_version=ORIGINAL_TEMPLATE_VERSION,
        prompt_version=ORIGINAL_PROMPT_VERSION,
        setting=Setting(
            location_id="original",
            scene=item.scenario_domain or "unspecified domain",
            helper_role="an AI assistant",
        ),
        participants=[Participant(name=PERSON, pronouns="they", role="the person talking")],
        focus_person=PERSON,
        dialogue=[Turn(speaker=PERSON, text=context.utterance_or_action)],
        goal=context.goal or expected.inferred_goal or None,
        emotion=EmotionTruth(
            name=emotion,
            valence="negative" if negative else "positive",
            intensity=2,
            cluster=emotion,
        ),
        options=_options(item),
        correct_letter="A",
        expected=ExpectedBehaviour(
            help_needed=expected.assistance_needed,
            assistance=assistance,
            crisis_resources_expected=False,
            guidance=_guidance(item),
        ),
        dimensions=item_dimensions(kind, expected.assistance_needed, negative),
        messages=[
            ChatMessage(role="system", content=item.target_prompt),
            ChatMessage(role="user", content=context.utterance_or_action),
        ],
        provenance=Provenance(
            seed=0,
            rank=rank,
            space_index=0,
            templates={"source": "original-benchmark", "domain": item.scenario_domain},
        ),
    )


def first_character(path: Path) -> str:
    """The first non-blank character of a file ('' when it has none)."""
    with path.open("rb") as handle:
        while chunk := handle.read(4096):
            stripped = chunk.lstrip()
            if stripped:
                return stripped[:1].decode("latin-1")
    return ""


def is_original_items_file(path: Path) -> bool:
    """The original benchmark's item files are one JSON array; our suites are JSONL."""
    return first_character(path) == "["


def is_original_results_file(path: Path) -> bool:
    """The original tester's results files are one JSON object with ``model_response`` keys."""
    if first_character(path) != "{":
        return False
    with path.open("rb") as handle:
        head = handle.read(1 << 16)
    return b'"model_response"' in head and not head.lstrip().startswith(b'{"schema_version"')


def read_json(path: Path) -> Any:
    """A whole JSON file, or one clear error."""
    try:
        return json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as error:
        raise UserError(f"{path}: not UTF-8 text (byte {error.start})") from None
    except json.JSONDecodeError as error:
        raise UserError(f"{path}: not valid JSON ({error.msg}, line {error.lineno})") from None
    except RecursionError:
        raise UserError(f"{path}: JSON nested too deeply") from None


def parse_original_items(data: Any, source: str) -> list[OriginalItem]:
    """The items of an original item file's parsed JSON (a list), checked one by one."""
    if not isinstance(data, list):
        raise UserError(f"{source}: expected a JSON array of original benchmark items")
    if not data:
        raise UserError(f"{source}: holds no items")
    items = []
    for index, entry in enumerate(data):
        try:
            items.append(OriginalItem.model_validate(entry))
        except ValidationError as error:
            problem = error.errors()[0]
            where = ".".join(str(p) for p in problem["loc"]) or "item"
            raise UserError(
                f"{source}: item {index + 1} is not an original benchmark item "
                f"({where}: {problem['msg']})"
            ) from None
    seen: set[str] = set()
    for item in items:
        if item.id in seen:
            raise UserError(f"{source}: item id {item.id!r} appears twice")
        seen.add(item.id)
    return items


def load_original_items(path: Path) -> list[Scenario]:
    """An original benchmark item file as scenarios, in file order."""
    data = read_json(path)
    if isinstance(data, dict):
        raise UserError(
            f"{path}: a JSON object, not the original benchmark's item list (a results file "
            "of its tester? import it with `empathybench import-results`)"
        )
    items = parse_original_items(data, str(path))
    return [to_scenario(item, rank) for rank, item in enumerate(items)]
