"""What a tested model sees of an item, and nothing else: the input of every baseline.

A ``VisibleItem`` is built from the prompt's user messages, the setting and the dialogue
(which the prompt renders), the options and the participants' names ordered as the scene
first names them. It holds no key and no hidden truth (emotion, goal, expected behaviour,
kind, provenance), so a baseline cannot read the answer by mistake. The person the questions
ask about is kept only where the prompt itself names them ("Which emotion is Sam ...").

Names vary from item to item and carry no signal by design, so the text features replace
them by placeholders: ``NAME`` for anyone, or ``SELF``/``OTHER`` when a line is read from the
point of view of one candidate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property

from empathybench.prompts.scenario_prompt import EMOTION_QUESTION_START, render_turns
from empathybench.records import Scenario

NAME = "xname"
SELF = "xself"
OTHER = "xother"


def names_pattern(names: tuple[str, ...]) -> re.Pattern[str] | None:
    """Whole-word pattern matching any of ``names`` (longest first), None without names."""
    if not names:
        return None
    alternatives = "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)")


@dataclass(frozen=True)
class SceneLine:
    """One dialogue line as rendered in the prompt, with the people it is about."""

    speaker: str | None
    """The participant speaking, None for narration."""
    text: str
    """As the tested model reads it: narration as is, speech as ``Name: "text"``."""
    people: tuple[str, ...]
    """Participants who speak or are named in the line, in the item's name order."""


@dataclass(frozen=True)
class VisibleItem:
    """The visible part of one item for one question, with the candidates to choose from."""

    prompt: str
    """The user messages of the prompt (setting, dialogue, questions, options)."""
    scene: str
    """The setting and dialogue alone, without questions and options."""
    lines: tuple[SceneLine, ...]
    options: tuple[str, ...]
    names: tuple[str, ...]
    """Participants' names, in the order the scene first names them."""
    candidates: tuple[str, ...] = ()
    """What the audited question's answer is chosen from."""
    asked: str | None = None
    """The participant the emotion question names, as the prompt shows it; None where the
    prompt names nobody (v1 group items ask the reader to find the person)."""

    def with_candidates(self, candidates: tuple[str, ...]) -> VisibleItem:
        return replace(self, candidates=candidates)

    @cached_property
    def _names(self) -> re.Pattern[str] | None:
        return names_pattern(self.names)

    def masked(self, text: str, self_name: str | None = None) -> str:
        """``text`` with names replaced: ``self_name`` by SELF and the others by OTHER, or
        every name by NAME when ``self_name`` is None."""
        pattern = self._names
        if pattern is None:
            return text
        if self_name is None:
            return pattern.sub(NAME, text)
        return pattern.sub(lambda match: SELF if match.group(0) == self_name else OTHER, text)

    @cached_property
    def masked_prompt(self) -> str:
        return self.masked(self.prompt)

    def lines_about(self, person: str) -> tuple[SceneLine, ...]:
        return tuple(line for line in self.lines if person in line.people)


def visible_item(item: Scenario) -> VisibleItem:
    """The visible view of ``item`` (candidates are set per question by the caller)."""
    dialogue = "\n".join(render_turns([(turn.speaker, turn.text)]) for turn in item.dialogue)
    participants = tuple(participant.name for participant in item.participants)
    pattern = names_pattern(participants)
    first_seen: dict[str, int] = {}
    if pattern is not None:
        for match in pattern.finditer(dialogue):
            first_seen.setdefault(match.group(0), match.start())
    order = {name: position for position, name in enumerate(participants)}
    names = tuple(sorted(participants, key=lambda n: (first_seen.get(n, len(dialogue)), order[n])))
    lines = []
    for turn in item.dialogue:
        speaker = turn.speaker if turn.speaker in order else None
        text = render_turns([(turn.speaker, turn.text)])
        named = {match.group(0) for match in pattern.finditer(text)} if pattern else set()
        if speaker is not None:
            named.add(speaker)
        lines.append(SceneLine(speaker, text, tuple(n for n in names if n in named)))
    prompt = "\n\n".join(m.content for m in item.messages if m.role == "user")
    return VisibleItem(
        prompt=prompt,
        scene=f"{item.setting.scene}.\n{dialogue}",
        lines=tuple(lines),
        options=tuple(item.options),
        names=names,
        asked=asked_person(prompt, names),
    )


def asked_person(prompt: str, names: tuple[str, ...]) -> str | None:
    """The participant the prompt's emotion question names: read from the last "Which
    emotion is" (the questions follow the dialogue, which could quote those words), longest
    name first, so "Ann" never matches a question about "Anna"."""
    start = prompt.rfind(EMOTION_QUESTION_START)
    if start < 0:
        return None
    question = prompt[start + len(EMOTION_QUESTION_START) :]
    for name in sorted(names, key=len, reverse=True):
        if question.startswith(f"{name} "):
            return name
    return None
