"""Read the answer format a prompt asks for into an ``AnswerGuide`` (for guided answers).

The scenario prompt ends with a block such as::

    Answer in exactly this format:
    PERSON: <name, or nobody>
    EMOTION: <A, B or C>
    NEEDS_HELP: <yes or no>
    REPLY: <what you would say or do>

Every ``LABEL: <…>`` line but the reply's is a choice: its placeholder lists the allowed
values ("A, B or C", "yes or no"); the word "name" stands for the scene's participants, and
"nobody" is offered only when the placeholder offers it (``offers_nobody``). The guide follows
the prompt, so a new template version with other fields needs no change here. A prompt with
no format block (the therapist prompt) gets a guide with no fields: a free answer that stops
at another speaker's turn (``Patient:``) instead of running to the token limit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from empathybench.models.guided import NOBODY, AnswerGuide, GuidedField
from empathybench.records import ChatMessage

REPLY_LABEL = "REPLY"
_ADDRESSEE = re.compile(r"\bwords to ([^\W\d_][\w'-]*(?: [^\W\d_][\w'-]*){0,2})\.")
"""The person a prompt asks the reply to be written to ("Write your actual words to Budi.")."""
_FORMAT_LINE = re.compile(r"^([A-Z][A-Z_]*):\s*<([^>]*)>\s*$", re.MULTILINE)
_SPEAKER_LINE = re.compile(r"^([A-Z][A-Za-z'-]*(?: [A-Z][A-Za-z'-]*)?):(?:[ \t]|$)", re.MULTILINE)
"""A line that opens with a speaker ("Patient: …", "Therapist:", 'Efua: "…"')."""
_QUOTED_SPEAKER = re.compile(r'^([A-Z][A-Za-z\'-]{0,30}): "', re.MULTILINE)
_ALTERNATIVES = re.compile(r"\s*(?:,\s*or\s+|,\s*|\s+or\s+)\s*")
_OPTION = re.compile(r"^([A-Z])\) (.+?)\s*$", re.MULTILINE)
OptionScoring = Literal["letter", "letter+text", "text"]
OPTION_SCORING: OptionScoring = "letter+text"
"""What a lettered option is scored on: ``B``, ``B) sad`` (default: the option's words count,
as in the option list the model just read) or ``sad``. On SmolLM2-135M all three gave
0.32-0.37 emotion accuracy (``benchmarks/guided_answers.py scoring``)."""


def offers_nobody(placeholder: str) -> bool:
    """Whether a PERSON placeholder lets the answer be nobody (``<name, or nobody>``)."""
    return re.search(rf"\b{NOBODY}\b", placeholder, flags=re.IGNORECASE) is not None


def person_choices(placeholder: str, names: Sequence[str]) -> list[str]:
    """The participants' names, plus ``nobody`` when the placeholder offers it."""
    choices = list(dict.fromkeys(names))
    if offers_nobody(placeholder) and NOBODY not in choices:
        choices.append(NOBODY)
    return choices


def placeholder_choices(placeholder: str, names: Sequence[str]) -> list[str]:
    """The values a ``<…>`` placeholder allows: "A, B or C" → A, B, C; "name" → ``names``."""
    choices: list[str] = []
    for part in _ALTERNATIVES.split(placeholder.strip()):
        word = part.strip(" .")
        if word.lower() == "name":
            choices.extend(person_choices(placeholder, names))
        elif word and word.lower() != NOBODY:
            choices.append(word)
        elif word:
            choices.append(NOBODY)
    return list(dict.fromkeys(choices))


def answer_guide(
    messages: Sequence[ChatMessage],
    names: Sequence[str] = (),
    option_scoring: OptionScoring = OPTION_SCORING,
) -> AnswerGuide:
    """The guide for a prompt; ``names`` are the scene's people (else its speakers)."""
    prompt = next((m.content for m in reversed(messages) if m.role == "user"), "")
    speakers = list(dict.fromkeys(_SPEAKER_LINE.findall(prompt)))
    formats = _FORMAT_LINE.findall(prompt)
    if not formats:
        return AnswerGuide(stop_labels=speakers)
    people = list(names) or list(dict.fromkeys(_QUOTED_SPEAKER.findall(prompt)))
    options = dict(_OPTION.findall(prompt))
    fields: list[GuidedField] = []
    reply_label: str | None = None
    for label, placeholder in formats:
        if label == REPLY_LABEL:
            reply_label = label
            continue
        choices = placeholder_choices(placeholder, people)
        lettered = bool(choices) and all(choice in options for choice in choices)
        if lettered and option_scoring != "letter":
            texts = [
                options[c] if option_scoring == "text" else f"{c}) {options[c]}" for c in choices
            ]
            fields.append(GuidedField(label=label, choices=choices, scored=texts))
        elif choices:
            fields.append(GuidedField(label=label, choices=choices))
    labels = [label for label, _ in formats]
    named = _ADDRESSEE.findall(prompt)
    return AnswerGuide(
        fields=fields,
        reply_label=reply_label,
        stop_labels=list(dict.fromkeys(labels + speakers)),
        addressee=named[-1] if named and named[-1] in people else None,
    )
