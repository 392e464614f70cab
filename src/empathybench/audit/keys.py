"""The answer keys the audit scores against, one small function per question.

Keys are strings, so every baseline answers by choosing one of an item's candidate strings:
an option's text (emotion), ``yes``/``no`` (help), or a participant's name or ``nobody``
(who, group items only).

``AnswerKeys`` is the hook for other key sources: the audited suite's keys come from an
``AnswerKeys`` object (``GeneratedKeys`` by default), so an annotation store can supply human
keys for the audited items without touching the baselines. Training keys are always the
generated ones.
"""

from __future__ import annotations

from typing import Literal, Protocol, get_args

from empathybench.records import Scenario

Question = Literal["emotion", "help", "who"]
QUESTIONS: tuple[Question, ...] = get_args(Question)

YES = "yes"
NO = "no"
NOBODY = "nobody"
"""The who-key of a group item in which nobody needs help."""


def emotion_key(item: Scenario) -> str:
    """The keyed option's text (the item's emotion name)."""
    return item.correct_option


def help_key(item: Scenario) -> str:
    return YES if item.expected.help_needed else NO


def group_help_key(item: Scenario) -> str:
    """Who in a group item needs help: a participant's name, or ``NOBODY``
    (``Scenario.group_help_key``; v1 group items presuppose it is the person in focus)."""
    return item.group_help_key or item.focus_person


def is_group_item(item: Scenario) -> bool:
    return item.kind == "group"


class AnswerKeys(Protocol):
    """Where the audited suite's keys come from; None leaves the item out of that question."""

    def key(self, item: Scenario, question: Question) -> str | None: ...


class GeneratedKeys:
    """The keys the generator wrote into the items."""

    def key(self, item: Scenario, question: Question) -> str | None:
        if question == "emotion":
            return emotion_key(item)
        if question == "help":
            return help_key(item)
        return group_help_key(item) if is_group_item(item) else None
