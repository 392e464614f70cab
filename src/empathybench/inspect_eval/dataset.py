"""Scenarios as Inspect samples: the messages the runner sends, the hidden truth as metadata.

A sample's input is exactly what ``runner._answer`` sends a model (the scenario's messages
framed by the prompt strategy); its target is the correct emotion letter; its metadata holds
the whole scenario record (hidden truth included), which the scorer reads back. The tested
model sees only the input.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessage as InspectMessage,
)
from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
)

from empathybench.prompts.strategies import Strategy, apply_strategy
from empathybench.records import ChatMessage, Scenario

SCENARIO_KEY = "scenario"
"""The metadata key holding the full scenario record."""


def to_inspect_messages(messages: Sequence[ChatMessage]) -> list[InspectMessage]:
    """Our chat messages as Inspect's, role for role."""
    converted: list[InspectMessage] = []
    for message in messages:
        if message.role == "system":
            converted.append(ChatMessageSystem(content=message.content))
        elif message.role == "user":
            converted.append(ChatMessageUser(content=message.content))
        else:
            converted.append(ChatMessageAssistant(content=message.content))
    return converted


def scenario_sample(scenario: Scenario, strategy: Strategy) -> Sample:
    """One scenario as a sample (input as the runner sends it, target the correct letter)."""
    metadata: dict[str, Any] = {
        "kind": scenario.kind,
        "hidden_emotion": scenario.emotion.name,
        "correct_option": scenario.correct_option,
        "help_needed": scenario.expected.help_needed,
        "template_version": scenario.template_version,
        "prompt_version": scenario.prompt_version,
        "strategy": strategy.name,
        SCENARIO_KEY: scenario.model_dump(mode="json"),
    }
    return Sample(
        id=scenario.id,
        input=to_inspect_messages(apply_strategy(strategy, scenario.messages)),
        target=scenario.correct_letter,
        metadata=metadata,
    )


def scenario_of(metadata: dict[str, Any]) -> Scenario:
    """The scenario a sample was made from (its metadata record, validated)."""
    return Scenario.model_validate(metadata[SCENARIO_KEY])


def scenario_dataset(name: str, scenarios: Iterable[Scenario], strategy: Strategy) -> MemoryDataset:
    return MemoryDataset([scenario_sample(scenario, strategy) for scenario in scenarios], name=name)
