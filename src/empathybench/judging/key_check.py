"""Key checks: a judge answers an item blind, and disagreeing with its key marks it for audit.

The judge is shown the scene and the three options exactly as the tested model sees them,
without the hidden truth, and asked which emotion the person in focus feels and whether
they need help. A judge whose answer differs from the item's key *disputes* the key: the
item may be ambiguous or wrongly keyed. Checks are per suite (not per run), appended to
``key_checks/<judge>.jsonl`` in the item-analysis folder, resumable, and cached like any
judge call. A failed or invalid answer is recorded with its reason and disputes nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import Field

from empathybench.judging.llm_judge import JudgeAnswerError, single_json_object
from empathybench.models.base import (
    GenerationParams,
    ModelAPI,
    ModelCallError,
    ModelOutput,
    ModelRequest,
)
from empathybench.prompts.scenario_prompt import render_turns
from empathybench.records import LETTERS, CallError, ChatMessage, Letter, Record, Scenario
from empathybench.runtime.append_log import AppendLog
from empathybench.runtime.cache import ResponseCache, cache_key
from empathybench.runtime.concurrency import check_connections
from empathybench.runtime.provenance import now_iso
from empathybench.runtime.retry import call_with_retries
from empathybench.runtime.run_store import judge_slug

KEY_CHECK_VERSION = "key-check-v1"
KEY_CHECK_DIR = "key_checks"
KEY_CHECK_SYSTEM = (
    "You audit items of an empathy benchmark. Read the scene and answer its questions as a "
    "careful, perceptive person would, from the scene alone. Answer with one JSON object and "
    "nothing else."
)
KEY_CHECK_SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {
        "emotion": {"type": "string", "enum": list(LETTERS)},
        "needs_help": {"type": "boolean"},
        "rationale": {"type": "string"},
    },
    "required": ["emotion", "needs_help", "rationale"],
    "additionalProperties": False,
}


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


def parse_key_check(text: str) -> tuple[Letter, bool, str | None]:
    data = single_json_object(text)
    emotion = data.get("emotion")
    if not isinstance(emotion, str) or emotion.strip().upper() not in LETTERS:
        raise JudgeAnswerError("emotion must be A, B or C")
    needs_help = data.get("needs_help")
    if not isinstance(needs_help, bool):
        raise JudgeAnswerError("needs_help must be true or false")
    rationale = data.get("rationale")
    letter: Letter = LETTERS[LETTERS.index(emotion.strip().upper())]
    return letter, needs_help, rationale if isinstance(rationale, str) else None


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
    messages = key_check_messages(scenario)
    raw: list[str] = []
    problem = "no answer"
    common = {"suite_sha256": suite_sha256, "scenario_id": scenario.id, "judge": judge.spec.id}
    for _ in range(max_reasks + 1):
        request = ModelRequest(
            messages=messages,
            params=GenerationParams(temperature=0.0, max_tokens=300),
            json_schema=KEY_CHECK_SCHEMA,
        )
        try:
            output = await _generate(judge, request, cache, max_attempts)
        except ModelCallError as error:
            return KeyCheck(
                **common,
                emotion=None,
                needs_help=None,
                raw_outputs=raw,
                error=CallError(kind=error.kind, message=error.message, status=error.status),
                finished_at=now_iso(),
            )
        raw.append(output.text)
        try:
            letter, needs_help, rationale = parse_key_check(output.text)
        except JudgeAnswerError as error:
            problem = str(error)
            messages = [
                *messages,
                ChatMessage(role="assistant", content=output.text or "(empty)"),
                ChatMessage(
                    role="user",
                    content=f"That answer could not be used: {problem}. "
                    "Reply again with only the JSON object.",
                ),
            ]
            continue
        return KeyCheck(
            **common,
            emotion=letter,
            needs_help=needs_help,
            rationale=rationale,
            raw_outputs=raw,
            finished_at=now_iso(),
        )
    return KeyCheck(
        **common,
        emotion=None,
        needs_help=None,
        raw_outputs=raw,
        error=CallError(kind="invalid_answer", message=problem),
        finished_at=now_iso(),
    )


async def _generate(
    judge: ModelAPI, request: ModelRequest, cache: ResponseCache | None, max_attempts: int
) -> ModelOutput:
    key = cache_key(judge.spec, request, epoch=0, versions={"key_check": KEY_CHECK_VERSION})
    cached = cache.get(key) if cache is not None else None
    if cached is not None:
        return cached

    async def call() -> ModelOutput:
        return await judge.generate(request)

    output = await call_with_retries(call, max_attempts=max_attempts)
    if cache is not None:
        cache.put(key, judge.spec.id, output)
    return output


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
    check_connections(max_connections)
    log = key_check_log(directory, judge.spec.id)
    done = {
        key[0]: check
        for key, check in log.latest().items()
        if check.suite_sha256 == suite_sha256 and check.error is None
    }
    pending = iter([s for s in scenarios if s.id not in done])
    log.open()
    try:

        async def worker() -> None:
            for scenario in pending:
                check = await check_key(judge, scenario, suite_sha256, cache=cache)
                log.append(check)
                done[scenario.id] = check

        await asyncio.gather(*(worker() for _ in range(max_connections)))
    finally:
        log.close()
    return done
