"""Spread a small episode suite over the templates' scenes.

A keyed walk of a huge space can land on the same scene and person more than once: a
100-item draw of template v2 asked about one person of one episode up to three times, with
the same lines and key, and took a fifth of its items from a handful of scene families. A
frozen suite should not: ``SceneSpread`` admits an item only when its (episode, person)
has not been asked about yet and its scene family is under ``per_family`` items.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

MAX_SPREAD_SKIPS = 20_000
"""Items one kind may pass over for the spread before the recipe is called impossible."""


@dataclass
class SceneSpread:
    per_family: int
    people: set[tuple[str, str]] = field(default_factory=set)
    families: Counter[str] = field(default_factory=Counter)

    @staticmethod
    def _scene(record: dict[str, Any]) -> tuple[str, str, str] | None:
        templates = record.get("provenance", {}).get("templates", {})
        if not {"episode", "family", "focus"} <= templates.keys():
            return None  # not an episode item: nothing to spread
        return str(templates["episode"]), str(templates["focus"]), str(templates["family"])

    def admits(self, record: dict[str, Any]) -> bool:
        scene = self._scene(record)
        if scene is None:
            return True
        episode, focus, family = scene
        return (episode, focus) not in self.people and self.families[family] < self.per_family

    def add(self, record: dict[str, Any]) -> None:
        scene = self._scene(record)
        if scene is not None:
            episode, focus, family = scene
            self.people.add((episode, focus))
            self.families[family] += 1
