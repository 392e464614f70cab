"""The scene lookup: "this scene, in an item of this visible form → the answer keyed most
often there". It models what the linear baselines cannot: an interaction of the scene with
the kind of item as far as the prompt shows it.

An item's visible form is its question section with the options and names masked (a group
question, a story turn and a one-person question read differently), plus whether some
speech extends a line the scene's people say elsewhere (a harsh belief or a crisis
statement appended to their words). Emotion-support and positive-control items share one
form: nothing in the prompt tells them apart. In v3 few people per episode may voice a
statement, so the scene and the form nearly say who is asked (docs/audit.md).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence

from empathybench.audit.baseline import Baseline, best_candidate, check_training
from empathybench.audit.visible import VisibleItem

_OPTION_LINE = re.compile(r"^[A-Z]\) .*$", re.MULTILINE)


def _setting(item: VisibleItem) -> str:
    return item.scene.split("\n", 1)[0]


def _speeches(item: VisibleItem) -> list[str]:
    """The speech lines, names masked, without their closing quote (so a line that goes on
    with more words starts with the shorter line)."""
    return [item.masked(line.text).removesuffix('"') for line in item.lines if line.speaker]


def _question_form(item: VisibleItem) -> str:
    questions = item.prompt.rsplit(item.lines[-1].text, 1)[-1] if item.lines else item.prompt
    return item.masked(_OPTION_LINE.sub("", questions))


class SceneLookup(Baseline):
    name = "scene-lookup"
    description = (
        "this scene in an item of this visible form (question form; a speech extended by a "
        "statement) → its majority key"
    )

    def __init__(self) -> None:
        self._speeches: defaultdict[str, set[str]] = defaultdict(set)
        self._memory: dict[tuple[str, str, bool], Counter[str]] = {}
        self._prior: Counter[str] = Counter()

    def _key(self, item: VisibleItem) -> tuple[str, str, bool]:
        setting = _setting(item)
        known = self._speeches.get(setting, set())
        extended = any(
            speech.startswith(line + " ") for speech in _speeches(item) for line in known
        )
        return setting, _question_form(item), extended

    def fit(self, items: Sequence[VisibleItem], keys: Sequence[str]) -> None:
        check_training(items, keys)
        for item in items:
            self._speeches[_setting(item)].update(_speeches(item))
        memory: defaultdict[tuple[str, str, bool], Counter[str]] = defaultdict(Counter)
        for item, key in zip(items, keys, strict=True):
            memory[self._key(item)][key] += 1
        self._memory = dict(memory)
        self._prior = Counter(keys)

    def predict(self, item: VisibleItem) -> str:
        counts = self._memory.get(self._key(item), Counter())
        return best_candidate(
            item.candidates, {k: float(v) for k, v in counts.items()}, self._prior
        )
