"""A scripted, deterministic model for tests and dry runs (no network, no weights).

From the command line, ``mock/NAME`` answers every scenario prompt in the benchmark's
format with a letter and yes/no derived from a hash of the prompt, so runs are
reproducible (any other prompt, such as the therapist prompt, gets one of a few fixed
replies, again chosen by the hash); asked for JSON (a judge request), it fills the
requested schema the same way, so two mock judges with different names disagree
deterministically. Options: ``latency``
(seconds per call), ``fail_every`` (every k-th distinct prompt fails its first
``fail_times`` attempts with ``fail_kind``), ``call_log`` (a file that gets one line per
call, so tests in another process can count calls).

In Python, pass ``script=`` — a function of (request, attempt) returning a ModelOutput,
a string, or raising ModelCallError — to play any sequence of answers and faults.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from collections import Counter
from collections.abc import Callable
from typing import Any, cast, get_args

from empathybench.errors import UserError
from empathybench.models.base import ErrorKind, ModelCallError, ModelOutput, ModelRequest, ModelSpec

Script = Callable[[ModelRequest, int], "ModelOutput | str"]


def request_fingerprint(request: ModelRequest) -> str:
    digest = hashlib.sha256()
    for message in request.messages:
        digest.update(f"{message.role}\x1f{message.content}\x1e".encode())
    return digest.hexdigest()


FREE_REPLIES = (
    "That sounds really hard, and it makes sense that you feel this way. You don't have to "
    "sort it all out at once: could we start with what is weighing on you most this week?",
    "Try to keep a regular routine, get some exercise and write down what triggers it. "
    "If it continues, see a professional.",
    "I hear how exhausted and alone you have been feeling. That is a lot to carry. One small "
    "step could be telling one person you trust how things really are; would that be possible?",
)
"""Replies to prompts outside the benchmark's answer format (warm, terse, and in between)."""


def default_answer(request: ModelRequest, model_name: str) -> str:
    """A well-formed benchmark answer chosen by a hash of the prompt and model name."""
    fingerprint = hashlib.sha256((model_name + request_fingerprint(request)).encode()).digest()
    letter = "ABC"[fingerprint[0] % 3]
    needs_help = "yes" if fingerprint[1] % 4 else "no"
    prompt = request.messages[-1].content
    if "EMOTION:" not in prompt:  # not a benchmark item (e.g. the therapist prompt): just reply
        return FREE_REPLIES[fingerprint[2] % len(FREE_REPLIES)]
    person = ""
    if "PERSON:" in prompt:
        person = "PERSON: someone\n"
    return (
        f"{person}EMOTION: {letter}\nNEEDS_HELP: {needs_help}\n"
        "REPLY: That sounds like a lot to deal with. I'm here with you; what would help "
        "most right now?"
    )


def schema_answer(schema: dict[str, Any], salt: str) -> str:
    """A JSON answer filling every required field of ``schema`` from a hash of ``salt``."""
    answer: dict[str, object] = {}
    properties = schema.get("properties", {})
    for index, name in enumerate(schema.get("required", [])):
        digest = hashlib.sha256(f"{salt}:{name}:{index}".encode()).digest()
        field = properties.get(name, {})
        if field.get("type") == "boolean":
            answer[name] = digest[0] % 2 == 0
        elif field.get("enum"):
            answer[name] = field["enum"][digest[0] % len(field["enum"])]
        elif field.get("type") == "object":
            choices = field.get("properties", {}).get("score", {}).get("enum") or [0, 0.5, 1]
            answer[name] = {"score": choices[digest[0] % len(choices)], "rationale": "scripted"}
        else:
            answer[name] = "scripted"
    return json.dumps(answer)


class MockModel:
    def __init__(self, spec: ModelSpec, script: Script | None = None) -> None:
        self.spec = spec
        self._script = script
        self.calls: Counter[str] = Counter()
        """Calls received per request fingerprint (attempts included)."""

    async def generate(self, request: ModelRequest) -> ModelOutput:
        fingerprint = request_fingerprint(request)
        self.calls[fingerprint] += 1
        attempt = self.calls[fingerprint]
        log = self.spec.options.get("call_log")
        if log:
            with open(str(log), "a", encoding="utf-8") as handle:
                handle.write(f"{os.getpid()} {fingerprint}\n")
        latency = float(self.spec.options.get("latency", 0.0))
        if latency:
            await asyncio.sleep(latency)
        if self._script is not None:
            result = self._script(request, attempt)
            if isinstance(result, ModelOutput):
                return result
            text = result
        else:
            self._scripted_failure(fingerprint, attempt)
            if request.json_schema is not None:
                text = schema_answer(request.json_schema, self.spec.name + fingerprint)
            else:
                text = default_answer(request, self.spec.name)
        words = sum(len(m.content.split()) for m in request.messages)
        return ModelOutput(
            text=text,
            input_tokens=words,
            output_tokens=len(text.split()),
            provider_model=self.spec.id,
        )

    def _scripted_failure(self, fingerprint: str, attempt: int) -> None:
        every = int(self.spec.options.get("fail_every", 0))
        if not every or int(fingerprint[:8], 16) % every:
            return
        if attempt <= int(self.spec.options.get("fail_times", 1)):
            kind = str(self.spec.options.get("fail_kind", "server"))
            if kind not in get_args(ErrorKind):
                raise UserError(
                    f"mock option fail_kind={kind!r} is not one of {get_args(ErrorKind)}"
                )
            raise ModelCallError(
                cast(ErrorKind, kind),
                f"scripted {kind} failure",
                status=503,
                retry_after=0.0 if kind == "rate_limit" else None,
            )

    @property
    def total_calls(self) -> int:
        return sum(self.calls.values())

    async def aclose(self) -> None:
        return None
