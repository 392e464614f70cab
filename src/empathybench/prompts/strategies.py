"""Prompt strategies: how the scenario's messages are framed before they reach a model.

Each strategy is versioned; the version goes into the run manifest and the cache key, so
changing a strategy's wording means a new version, never a silent change.

- ``plain``: the scenario's messages as generated.
- ``chain-of-empathy``: before answering, the model reasons in steps drawn from
  counselling practice — what the person feels, what caused it, what they need
  (after Chain-of-Empathy prompting, surveyed in seed 002).
- ``empathize-first``: before answering, the model restates the situation from the
  person's point of view (after Empathizing Before Generation, seed 002).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from empathybench.errors import UserError
from empathybench.records import ChatMessage


@dataclass(frozen=True)
class Strategy:
    name: str
    version: str
    system_addendum: str | None


STRATEGIES: dict[str, Strategy] = {
    strategy.name: strategy
    for strategy in (
        Strategy("plain", "plain-v1", None),
        Strategy(
            "chain-of-empathy",
            "chain-of-empathy-v1",
            "Before your answer, think it through on a line starting 'REASONING:' in three short "
            "steps, as a counsellor would: (1) what the person is feeling and how strongly, "
            "(2) what is causing it, (3) what they want or need from you now. Then give your "
            "answer in exactly the requested format.",
        ),
        Strategy(
            "empathize-first",
            "empathize-first-v1",
            "Before your answer, write one or two sentences on a line starting 'EMPATHY:' that "
            "describe what is happening from the person's own point of view and how it feels to "
            "them. Then give your answer in exactly the requested format.",
        ),
    )
}


def get_strategy(name: str) -> Strategy:
    if name not in STRATEGIES:
        raise UserError(f"unknown strategy {name!r}; known: {', '.join(STRATEGIES)}")
    return STRATEGIES[name]


def apply_strategy(
    strategy: Strategy, messages: Sequence[ChatMessage], system_prompt: str | None = None
) -> list[ChatMessage]:
    """The messages to send: optional system-prompt override, then the strategy's addendum."""
    result = list(messages)
    if system_prompt is not None:
        result = [m for m in result if m.role != "system"]
        result.insert(0, ChatMessage(role="system", content=system_prompt))
    if strategy.system_addendum:
        if result and result[0].role == "system":
            result[0] = ChatMessage(
                role="system", content=f"{result[0].content}\n\n{strategy.system_addendum}"
            )
        else:
            result.insert(0, ChatMessage(role="system", content=strategy.system_addendum))
    return result
