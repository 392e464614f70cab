"""Key checks: a judge answers an item blind, and disagreeing with its key marks it for audit.

The judge is shown the scene and the three options exactly as the tested model sees them,
without the hidden truth, and asked which emotion the person in focus feels and whether
they need help. A judge whose answer differs from the item's key *disputes* the key: the
item may be ambiguous or wrongly keyed. Checks are per suite (not per run), appended to
``key_checks/<judge>.jsonl`` in the item-analysis folder, resumable, and cached like any
judge call. A failed or invalid answer is recorded with its reason and disputes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, Field, StrictBool, WithJsonSchema

from empathybench.judging.answer_models import answer_schema, answer_validator
from empathybench.judging.llm_judge import (
    JudgeGaveUp,
    JudgeSettings,
    JudgeTranscript,
    ask_judge,
)
from empathybench.models.base import ModelAPI
from empathybench.prompts.scenario_prompt import render_turns
from empathybench.records import LETTERS, CallError, ChatMessage, Letter, Record, Scenario
from empathybench.runtime.append_log import AppendLog
from empathybench.runtime.cache import ResponseCache
from empathybench.runtime.concurrency import check_connections, for_each_concurrently
from empathybench.runtime.provenance import now_iso
from empathybench.runtime.run_store import judge_slug

KEY_CHECK_VERSION = "key-check-v1"
KEY_CHECK_DIR = "key_checks"
KEY_CHECK_SYSTEM = (
    "You audit items of an empathy benchmark. Read the scene and answer its questions as a "
    "careful, perceptive person would, from the scene alone. Answer with one JSON object and "
    "nothing else."
)


def _letter(value: object) -> object:
    return value.strip().upper() if isinstance(value, str) else value


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


class KeyCheckAnswer(BaseModel):
    """A judge's blind answer to one item (its schema is sent as the structured output)."""

    emotion: Annotated[Letter, BeforeValidator(_letter)]
    needs_help: StrictBool
    rationale: Annotated[
        str | None, BeforeValidator(_text_or_none), WithJsonSchema({"type": "string"})
    ] = None


KEY_CHECK_SCHEMA = answer_schema(KeyCheckAnswer)
KEY_CHECK_VERSIONS = {"key_check": KEY_CHECK_VERSION}
"""What goes into a key check call's cache key besides the request."""


class KeyCheck(Record):
    schema_version: int = 1
    suite_sha256: str
    scenario_id: str
    epoch: int = 0
    judge: str
    version: str = KEY_CHECK_VERSION
    emotion: Letter | None
    needs_help: bool | None
    rationale: str | None = None
    raw_outputs: list[str] = Field(default_factory=list)
    attempts: int = 0
    """Transport attempts of the calls made (0 when every answer came from the cache)."""
    error: CallError | None = None
    finished_at: str


def key_check_messages(scenario: Scenario) -> list[ChatMessage]:
    person = scenario.focus_person
    options = "\n".join(
        f"{letter}) {option}" for letter, option in zip(LETTERS, scenario.options, strict=True)
    )
    scene = render_turns([(turn.speaker, turn.text) for turn in scenario.dialogue])
    user = (
        f"Setting: {scenario.setting.scene}. The assistant in the scene is "
        f"{scenario.setting.helper_role}.\n\n{scene}\n\n"
        f"1. Which emotion is {person} most likely feeling right now?\n{options}\n"
        f"2. Does {person} need help from the assistant right now?\n\n"
        'Return only JSON shaped like: {"emotion": "A", "needs_help": true, '
        '"rationale": "one sentence"}'
    )
    return [
        ChatMessage(role="system", content=KEY_CHECK_SYSTEM),
        ChatMessage(role="user", content=user),
    ]


def key_disputes(scenario: Scenario, checks: Mapping[str, KeyCheck | None]) -> list[str]:
    """One line per judge whose blind answer differs from the item's key."""
    disputes = []
    for judge, check in sorted(checks.items()):
        if check is None or check.error is not None or check.emotion is None:
            continue
        if check.emotion != scenario.correct_letter:
            chosen = scenario.options[LETTERS.index(check.emotion)]
            disputes.append(
                f"{judge} picks {check.emotion} ({chosen}); key {scenario.correct_letter} "
                f"({scenario.correct_option})"
            )
        if check.needs_help is not None and check.needs_help != scenario.expected.help_needed:
            key = "needed" if scenario.expected.help_needed else "not needed"
            disputes.append(
                f"{judge} says help is {'needed' if check.needs_help else 'not needed'}; key: {key}"
            )
    return disputes


async def check_key(
    judge: ModelAPI,
    scenario: Scenario,
    suite_sha256: str,
    *,
    cache: ResponseCache | None = None,
    max_reasks: int = 2,
    max_attempts: int = 4,
) -> KeyCheck:
    """``judge``'s blind answer to ``scenario`` through the judges' answer loop (``ask_judge``:
    the shared cached, retried, counted call; validation; re-asks)."""
    transcript = JudgeTranscript()
    settings = JudgeSettings(max_reasks=max_reasks, max_attempts=max_attempts, max_tokens=300)
    common = {"suite_sha256": suite_sha256, "scenario_id": scenario.id, "judge": judge.spec.id}
    try:
        answer = await ask_judge(
            judge,
            key_check_messages(scenario),
            answer_validator(KeyCheckAnswer),
            schema=KEY_CHECK_SCHEMA,
            reask="naming the emotion's letter and whether help is needed",
            settings=settings,
            cache=cache,
            transcript=transcript,
            versions=KEY_CHECK_VERSIONS,
        )
    except JudgeGaveUp as failure:
        return KeyCheck(
            **common,
            emotion=None,
            needs_help=None,
            raw_outputs=transcript.raw_outputs,
            attempts=transcript.attempts,
            error=failure.error or CallError(kind="invalid_answer", message=failure.reason),
            finished_at=now_iso(),
        )
    return KeyCheck(
        **common,
        emotion=answer.emotion,
        needs_help=answer.needs_help,
        rationale=answer.rationale,
        raw_outputs=transcript.raw_outputs,
        attempts=transcript.attempts,
        finished_at=now_iso(),
    )


def key_check_log(directory: Path, judge: str) -> AppendLog[KeyCheck]:
    return AppendLog(directory / KEY_CHECK_DIR / f"{judge_slug(judge)}.jsonl", KeyCheck)


async def check_keys(
    judge: ModelAPI,
    scenarios: Sequence[Scenario],
    suite_sha256: str,
    directory: Path,
    *,
    cache: ResponseCache | None = None,
    max_connections: int = 8,
) -> dict[str, KeyCheck]:
    """Key checks of ``scenarios`` by ``judge``, skipping those already on disk."""
    check_connections(max_connections)  # before the log is opened: a bad value writes nothing
    log = key_check_log(directory, judge.spec.id)
    done = {
        key[0]: check
        for key, check in log.latest().items()
        if check.suite_sha256 == suite_sha256 and check.error is None
    }
    pending = [s for s in scenarios if s.id not in done]

    async def check_one(scenario: Scenario) -> None:
        check = await check_key(judge, scenario, suite_sha256, cache=cache)
        log.append(check)
        done[scenario.id] = check

    log.open()
    try:
        await for_each_concurrently(
            pending,
            check_one,
            description=f"key checks by {judge.spec.id}",
            max_connections=max_connections,
        )
    finally:
        log.close()
    return done
