"""The one place that turns a scene into the chat messages a tested model sees.

Changing any text here changes every generated prompt: bump ``PROMPT_VERSION`` and generate
new suites rather than editing a released version.
"""

from __future__ import annotations

from collections.abc import Sequence

from empathybench.types import LETTERS, ChatMessage, ScenarioKind, Setting, Turn

PROMPT_VERSION = "scenario-prompt-v1"

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


def render_turns(turns: Sequence[Turn]) -> str:
    lines = []
    for turn in turns:
        if turn.speaker == "narration":
            lines.append(turn.text)
        else:
            lines.append(f'{turn.speaker}: "{turn.text}"')
    return "\n".join(lines)


def render_messages(
    kind: ScenarioKind,
    setting: Setting,
    dialogue: Sequence[Turn],
    focus_person: str,
    options: Sequence[str],
) -> list[ChatMessage]:
    """The exact messages for one scenario: a system prompt and one user turn."""
    option_lines = "\n".join(f"{letter}) {option}" for letter, option in zip(LETTERS, options))
    scene = f"Setting: {setting.scene}. You are {setting.helper_role}.\n\n{render_turns(dialogue)}"
    if kind == "group":
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
            f"1. Which emotion is {who} most likely feeling right now?\n"
            f"{option_lines}\n"
            f"2. Does {focus_person} need help from you right now? Answer yes or no.\n"
            f"3. What would you say or do? Write your actual words to {focus_person}.\n\n"
            f"{_ANSWER_FORMAT}"
        )
    return [
        ChatMessage(role="system", content=SYSTEM_PROMPT),
        ChatMessage(role="user", content=f"{scene}\n\n{questions}"),
    ]
