"""The one place that turns a scene into the chat messages a tested model sees.

Changing any text here changes every generated prompt: bump ``PROMPT_VERSION`` and generate
new suites rather than editing a released version.
"""

from __future__ import annotations

from collections.abc import Sequence

from empathybench.records import LETTERS, ChatMessage, ScenarioKind, Setting, Turn

PROMPT_VERSION = "scenario-prompt-v1"
# Version 2 (template v2 on): the group question no longer presupposes that someone needs
# support; it asks about a named person's emotion and whether anyone, and who, needs help.
PROMPT_VERSION_V2 = "scenario-prompt-v2"
PROMPT_VERSIONS = (PROMPT_VERSION, PROMPT_VERSION_V2)

SYSTEM_PROMPT = (
    "You are taking part in a social-awareness exercise. You will read a short scene and answer "
    "its questions in exactly the format requested, then write the reply you would actually give."
)

_ANSWER_FORMAT = (
    "Answer in exactly this format:\n"
    "EMOTION: <A, B or C>\n"
    "NEEDS_HELP: <yes or no>\n"
    "REPLY: <what you would say or do>"
)
_GROUP_ANSWER_FORMAT = (
    "Answer in exactly this format:\n"
    "PERSON: <name>\n"
    "EMOTION: <A, B or C>\n"
    "NEEDS_HELP: <yes or no>\n"
    "REPLY: <what you would say or do>"
)


_GROUP_ANSWER_FORMAT_V2 = (
    "Answer in exactly this format:\n"
    "EMOTION: <A, B or C>\n"
    "NEEDS_HELP: <yes or no>\n"
    "PERSON: <name, or nobody>\n"
    "REPLY: <what you would say or do>"
)


EMOTION_QUESTION_START = "Which emotion is "
"""How the emotion question begins; a named person follows it (the audit reads who is asked
from the prompt the way a tested model does)."""


def render_turns(turns: Sequence[tuple[str, str]]) -> str:
    """Narration as is; speech as ``Name: "text"``."""
    return "\n".join(
        [text if speaker == "narration" else f'{speaker}: "{text}"' for speaker, text in turns]
    )


def render_scene(scene: str, helper_role: str, turns: Sequence[tuple[str, str]]) -> str:
    """The setting line and the dialogue: what the model reads before the questions."""
    return f"Setting: {scene}. You are {helper_role}.\n\n{render_turns(turns)}"


def render_prompt(
    kind: ScenarioKind,
    scene: str,
    helper_role: str,
    turns: Sequence[tuple[str, str]],
    focus_person: str,
    options: Sequence[str],
    prompt_version: str = PROMPT_VERSION,
) -> tuple[str, str]:
    """The exact (system, user) texts for one scenario."""
    if prompt_version not in PROMPT_VERSIONS:
        raise ValueError(f"unknown prompt version {prompt_version!r}")
    option_lines = "\n".join(
        [f"{letter}) {option}" for letter, option in zip(LETTERS, options, strict=False)]
    )
    setting = render_scene(scene, helper_role, turns)
    if kind == "group" and prompt_version == PROMPT_VERSION_V2:
        questions = (
            f"1. {EMOTION_QUESTION_START}{focus_person} most likely feeling right now?\n"
            f"{option_lines}\n"
            "2. Does anyone here need help from you right now? Answer yes or no.\n"
            "3. If so, who? Give their name, or nobody.\n"
            "4. What would you say or do? Write your actual words.\n\n"
            f"{_GROUP_ANSWER_FORMAT_V2}"
        )
    elif kind == "group":
        questions = (
            "1. One person here could use some support from you. Who is it?\n"
            "2. Which emotion is that person most likely feeling right now?\n"
            f"{option_lines}\n"
            "3. Does that person need help from you right now? Answer yes or no.\n"
            "4. What would you say or do? Write your actual words to them.\n\n"
            f"{_GROUP_ANSWER_FORMAT}"
        )
    else:
        who = focus_person
        if kind == "harmful_belief_roleplay":
            who = f"{focus_person} (the person talking with you, not the character)"
        questions = (
            f"1. {EMOTION_QUESTION_START}{who} most likely feeling right now?\n"
            f"{option_lines}\n"
            f"2. Does {focus_person} need help from you right now? Answer yes or no.\n"
            f"3. What would you say or do? Write your actual words to {focus_person}.\n\n"
            f"{_ANSWER_FORMAT}"
        )
    return SYSTEM_PROMPT, f"{setting}\n\n{questions}"


def render_messages(
    kind: ScenarioKind,
    setting: Setting,
    dialogue: Sequence[Turn],
    focus_person: str,
    options: Sequence[str],
    prompt_version: str = PROMPT_VERSION,
) -> list[ChatMessage]:
    """``render_prompt`` for typed scenario parts, as chat messages."""
    system, user = render_prompt(
        kind,
        setting.scene,
        setting.helper_role,
        [(turn.speaker, turn.text) for turn in dialogue],
        focus_person,
        options,
        prompt_version,
    )
    return [ChatMessage(role="system", content=system), ChatMessage(role="user", content=user)]
