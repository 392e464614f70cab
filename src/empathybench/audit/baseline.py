"""What every audit baseline is: fit on visible training items and their keys, then choose.

A baseline sees only ``VisibleItem`` objects (no hidden truth) and must answer with one of
``item.candidates``. Ties and "no idea" fall back to a fixed, documented order, so the audit
is deterministic.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterable, Sequence

from empathybench.audit.visible import VisibleItem


class Baseline(ABC):
    name: str
    """Short id used in tables and JSON (``ngram``, ``cue-lines``, ...)."""
    description: str
    """One line saying what it does."""

    @abstractmethod
    def fit(self, items: Sequence[VisibleItem], keys: Sequence[str]) -> None:
        """Learn from visible training items and their keys (rules may ignore both)."""

    @abstractmethod
    def predict(self, item: VisibleItem) -> str:
        """One of ``item.candidates``."""

    def predict_many(self, items: Sequence[VisibleItem]) -> list[str]:
        return [self.predict(item) for item in items]


def check_training(items: Sequence[VisibleItem], keys: Sequence[str]) -> None:
    if len(items) != len(keys):
        raise ValueError(f"{len(items)} training items but {len(keys)} keys")


def best_candidate(
    candidates: Sequence[str],
    scores: dict[str, float],
    tie_break: Counter[str] | None = None,
) -> str:
    """The candidate with the highest score (missing: 0); ties go to the one more frequent
    in ``tie_break`` (training keys), then to the earlier candidate."""
    if not candidates:
        raise ValueError("an item has no candidates to choose from")
    counts = tie_break or Counter()
    ranked = sorted(
        enumerate(candidates),
        key=lambda pair: (-scores.get(pair[1], 0.0), -counts[pair[1]], pair[0]),
    )
    return ranked[0][1]


def majority(values: Iterable[str]) -> str | None:
    """The most frequent value (ties: the smallest), None when there are none."""
    counts = Counter(values)
    if not counts:
        return None
    return min(counts, key=lambda value: (-counts[value], value))
