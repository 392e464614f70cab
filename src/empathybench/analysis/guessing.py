"""What guessing scores on a run's answer dimensions, printed beside the model's means.

A mean of 0.29 on Emotion Recognition says little until one knows that a random option
scores 0.33 on the same items. For the items a dimension was scored on:

- Emotion Recognition: a random option (1 / number of options, averaged over items);
- Assistance Needed: always giving the commoner yes/no answer of those items (a constant
  chosen with hindsight, so a generous reference); on group items that ask who needs help,
  a random pick among the people present and "nobody".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from empathybench.records import Scenario


class ScoredItem(Protocol):
    @property
    def scenario_id(self) -> str: ...
    @property
    def values(self) -> dict[str, float | None]: ...


def guess_rates(scenarios: Mapping[str, Scenario], items: Sequence[ScoredItem]) -> dict[str, float]:
    """Dimension → the mean score of guessing over the items it was scored on."""
    rates: dict[str, float] = {}
    emotion = [
        1 / len(scenarios[i.scenario_id].options)
        for i in items
        if i.values.get("emotion_recognition") is not None
    ]
    if emotion:
        rates["emotion_recognition"] = sum(emotion) / len(emotion)
    helped = [
        scenarios[i.scenario_id] for i in items if i.values.get("assistance_needed") is not None
    ]
    if helped:
        who = [s for s in helped if s.group_help_key is not None]
        yes_no = [s for s in helped if s.group_help_key is None]
        yes = sum(s.expected.help_needed for s in yes_no)
        commoner = max(yes, len(yes_no) - yes)
        picks = sum(1 / (len(s.participants) + 1) for s in who)
        rates["assistance_needed"] = (commoner + picks) / len(helped)
    return rates
